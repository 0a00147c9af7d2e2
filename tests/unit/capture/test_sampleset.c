/* test_sampleset.c - the sampled-address set of --alloc-sample
 * (capture/sampleset.c) and the free hook's filter it counts in
 * (capture/freefilter.c): every address added is found and taken once;
 * the filter never says "surely not" of an address in the set, and says
 * it of most others; addresses sharing a filter byte (1 MiB apart) are
 * told apart by the table; a freed slot is reused; the table widens its
 * reach as live addresses grow, finding those placed at every reach; a
 * full table loses no free; a saturated filter says "maybe" of all.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/single_threaded.h>

#include "capture/freefilter.h"
#include "capture/sampleset.h"

static int setup(void **state)
{
	(void)state;
	return sampleset_init() ? 0 : -1;
}

static void test_add_take(void **state)
{
	(void)state;
	assert_true(__libc_single_threaded); /* the plain stores' path, up to test_threads_race */
	const uintptr_t base = 0x7f0000100000u;
	for (uintptr_t i = 0; i < 1000; i++) {
		sampleset_add(base + i * 4096);
		assert_true(freefilter_maybe(base + i * 4096));
	}
	for (uintptr_t i = 0; i < 1000; i++) {
		assert_true(sampleset_take(base + i * 4096));
		assert_false(sampleset_take(base + i * 4096)); /* taken once */
	}
	/* All taken: the filter is empty again. */
	for (uintptr_t i = 0; i < 1000; i++)
		assert_false(freefilter_maybe(base + i * 4096));
}

static void test_filter_says_no_to_strangers(void **state)
{
	(void)state;
	sampleset_add(0x5500000010u); /* filter byte 1 */
	size_t maybe = 0;
	for (uintptr_t a = 0x5600000100u; a < 0x5600000100u + 4096 * 16; a += 16) /* bytes 16-4111 */
		maybe += freefilter_maybe(a);
	assert_int_equal(maybe, 0);
	assert_true(freefilter_maybe(0x5600000010u)); /* byte 1 too: "maybe" */
	assert_false(sampleset_take(0x5600000010u));
	assert_true(sampleset_take(0x5500000010u));
}

static void test_shared_byte(void **state)
{
	(void)state;
	const uintptr_t a = 0x5500000040u, b = a + ((uintptr_t)1 << 20); /* same filter byte */
	sampleset_add(a);
	assert_true(freefilter_maybe(b));   /* "maybe": the table decides */
	assert_false(sampleset_take(b));   /* not sampled */
	assert_true(freefilter_maybe(a));
	sampleset_add(b);
	assert_true(sampleset_take(a));
	assert_true(freefilter_maybe(b));   /* a's removal left b's count */
	assert_true(sampleset_take(b));
	assert_false(freefilter_maybe(a));
}

static void test_saturated_byte_stays_maybe(void **state)
{
	(void)state;
	const uintptr_t a = 0x6600000080u, mib = (uintptr_t)1 << 20;
	for (uintptr_t i = 0; i < 300; i++) /* past the byte's 255 */
		sampleset_add(a + i * mib);
	for (uintptr_t i = 0; i < 300; i++)
		assert_true(sampleset_take(a + i * mib));
	/* Saturated: it can no longer count down, so it says "maybe" (and the
	 * table, now empty there, says no). */
	assert_true(freefilter_maybe(a));
	assert_false(sampleset_take(a));
}

/* 100,000 live addresses: more than every reach but the widest (2^18
 * slots) holds, so the table widens to it and never fills. Each is
 * found once, also those placed while the reach was narrower, and an
 * address never added is not (a full set would say "present" of it). */
static void test_reach_widens(void **state)
{
	(void)state;
	const uintptr_t base = 0x7d0000000000u;
	const uintptr_t n = 100000; /* 16 bytes apart: two at most per filter byte */
	for (uintptr_t i = 0; i < n; i++)
		sampleset_add(base + i * 16);
	assert_false(sampleset_take(base + n * 16));
	for (uintptr_t i = n; i-- > 0;) {
		assert_true(sampleset_take(base + i * 16));
		assert_false(sampleset_take(base + i * 16));
	}
}

/* Threads at once, each adding and taking its own addresses, all of
 * them sharing filter bytes (1 MiB apart) and the table's first reach:
 * the compare-and-swap paths (a single thread's updates are plain
 * stores). Every take finds its address once, and the filter counts back
 * to zero, with no update lost to a race. */
