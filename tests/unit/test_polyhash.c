/* test_polyhash.c - the keyed universal hash (analysis/core/polyhash):
 * the same two values as its definition computed word by word and
 * coefficient by coefficient, at every length around its 16-byte groups
 * and its blocks; every read inside the text; texts that differ in one
 * byte, only in trailing zero bytes, or are built to collide in XXH3 (two
 * 8-byte words W and ~W swapped, xxHash issue #1127) get other values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/core/polyhash.h"

#define P FK_POLY_PRIME

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static void random_key(struct fk_polykey *key, uint64_t *s)
{
	unsigned char bytes[FK_POLYKEY_RANDOM];
	for (size_t i = 0; i < sizeof bytes; i++)
		bytes[i] = (unsigned char)next_random(s);
	fk_polykey_init(key, bytes);
}

/* Word i of a block of n bytes at p, zero past n (little-endian). */
static uint32_t word(const unsigned char *p, size_t n, size_t i)
{
	uint32_t w = 0;
	for (size_t b = 0; b < 4; b++)
		if (4 * i + b < n)
			w |= (uint32_t)p[4 * i + b] << (8 * b);
	return w;
}

/* The definition: per block of FK_NH_BLOCK bytes (the last one padded with
 * zeros to 16), the NH sums under the key and under the key moved by four
 * words; their 32-bit halves, then the length, as coefficients of a
 * polynomial mod p at each point, one coefficient at a time. */
static void reference(const unsigned char *p, size_t len, const struct fk_polykey *key,
		      uint64_t out[2])
{
	unsigned __int128 acc[2] = { 0, 0 };
	for (size_t at = 0; at < len; at += FK_NH_BLOCK) {
		size_t n = len - at < FK_NH_BLOCK ? len - at : FK_NH_BLOCK;
		size_t words = (n + 15) / 16 * 4;
		uint64_t sum[2] = { 0, 0 };
		for (int t = 0; t < 2; t++)
			for (size_t i = 0; i < words; i += 2) {
				uint32_t x = word(p + at, n, i) + key->nh[4 * t + i];
				uint32_t y = word(p + at, n, i + 1) + key->nh[4 * t + i + 1];
				sum[t] += (uint64_t)x * y;
			}
		uint64_t c[4] = { sum[0] & 0xFFFFFFFF, sum[0] >> 32, sum[1] & 0xFFFFFFFF, sum[1] >> 32 };
		for (int i = 0; i < 2; i++)
			for (int j = 0; j < 4; j++)
				acc[i] = (acc[i] * key->pow[i][1] + c[j]) % P;
	}
	for (int i = 0; i < 2; i++)
		out[i] = (uint64_t)((acc[i] * key->pow[i][1] + len) % P);
}

static void test_matches_the_definition(void **state)
{
	(void)state;
	enum { MAX = 3 * FK_NH_BLOCK + 40 };
	unsigned char *text = malloc(MAX);
	assert_non_null(text);
	uint64_t s = 88172645463325252ull;
	for (size_t i = 0; i < MAX; i++)
		text[i] = (unsigned char)(i % 3 ? next_random(&s) : 0xFF);
	for (int round = 0; round < 4; round++) {
		struct fk_polykey key;
		random_key(&key, &s);
		assert_true(key.pow[0][1] >= 1 && key.pow[0][1] < P);
		for (size_t len = 0; len <= MAX; len += len < 80 || len % FK_NH_BLOCK > FK_NH_BLOCK - 40 ||
								 len % FK_NH_BLOCK < 40 ? 1 : 37) {
			uint64_t got[2], want[2];
			fk_polyhash(text, len, &key, got);
			reference(text, len, &key, want);
			assert_true(got[0] < P && got[1] < P);
			assert_int_equal(got[0], want[0]);
			assert_int_equal(got[1], want[1]);
		}
	}
	free(text);
}

/* Each read stays inside the text: every length as its own allocation
 * (a read past it is reported under ASan). */
static void test_reads_only_the_text(void **state)
{
	(void)state;
	uint64_t s = 12345;
	struct fk_polykey key;
	random_key(&key, &s);
	for (size_t len = 0; len < 100; len++) {
		unsigned char *t = malloc(len ? len : 1);
		assert_non_null(t);
		memset(t, 'x', len);
		uint64_t got[2], want[2];
		fk_polyhash(t, len, &key, got);
		reference(t, len, &key, want);
		assert_memory_equal(got, want, sizeof got);
		free(t);
	}
}

static void assert_differ(const void *a, size_t alen, const void *b, size_t blen,
			  const struct fk_polykey *key)
{
	uint64_t x[2], y[2];
	fk_polyhash(a, alen, key, x);
	fk_polyhash(b, blen, key, y);
	assert_true(x[0] != y[0] || x[1] != y[1]);
}

static void test_told_apart(void **state)
{
	(void)state;
	uint64_t s = 0x9E3779B97F4A7C15ull;
	for (int round = 0; round < 32; round++) {
		struct fk_polykey key;
		random_key(&key, &s);
		/* Trailing zero bytes: the length tells them apart. */
		static const unsigned char zeros[40] = { 0 };
		for (size_t n = 0; n < 39; n++)
			assert_differ(zeros, n, zeros, n + 1, &key);
		/* XXH3's collisions built on purpose: words W, ~W swapped. */
		for (size_t len = 32; len <= 240; len += 16) {
			unsigned char a[240], b[240];
			for (size_t i = 0; i < len; i++)
				a[i] = (unsigned char)('a' + (next_random(&s) % 26));
			uint64_t w = next_random(&s), nw = ~w;
			memcpy(a, &w, 8);
			memcpy(a + 8, &nw, 8);
			memcpy(b, a, len);
			memcpy(b, &nw, 8);
			memcpy(b + 8, &w, 8);
			assert_differ(a, len, b, len, &key);
		}
		/* One byte changed anywhere in a text of two blocks and a tail. */
		unsigned char t[2 * FK_NH_BLOCK + 9], u[sizeof t];
		for (size_t i = 0; i < sizeof t; i++)
			t[i] = (unsigned char)next_random(&s);
		for (size_t pos = round; pos < sizeof t; pos += 61) {
			memcpy(u, t, sizeof t);
			u[pos] ^= (unsigned char)(1 + pos % 255);
			assert_differ(t, sizeof t, u, sizeof u, &key);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_the_definition),
		cmocka_unit_test(test_reads_only_the_text),
		cmocka_unit_test(test_told_apart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
