/* polyhash.c - the keyed universal hash (see polyhash.h).
 *
 * NH of a block of 32-bit words m_0 .. m_{2w-1} (little-endian; the last
 * block's tail padded with zero bytes to 16) under key words k:
 * sum ((m_2i + k_2i) mod 2^32) (m_2i+1 + k_2i+1 mod 2^32) mod 2^64. Each
 * block gives two such sums, under k and under k moved by four words; their
 * 32-bit halves are four coefficients, the text's length the last one.
 */
#include "analysis/core/polyhash.h"

#include <stdbool.h>
#include <string.h>

/* FK_POLYHASH_SCALAR: the portable NH everywhere (its unit test);
 * FK_POLYHASH_NO_AVX2: SSE2 alone (its unit test). AVX2, where the CPU
 * has it, takes 32 bytes a step with the same instructions: the same sums. */
#if defined(__SSE2__) && !defined(FK_POLYHASH_SCALAR)
#define NH_SSE2 1
#include <emmintrin.h>
#if defined(__x86_64__) && defined(__GNUC__) && !defined(FK_POLYHASH_NO_AVX2)
#define NH_AVX2 1
#include <immintrin.h>
#endif
#endif

typedef unsigned __int128 u128;

#define P FK_POLY_PRIME

/* x mod p for x < 2^127: 2^61 is 1 mod p, so the bits above 61 fold down. */
static inline uint64_t reduce(u128 x)
{
	x = (x & P) + (x >> 61); /* < 2^61 + 2^66 */
	x = (x & P) + (x >> 61); /* < 2^61 + 2^5 */
	uint64_t r = (uint64_t)x;
	return r >= P ? r - P : r;
}

static inline uint32_t load32(const unsigned char *p)
{
	uint32_t w;
	memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap32(w);
#endif
	return w;
}

void fk_polykey_init(struct fk_polykey *key, const unsigned char *random)
{
	for (size_t i = 0; i < FK_NH_WORDS; i++)
		key->nh[i] = load32(random + 4 * i);
	for (int i = 0; i < 2; i++) {
		uint64_t k;
		memcpy(&k, random + 4 * FK_NH_WORDS + 8 * i, sizeof k);
		key->pow[i][0] = 1;
		key->pow[i][1] = k % (P - 1) + 1;
		for (int e = 2; e <= 4; e++)
			key->pow[i][e] = reduce((u128)key->pow[i][e - 1] * key->pow[i][1]);
	}
}

#ifdef NH_SSE2
/* One 16-byte step of NH: each 64-bit lane's low word times its high
 * word, added to a0 under key words k and to a1 under k + 4. */
static inline void nh_step_sse2(const unsigned char *p, const uint32_t *k, __m128i *a0,
				__m128i *a1)
{
	__m128i m = _mm_loadu_si128((const __m128i *)p);
	__m128i x = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)k));
	__m128i y = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)(k + 4)));
	*a0 = _mm_add_epi64(*a0, _mm_mul_epu32(x, _mm_srli_epi64(x, 32)));
	*a1 = _mm_add_epi64(*a1, _mm_mul_epu32(y, _mm_srli_epi64(y, 32)));
}

static inline void nh_sums_sse2(__m128i a0, __m128i a1, uint64_t sum[2])
{
	uint64_t l0[2], l1[2];
	_mm_storeu_si128((__m128i *)l0, a0);
	_mm_storeu_si128((__m128i *)l1, a1);
	sum[0] = l0[0] + l0[1];
	sum[1] = l1[0] + l1[1];
}
#endif

/* The two NH sums of n bytes at p (n a multiple of 16, at most a block). */
static void nh(const unsigned char *p, size_t n, const uint32_t *k, uint64_t sum[2])
{
#ifdef NH_SSE2
	__m128i a0 = _mm_setzero_si128(), a1 = _mm_setzero_si128();
	for (size_t i = 0; i < n; i += 16, k += 4)
		nh_step_sse2(p + i, k, &a0, &a1);
	nh_sums_sse2(a0, a1, sum);
#else
	sum[0] = sum[1] = 0;
	for (size_t i = 0; i < n; i += 8, k += 2)
		for (int t = 0; t < 2; t++) {
			uint32_t x = load32(p + i) + k[4 * t], y = load32(p + i + 4) + k[4 * t + 1];
			sum[t] += (uint64_t)x * y;
		}
#endif
}