#define RACERS 4
#define RACE_ROUNDS 20000
#define RACE_LIVE 8

struct racer {
	uintptr_t base;
	long found, missed;
	bool alone; /* what glibc said while the others ran: must be false */
};

static pthread_barrier_t race_start;

static void *race(void *arg)
{
	struct racer *r = arg;
	r->alone = __libc_single_threaded;
	pthread_barrier_wait(&race_start); /* all at once */
	for (uintptr_t i = 0; i < RACE_ROUNDS; i++) {
		uintptr_t first = r->base + (i % 4) * RACE_LIVE * 16;
		for (uintptr_t k = 0; k < RACE_LIVE; k++)
			sampleset_add(first + k * 16);
		for (uintptr_t k = 0; k < RACE_LIVE; k++) {
			if (sampleset_take(first + k * 16))
				r->found++;
			else
				r->missed++;
		}
	}
	return NULL;
}

static void test_threads_race(void **state)
{
	(void)state;
	const uintptr_t base = 0x7c0000040000u, mib = (uintptr_t)1 << 20; /* bytes from 16,384: clear of the saturated one above */
	struct racer racers[RACERS];
	pthread_t threads[RACERS];
	assert_int_equal(pthread_barrier_init(&race_start, NULL, RACERS), 0);
	for (int t = 0; t < RACERS; t++) {
		racers[t] = (struct racer){ .base = base + (uintptr_t)t * mib };
		assert_int_equal(pthread_create(&threads[t], NULL, race, &racers[t]), 0);
	}
	for (int t = 0; t < RACERS; t++) {
		assert_int_equal(pthread_join(threads[t], NULL), 0);
		assert_false(racers[t].alone);
		assert_int_equal(racers[t].found, (long)RACE_ROUNDS * RACE_LIVE);
		assert_int_equal(racers[t].missed, 0);
	}
	pthread_barrier_destroy(&race_start);
	for (int t = 0; t < RACERS; t++)
		for (uintptr_t a = 0; a < 4 * RACE_LIVE * 16; a += 16) {
			assert_false(freefilter_maybe(racers[t].base + a));
			assert_false(sampleset_take(racers[t].base + a));
		}
}

/* More addresses than the table has slots: it fills, and from then on the
 * filter alone decides. Every address added still passes it (and is
 * recorded), also those added once the table was full, to buckets no one
 * had used; buckets no one added to still say "surely not". Last: the set
 * stays full. */
static void test_full_set_misses_no_free(void **state)
{
	(void)state;
	const uintptr_t base = 0x7e0000000000u, mib = (uintptr_t)1 << 20;
	const uintptr_t n = 300000, buckets = 32768; /* the filter's lower half */
	for (uintptr_t i = 0; i < n; i++)
		sampleset_add(base + (i % buckets) * 16 + (i / buckets) * mib);
	for (uintptr_t b = buckets; b < buckets + 100; b++) /* into a full table */
		sampleset_add(base + b * 16);
	for (uintptr_t i = 0; i < n; i++) {
		uintptr_t a = base + (i % buckets) * 16 + (i / buckets) * mib;
		assert_true(freefilter_maybe(a));
		assert_true(sampleset_take(a));
	}
	for (uintptr_t b = buckets; b < buckets + 100; b++) {
		assert_true(freefilter_maybe(base + b * 16));
		assert_true(sampleset_take(base + b * 16));
	}
	for (uintptr_t b = buckets + 100; b < 2 * buckets; b++)
		assert_false(freefilter_maybe(base + b * 16));
}

/* Exact tracking: the filter says "maybe" of every address, NULL too,
 * and goes on saying it after adds and takes. */
static void test_watch_all(void **state)
{
	(void)state;
	freefilter_saturate();
	for (uintptr_t a = 0; a < ((uintptr_t)1 << 21); a += 8)
		assert_true(freefilter_maybe(a));
	sampleset_add(0x5500000040u);
	assert_true(sampleset_take(0x5500000040u));
	assert_true(freefilter_maybe(0x5500000040u));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_take),
		cmocka_unit_test(test_filter_says_no_to_strangers),
		cmocka_unit_test(test_shared_byte),
		cmocka_unit_test(test_saturated_byte_stays_maybe),
		cmocka_unit_test(test_reach_widens),
		/* The first with threads: the tests above ran on one. */
		cmocka_unit_test(test_threads_race),
		cmocka_unit_test(test_full_set_misses_no_free),
		cmocka_unit_test(test_watch_all), /* last: the filter stays saturated */
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
