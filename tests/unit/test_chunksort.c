/* test_chunksort.c - analysis/core/chunksort.h: the multikey quicksort of
 * ids by byte strings.
 *
 * Covers: every order against qsort with memcmp (shorter first, equal
 * strings by id) on strings over bytes that matter (NUL, ' ', ';', 0xff),
 * with shared prefixes, prefixes of each other and duplicates; tiny and
 * large counts; groups that share a thousand bytes (skipped in one pass);
 * chunks alone and chunks with the bytes function.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/core/chunksort.h"

struct strs {
	unsigned char **p;
	size_t *len;
};

static uint64_t chunk(const void *ctx, uint32_t id, size_t depth)
{
	const struct strs *s = ctx;
	size_t len = s->len[id];
	if (depth + 8 <= len)
		return fk_chunk_of_8(s->p[id] + depth);
	return fk_chunk_of(s->p[id] + depth, depth < len ? len - depth : 0);
}

static size_t bytes(const void *ctx, uint32_t id, const unsigned char **p)
{
	const struct strs *s = ctx;
	*p = s->p[id];
	return s->len[id];
}

static const struct strs *ref_strs;

static int ref_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	size_t la = ref_strs->len[a], lb = ref_strs->len[b];
	int c = memcmp(ref_strs->p[a], ref_strs->p[b], la < lb ? la : lb);
	if (c)
		return c;
	if (la != lb)
		return la < lb ? -1 : 1;
	return (a > b) - (a < b);
}

static uint64_t rng = 88172645463325252u;

static unsigned next(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* n strings: each a prefix of an earlier one (or of a shared run of
 * prefix_len bytes) extended by bytes that matter. */
static struct strs make(size_t n, size_t prefix_len)
{
	static const unsigned char alphabet[] = { 0, ' ', ';', 'a', 'b', 0xff, '\t', '9' };
	struct strs s = { calloc(n, sizeof *s.p), calloc(n, sizeof *s.len) };
	assert_true(s.p && s.len);
	for (size_t i = 0; i < n; i++) {
		size_t keep = prefix_len, extra = next(24);
		const unsigned char *from = NULL;
		if (i > 0 && next(4)) {
			size_t parent = next((unsigned)i);
			keep = next((unsigned)s.len[parent] + 1);
			from = s.p[parent];
		}
		s.len[i] = keep + extra;
		s.p[i] = malloc(s.len[i] + 1);
		assert_non_null(s.p[i]);
		for (size_t k = 0; k < keep; k++)
			s.p[i][k] = from ? from[k] : (unsigned char)('A' + k % 26);
		for (size_t k = keep; k < s.len[i]; k++)
			s.p[i][k] = alphabet[next(sizeof alphabet)];
	}
	return s;
}

static void drop(struct strs *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s->p[i]);
	free(s->p);
	free(s->len);
}

static void check(size_t n, size_t prefix_len, bool with_bytes)
{
	struct strs s = make(n, prefix_len);
	uint32_t *ids = malloc((n ? n : 1) * sizeof *ids), *want = malloc((n ? n : 1) * sizeof *want);
	assert_true(ids && want);
	for (size_t i = 0; i < n; i++) /* a scrambled start */
		ids[i] = want[i] = (uint32_t)((i * 7919) % n);
	ref_strs = &s;
	qsort(want, n, sizeof *want, ref_cmp);
	assert_true(fk_chunk_sort(ids, n, chunk, with_bytes ? bytes : NULL, &s));
	for (size_t i = 0; i < n; i++)
		if (ids[i] != want[i])
			fail_msg("n %zu, prefix %zu, bytes %d: position %zu has %u, not %u", n, prefix_len,
				 (int)with_bytes, i, ids[i], want[i]);
	free(ids);
	free(want);
	drop(&s, n);
}

static void test_orders_as_memcmp(void **state)
{
	(void)state;
	static const size_t counts[] = { 0, 1, 2, 3, 15, 16, 17, 100, 5000, 40000 };
	for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
		check(counts[i], 0, false);
		check(counts[i], 0, true);
	}
}

static void test_long_shared_prefixes(void **state)
{
	(void)state;
	check(3000, 1000, true);
	check(3000, 1000, false);
	check(3000, 13, true);
}

static void test_duplicates_keep_id_order(void **state)
{
	(void)state;
	/* 1000 strings, 10 distinct: equal ones in ascending id order. */
	static unsigned char text[10][12];
	struct strs s = { calloc(1000, sizeof *s.p), calloc(1000, sizeof *s.len) };
	assert_true(s.p && s.len);
	for (int k = 0; k < 10; k++)
		memcpy(text[k], "same-prefix-", 12), text[k][11] = (unsigned char)('a' + k);
	uint32_t ids[1000];
	for (uint32_t i = 0; i < 1000; i++) {
		s.p[i] = text[(i * 37) % 10];
		s.len[i] = 12;
		ids[i] = 999 - i;
	}
	assert_true(fk_chunk_sort(ids, 1000, chunk, bytes, &s));
	for (uint32_t i = 1; i < 1000; i++) {
		int c = memcmp(s.p[ids[i - 1]], s.p[ids[i]], 12);
		assert_true(c < 0 || (c == 0 && ids[i - 1] < ids[i]));
	}
	free(s.p);
	free(s.len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_orders_as_memcmp),
		cmocka_unit_test(test_long_shared_prefixes),
		cmocka_unit_test(test_duplicates_keep_id_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
