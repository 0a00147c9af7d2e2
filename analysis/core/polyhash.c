/* polyhash.c - the keyed polynomial hash (see polyhash.h).
 *
 * With chunks c_0 .. c_{n-1} and c_n = len, the value is
 * sum c_i k^(n + 1 - i) mod p, by Horner's rule sixteen chunks at a time:
 * acc k^16 + c_0 k^15 + ... + c_15, whose products are independent (one
 * waits on acc) and reduced once, so the multiplier is kept busy instead
 * of waiting on a chain of one product and reduction per chunk.
 */
#include "analysis/core/polyhash.h"

#include <string.h>

typedef unsigned __int128 u128;

#define P FK_POLY_PRIME
#define CHUNK 7

/* x mod p for x < 2^127: 2^61 is 1 mod p, so the bits above 61 fold down. */
static inline uint64_t reduce(u128 x)
{
	x = (x & P) + (x >> 61); /* < 2^61 + 2^66 */
	x = (x & P) + (x >> 61); /* < 2^61 + 2^5 */
	uint64_t r = (uint64_t)x;
	return r >= P ? r - P : r;
}

static inline uint64_t mul(uint64_t a, uint64_t b)
{
	return reduce((u128)a * b);
}

void fk_polykey_init(struct fk_polykey *key, uint64_t k)
{
	key->pow[0] = 1;
	for (int i = 1; i <= FK_POLY_BLOCK; i++)
		key->pow[i] = mul(key->pow[i - 1], k);
}

/* The 7 bytes at p as a number (< 2^56 < p), reading 8. */
static inline uint64_t chunk8(const unsigned char *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w & (((uint64_t)1 << 56) - 1);
}

/* The n (< 8) bytes at p as a number, reading only them. */
static inline uint64_t chunk_tail(const unsigned char *p, size_t n)
{
	uint64_t w = 0;
	for (size_t i = 0; i < n; i++)
		w |= (uint64_t)p[i] << (8 * i);
	return w;
}

uint64_t fk_polyhash(const void *data, size_t len, const struct fk_polykey *key)
{
	const unsigned char *p = data;
	const uint64_t *k = key->pow;
	uint64_t acc = 0;
	size_t left = len;
	/* FK_POLY_BLOCK chunks at a time, while 8-byte reads stay inside. The
	 * sum of their products stays under 2^127: 17 of them under 2^122. */
	while (left >= FK_POLY_BLOCK * CHUNK + 1) {
		u128 sum = (u128)acc * k[FK_POLY_BLOCK];
		for (int i = 0; i < FK_POLY_BLOCK; i++)
			sum += (u128)chunk8(p + i * CHUNK) * k[FK_POLY_BLOCK - 1 - i];
		acc = reduce(sum);
		p += FK_POLY_BLOCK * CHUNK;
		left -= FK_POLY_BLOCK * CHUNK;
	}
	for (; left >= CHUNK + 1; p += CHUNK, left -= CHUNK)
		acc = reduce((u128)acc * k[1] + chunk8(p));
	if (left) /* the last 1 to 7 bytes: one more chunk */
		acc = reduce((u128)acc * k[1] + chunk_tail(p, left));
	/* The length last: texts that differ only in trailing zero bytes, or
	 * in where their last chunk ends, still differ. */
	return reduce((u128)acc * k[1] + (uint64_t)len % P);
}
