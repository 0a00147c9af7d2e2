/* test_polyhash.c - the keyed polynomial hash (analysis/core/polyhash):
 * the same value as the polynomial evaluated chunk by chunk, at the edges
 * of the field and of its blocks; texts that differ only in trailing zero
 * bytes, or are built to collide in XXH3 (two 8-byte words W and ~W
 * swapped, xxHash issue #1127), get different values. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/core/polyhash.h"

#define P FK_POLY_PRIME

/* The definition, one chunk at a time: sum c_i k^(n + 1 - i) mod p with
 * 7-byte little-endian chunks c_0 .. c_{n-1} and c_n = len. */
static uint64_t reference(const unsigned char *p, size_t len, uint64_t k)
{
	unsigned __int128 acc = 0;
	size_t at = 0;
	do {
		uint64_t c = 0;
		for (size_t i = 0; i < 7 && at + i < len; i++)
			c |= (uint64_t)p[at + i] << (8 * i);
		if (len > 0)
			acc = (acc * k + c) % P;
		at += 7;
	} while (at < len);
	return (uint64_t)((acc * k + len) % P);
}

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static void test_matches_the_definition(void **state)
{
	(void)state;
	enum { MAX = 5000 };
	unsigned char *text = malloc(MAX);
	assert_non_null(text);
	uint64_t s = 88172645463325252ull;
	for (size_t i = 0; i < MAX; i++)
		text[i] = (unsigned char)(i % 3 ? next_random(&s) : 0xFF); /* high bytes too */
	const uint64_t keys[] = { 1, 2, P - 1, P - 2, 0x123456789ABCDEFull % P, next_random(&s) % (P - 1) + 1 };
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		struct fk_polykey key;
		fk_polykey_init(&key, keys[k]);
		/* Every length through three blocks of 16 chunks, then long ones. */
		for (size_t len = 0; len <= 3 * 16 * 7 + 9; len++) {
			uint64_t v = fk_polyhash(text, len, &key);
			assert_true(v < P);
			assert_int_equal(v, reference(text, len, keys[k]));
		}
		static const size_t long_lens[] = { 1250, 1251, 4095, MAX };
		for (size_t i = 0; i < sizeof long_lens / sizeof long_lens[0]; i++)
			assert_int_equal(fk_polyhash(text, long_lens[i], &key),
					 reference(text, long_lens[i], keys[k]));
	}
	free(text);
}

/* Each read stays inside the text: every length as its own allocation
 * (a read past it is reported under ASan). */
static void test_reads_only_the_text(void **state)
{
	(void)state;
	struct fk_polykey key;
	fk_polykey_init(&key, 987654321);
	for (size_t len = 0; len < 200; len++) {
		unsigned char *t = malloc(len ? len : 1);
		assert_non_null(t);
		memset(t, 'x', len);
		assert_int_equal(fk_polyhash(t, len, &key), reference(t, len, 987654321));
		free(t);
	}
}

static void test_told_apart(void **state)
{
	(void)state;
	uint64_t s = 0x9E3779B97F4A7C15ull;
	for (int round = 0; round < 64; round++) {
		struct fk_polykey key;
		fk_polykey_init(&key, next_random(&s) % (P - 1) + 1);
		/* Trailing zero bytes: the length tells them apart. */
		static const unsigned char zeros[16] = { 0 };
		for (size_t n = 0; n < 15; n++)
			assert_int_not_equal(fk_polyhash(zeros, n, &key), fk_polyhash(zeros, n + 1, &key));
		assert_int_not_equal(fk_polyhash("a", 1, &key), fk_polyhash("a\0", 2, &key));
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
			assert_int_not_equal(fk_polyhash(a, len, &key), fk_polyhash(b, len, &key));
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