#ifdef NH_AVX2
/* nh() on AVX2: lanes 0-1 take a step's first 16 bytes and lanes 2-3 its
 * next 16, each under the key words the SSE2 loop gives them; a last 16
 * bytes as SSE2 takes them. */
__attribute__((target("avx2"))) static void nh_avx2(const unsigned char *p, size_t n,
						      const uint32_t *k, uint64_t sum[2])
{
	__m256i a0 = _mm256_setzero_si256(), a1 = _mm256_setzero_si256();
	size_t i = 0;
	for (; i + 32 <= n; i += 32, k += 8) {
		__m256i m = _mm256_loadu_si256((const __m256i *)(p + i));
		__m256i x = _mm256_add_epi32(m, _mm256_loadu_si256((const __m256i *)k));
		__m256i y = _mm256_add_epi32(m, _mm256_loadu_si256((const __m256i *)(k + 4)));
		a0 = _mm256_add_epi64(a0, _mm256_mul_epu32(x, _mm256_srli_epi64(x, 32)));
		a1 = _mm256_add_epi64(a1, _mm256_mul_epu32(y, _mm256_srli_epi64(y, 32)));
	}
	__m128i b0 = _mm_add_epi64(_mm256_castsi256_si128(a0), _mm256_extracti128_si256(a0, 1));
	__m128i b1 = _mm_add_epi64(_mm256_castsi256_si128(a1), _mm256_extracti128_si256(a1, 1));
	if (i < n)
		nh_step_sse2(p + i, k, &b0, &b1);
	nh_sums_sse2(b0, b1, sum);
}
#endif

/* Horner's rule over a block's four coefficients, the 32-bit halves of
 * its two sums, at each point: acc k^4 + c0 k^3 + c1 k^2 + c2 k + c3, whose
 * products do not wait on each other (under 2^127 together). */
static inline void horner4(uint64_t acc[2], const uint64_t pow[2][5], const uint64_t sum[2])
{
	uint64_t c0 = sum[0] & 0xFFFFFFFF, c1 = sum[0] >> 32, c2 = sum[1] & 0xFFFFFFFF,
		 c3 = sum[1] >> 32;
	for (int i = 0; i < 2; i++)
		acc[i] = reduce((u128)acc[i] * pow[i][4] + (u128)c0 * pow[i][3] +
				(u128)c1 * pow[i][2] + (u128)c2 * pow[i][1] + c3);
}

void fk_polyhash(const void *data, size_t len, const struct fk_polykey *key, uint64_t out[2])
{
	const unsigned char *p = data;
	uint64_t acc[2] = { 0, 0 };
#ifdef NH_AVX2
	bool avx2 = __builtin_cpu_supports("avx2");
#endif
	for (size_t left = len; left > 0;) {
		size_t n = left < FK_NH_BLOCK ? left : FK_NH_BLOCK, whole = n & ~(size_t)15;
		uint64_t sum[2];
#ifdef NH_AVX2
		if (avx2)
			nh_avx2(p, whole, key->nh, sum);
		else
#endif
			nh(p, whole, key->nh, sum);
		if (whole < n) { /* the last block's tail, padded with zeros */
			unsigned char tail[16] = { 0 };
			uint64_t more[2];
			memcpy(tail, p + whole, n - whole);
			nh(tail, 16, key->nh + whole / 4, more);
			sum[0] += more[0];
			sum[1] += more[1];
		}
		horner4(acc, key->pow, sum);
		p += n;
		left -= n;
	}
	/* The length last: texts of different lengths differ there. */
	for (int i = 0; i < 2; i++)
		out[i] = reduce((u128)acc[i] * key->pow[i][1] + (uint64_t)len % P);
}
