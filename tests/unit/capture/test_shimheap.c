/* test_shimheap.c - the shim's own heap (capture/shimheap.c): blocks are
 * aligned, hold what was asked, and are known as the heap's (and nothing
 * else is); live blocks count in the free hook's filter, freed ones do
 * not; a freed block is reused by its class; calloc zeroes a reused block
 * and leaves a fresh one untouched (its pages not faulted in); realloc
 * keeps the bytes; a freed big block gives its pages back; sizes past the
 * heap, overflowing counts and a full heap give NULL; threads allocating
 * at once never share a byte.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "capture/freefilter.h"
#include "capture/shimheap.h"

static int setup(void **state)
{
	(void)state;
	return shimheap_init() && shimheap_init() ? 0 : -1; /* twice: the same heap */
}

static void test_blocks(void **state)
{
	(void)state;
	int local;
	void *theirs = malloc(16);
	assert_false(shimheap_owns(NULL));
	assert_false(shimheap_owns(&local));
	assert_false(shimheap_owns(theirs));
	free(theirs);
	for (size_t n = 0; n < 5000; n += 7) {
		unsigned char *p = shimheap_alloc(n);
		assert_non_null(p);
		assert_true(shimheap_owns(p));
		assert_true(shimheap_owns(p + (n ? n - 1 : 0)));
		assert_int_equal((uintptr_t)p % 16, 0);
		assert_true(shimheap_usable(p) >= n);
		assert_true(shimheap_usable(p) < 2 * n + 32); /* the next power of two, no more */
		memset(p, 0xab, n);
		shimheap_free(p);
	}
	shimheap_free(NULL);
}

static void test_reuse_and_calloc(void **state)
{
	(void)state;
	unsigned char *p = shimheap_alloc(100);
	memset(p, 0x5a, 100);
	shimheap_free(p);
	unsigned char *q = shimheap_calloc(10, 10); /* the same class: the same block, zeroed */
	assert_ptr_equal(q, p);
	for (int i = 0; i < 100; i++)
		assert_int_equal(q[i], 0);
	shimheap_free(q);
	assert_null(shimheap_calloc(SIZE_MAX / 2, 3));
}

/* A fresh block is already zero: calloc must not write it (a table of
 * which a run uses a few slots would otherwise be faulted in whole). */
static void test_fresh_calloc_untouched(void **state)
{
	(void)state;
	size_t n = (size_t)2 << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	unsigned char *p = shimheap_calloc(1, n);
	assert_non_null(p);
	uintptr_t lo = ((uintptr_t)p + page - 1) & ~(uintptr_t)(page - 1);
	size_t pages = (n - page) / page;
	unsigned char *in_core = malloc(pages);
	assert_int_equal(mincore((void *)lo, pages * page, in_core), 0);
	size_t resident = 0;
	for (size_t i = 0; i < pages; i++)
		resident += in_core[i] & 1;
	assert_int_equal(resident, 0);
	for (size_t i = 0; i < n; i += page / 2)
		assert_int_equal(p[i], 0);
	p[n - 1] = 1;
	shimheap_free(p);
	free(in_core);
}

/* Each live block counts in the free hook's filter, so its free goes the
 * slow way (to shimheap_free) and stops counting once freed; a block that
 * realloc moves counts at its new address only. */
static void test_blocks_in_free_filter(void **state)
{
	(void)state;
	unsigned char *p[8];
	for (int i = 0; i < 8; i++) {
		p[i] = shimheap_alloc((size_t)24 << (2 * i));
		assert_true(freefilter_maybe((uintptr_t)p[i]));
	}
	unsigned char *q = shimheap_realloc(p[0], 5000);
	assert_ptr_not_equal(q, p[0]);
	assert_false(freefilter_maybe((uintptr_t)p[0]));
	assert_true(freefilter_maybe((uintptr_t)q));
	p[0] = q;
	for (int i = 0; i < 8; i++) {
		shimheap_free(p[i]);
		assert_false(freefilter_maybe((uintptr_t)p[i]));
	}
}

static void test_realloc_keeps(void **state)
{
	(void)state;
	unsigned char *p = shimheap_realloc(NULL, 40);
	assert_non_null(p);
	for (int i = 0; i < 40; i++)
		p[i] = (unsigned char)i;
	assert_ptr_equal(shimheap_realloc(p, 30), p); /* room enough: kept */
	unsigned char *q = shimheap_realloc(p, 100000);
	assert_non_null(q);
	for (int i = 0; i < 30; i++)
		assert_int_equal(q[i], i);
	shimheap_free(q);
}

static void test_big_block_pages_return(void **state)
{
	(void)state;
	size_t n = (size_t)4 << 20;
	unsigned char *p = shimheap_alloc(n);
	memset(p, 0xff, n);
	shimheap_free(p);
	unsigned char *q = shimheap_alloc(n);
	assert_ptr_equal(q, p);
	/* Past the free list's link and the first page: zero again. */
	for (size_t i = 8192; i < n; i += 4096)
		assert_int_equal(q[i], 0);
	shimheap_free(q);
}

static void test_limits(void **state)
{
	(void)state;
	assert_null(shimheap_alloc((size_t)1 << 30)); /* no class holds it with its header */
	assert_null(shimheap_alloc(SIZE_MAX));
	/* Blocks of half the heap, never touched: it holds fewer than two
	 * beside what the other tests took. */
	size_t half = shimheap_size / 2 - 16;
	void *a = shimheap_alloc(half);
	assert_non_null(a);
	assert_null(shimheap_alloc(half));
	shimheap_free(a);
	void *b = shimheap_alloc(half); /* the freed one again */
	assert_ptr_equal(b, a);
	shimheap_free(b);
}

#define THREADS 4
#define ROUNDS 20000

static void *churn(void *arg)
{
	unsigned char tag = (unsigned char)(uintptr_t)arg;
	unsigned char *mine[16] = { 0 };
	for (int r = 0; r < ROUNDS; r++) {
		int i = r % 16;
		if (mine[i]) {
			for (size_t k = 0; k < 48; k++)
				if (mine[i][k] != tag)
					return (void *)1; /* another thread wrote into this block */
			shimheap_free(mine[i]);
		}
		mine[i] = shimheap_alloc(48 + (size_t)(r % 5) * 40);
		if (!mine[i])
			return (void *)1;
		memset(mine[i], tag, 48);
	}
	for (int i = 0; i < 16; i++)
		shimheap_free(mine[i]);
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	pthread_t t[THREADS];
	for (uintptr_t i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, churn, (void *)(i + 1)), 0);
	for (int i = 0; i < THREADS; i++) {
		void *rc;
		assert_int_equal(pthread_join(t[i], &rc), 0);
		assert_null(rc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_blocks),
		cmocka_unit_test(test_reuse_and_calloc),
		cmocka_unit_test(test_fresh_calloc_untouched),
		cmocka_unit_test(test_blocks_in_free_filter),
		cmocka_unit_test(test_realloc_keeps),
		cmocka_unit_test(test_big_block_pages_return),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
