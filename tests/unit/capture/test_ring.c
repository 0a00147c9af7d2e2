/* test_ring.c - the shim's single-producer ring (capture/ring.h): records
 * come out in order with their bytes; a full ring refuses a record and
 * takes one again once drained (the producer's stale view of head is
 * looked at again); a record that does not fit before the end wraps after
 * a padding record the drain skips; commit says "wake the consumer" once
 * per crossing of half full, not per record; an empty ring rewound starts
 * again at its first byte, one holding a record is left as it is.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "capture/ring.h"

#define SIZE 1024

struct rec {
	struct ring_record h;
	uint64_t value;
};

struct seen {
	uint64_t values[SIZE];
	unsigned n;
};

static void collect(void *ctx, const struct ring_record *r)
{
	struct seen *s = ctx;
	assert_int_equal(r->type, 1);
	s->values[s->n++] = ((const struct rec *)r)->value;
}

/* Puts one record of size bytes holding v; whether the ring took it, and
 * in *wake what commit said. */
static bool put(struct ring *r, uint32_t size, uint64_t v, bool *wake)
{
	uint64_t tail;
	struct rec *rec = (struct rec *)ring_reserve(r, size, &tail);
	if (!rec)
		return false;
	rec->h.type = 1;
	rec->value = v;
	*wake = ring_commit(r, tail);
	return true;
}

static void test_order_and_full(void **state)
{
	(void)state;
	_Alignas(8) static uint8_t data[SIZE];
	struct ring r;
	ring_init(&r, data, SIZE);
	bool wake;
	unsigned n = 0;
	while (n <= SIZE / 64 && put(&r, 64, n, &wake))
		n++;
	assert_int_equal(n, SIZE / 64); /* full: every byte used, then refused */
	struct seen s = { .n = 0 };
	ring_drain(&r, collect, &s);
	assert_int_equal(s.n, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(s.values[i], i);
	/* Drained: the producer sees the room again. */
	assert_true(put(&r, 64, 99, &wake));
	s.n = 0;
	ring_drain(&r, collect, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.values[0], 99);
}

static void test_wraps_with_padding(void **state)
{
	(void)state;
	_Alignas(8) static uint8_t data[SIZE];
	struct ring r;
	ring_init(&r, data, SIZE);
	bool wake;
	struct seen s = { .n = 0 };
	for (uint64_t i = 0; i < 3; i++)
		assert_true(put(&r, 296, i, &wake)); /* 888 bytes: 136 left before the end */
	ring_drain(&r, collect, &s);
	/* 200 bytes do not fit before the end: padded, then at the start. */
	assert_true(put(&r, 200, 3, &wake));
	assert_int_equal(atomic_load(&r.tail), 888 + 136 + 200);
	assert_true(put(&r, 200, 4, &wake));
	ring_drain(&r, collect, &s);
	assert_int_equal(s.n, 5);
	for (unsigned i = 0; i < 5; i++)
		assert_int_equal(s.values[i], i);
	/* Half the ring or more is never taken. */
	assert_false(put(&r, SIZE / 2 + 8, 5, &wake));
}

static void test_wakes_once_per_half(void **state)
{
	(void)state;
	_Alignas(8) static uint8_t data[SIZE];
	struct ring r;
	ring_init(&r, data, SIZE);
	struct seen s = { .n = 0 };
	unsigned wakes = 0, n = 0;
	bool wake;
	for (int lap = 0; lap < 5; lap++) {
		/* Fill to the brim: one wake, as the ring passes half. */
		unsigned taken = 0;
		while (taken <= SIZE / 64 && put(&r, 64, n, &wake)) {
			wakes += wake;
			n++, taken++;
		}
		assert_int_equal(taken, SIZE / 64);
		assert_int_equal(wakes, lap + 1);
		ring_drain(&r, collect, &s);
	}
	assert_int_equal(s.n, n);
	/* A consumer that drains while the producer is not looking: by the
	 * time the ring is really past half full, the consumer was woken once
	 * (maybe sooner than that: the producer may count drained bytes as
	 * still there, never the reverse). */
	ring_init(&r, data, SIZE);
	wakes = 0;
	for (int i = 0; i < 4; i++) /* a quarter */
		assert_true(put(&r, 64, 0, &wake));
	s.n = 0;
	ring_drain(&r, collect, &s);
	for (int i = 0; i < 9; i++) { /* 576 bytes: past half */
		assert_true(put(&r, 64, 0, &wake));
		wakes += wake;
	}
	assert_int_equal(wakes, 1);
}

static void test_rewind_when_empty(void **state)
{
	(void)state;
	_Alignas(8) static uint8_t data[SIZE];
	struct ring r;
	ring_init(&r, data, SIZE);
	bool wake;
	struct seen s = { .n = 0 };
	for (uint64_t i = 0; i < 5; i++)
		assert_true(put(&r, 64, i, &wake));
	ring_rewind_if_empty(&r); /* records there: left alone */
	assert_int_equal(atomic_load(&r.tail), 320);
	ring_drain(&r, collect, &s);
	assert_int_equal(s.n, 5);
	ring_rewind_if_empty(&r);
	assert_int_equal(atomic_load(&r.head), 0);
	assert_int_equal(atomic_load(&r.tail), 0);
	/* The next record is at the first byte, and the whole ring is room. */
	assert_true(put(&r, 64, 7, &wake));
	assert_int_equal(((struct rec *)data)->value, 7);
	unsigned n = 1;
	while (n <= SIZE / 64 && put(&r, 64, n, &wake))
		n++;
	assert_int_equal(n, SIZE / 64);
	s.n = 0;
	ring_drain(&r, collect, &s);
	assert_int_equal(s.n, SIZE / 64);
	assert_int_equal(s.values[0], 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_full),
		cmocka_unit_test(test_wraps_with_padding),
		cmocka_unit_test(test_wakes_once_per_half),
		cmocka_unit_test(test_rewind_when_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
