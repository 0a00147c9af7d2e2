/* test_hashindex.c - the interning tables' index (analysis/core/hashindex):
 * a rebuild files every entry under its hash, grows at least twice over,
 * and sizes a dropped index for the entries it has; probes offer only ids
 * whose high hash bits match, in probe order, and end at the empty slot
 * where a new entry goes; an undone put leaves the probes as they were;
 * a refill keeps only the first entries, in the same slots.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/core/hashindex.h"

struct entry {
	const char *name; /* other fields before the hash, as the tables have */
	uint64_t hash;
};

/* The ids the index offers for h, in order; the slot it ends at. */
static size_t candidates(const struct fk_hashindex *x, uint64_t h, uint32_t *ids, size_t max,
			 size_t *end)
{
	size_t n = 0, at = fk_hashindex_home(x, h);
	for (uint32_t id; (id = fk_hashindex_next(x, h, &at)) != FK_HASHINDEX_END && n < max;)
		ids[n++] = id;
	*end = at;
	return n;
}

static void test_rebuild_files_every_entry(void **state)
{
	(void)state;
	struct entry e[200];
	for (uint32_t i = 0; i < 200; i++) /* distinct high bits; homes crowd */
		e[i] = (struct entry){ "x", (uint64_t)(i + 1) << 32 | (i % 7) };
	struct fk_hashindex x = { 0 };
	assert_true(fk_hashindex_rebuild(&x, e, 200, sizeof *e, offsetof(struct entry, hash)));
	assert_int_equal(x.mask + 1, 512); /* 64 doubled until 201 entries are under half */
	assert_false(fk_hashindex_crowded(&x, 200));
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t ids[4];
		size_t end;
		assert_int_equal(candidates(&x, e[i].hash, ids, 4, &end), 1);
		assert_int_equal(ids[0], i);
	}
	size_t before = x.mask + 1;
	assert_true(fk_hashindex_rebuild(&x, e, 200, sizeof *e, offsetof(struct entry, hash)));
	assert_int_equal(x.mask + 1, 2 * before); /* a rebuild grows */
	assert_int_equal(fk_hashindex_memory(&x), 2 * before * sizeof(uint64_t));
	fk_hashindex_free(&x);
	assert_null(x.slots);
	assert_int_equal(fk_hashindex_memory(&x), 0);
}

static void test_probe_offers_matching_high_bits_and_ends_empty(void **state)
{
	(void)state;
	/* Three entries with one home; two share the high bits of h. */
	const uint64_t h = 0xABCD000000000005ull;
	struct entry e[3] = { { "a", h }, { "b", 0x1111000000000005ull }, { "c", h | 64 } };
	struct fk_hashindex x = { 0 };
	assert_true(fk_hashindex_rebuild(&x, e, 3, sizeof *e, offsetof(struct entry, hash)));
	uint32_t ids[4];
	size_t end;
	assert_int_equal(candidates(&x, h, ids, 4, &end), 2);
	assert_int_equal(ids[0], 0);
	assert_int_equal(ids[1], 2); /* "b" passed over: other high bits */
	assert_int_equal(end, 8);    /* home 5, then 6, 7: the empty slot after them */
	assert_int_equal(fk_hashindex_guess(&x, h), 0);
	assert_int_equal(fk_hashindex_guess(&x, 0x2222000000000005ull), FK_HASHINDEX_END);
	/* Home 6 holds "b", with other high bits; "c" after it has h's. */
	assert_int_equal(fk_hashindex_guess(&x, h + 1), 2);
	assert_int_equal(fk_hashindex_guess(&x, 0x2222000000000006ull), FK_HASHINDEX_END);

	/* A put at the end of the probe is offered next; undone, it is not. */
	fk_hashindex_put(&x, end, h, 3);
	assert_int_equal(candidates(&x, h, ids, 4, &end), 3);
	assert_int_equal(ids[2], 3);
	assert_int_equal(end, 9);
	fk_hashindex_unput(&x, 8);
	assert_int_equal(candidates(&x, h, ids, 4, &end), 2);
	assert_int_equal(end, 8);
	fk_hashindex_free(&x);
}

static void test_crowded_past_half(void **state)
{
	(void)state;
	struct fk_hashindex x = { 0 };
	assert_true(fk_hashindex_rebuild(&x, NULL, 0, sizeof(struct entry), offsetof(struct entry, hash)));
	assert_int_equal(x.mask + 1, 64);
	assert_false(fk_hashindex_crowded(&x, 32));
	assert_true(fk_hashindex_crowded(&x, 33));
	fk_hashindex_free(&x);
}

/* A refill keeps the slots and files only the entries kept: each is found
 * again, the dropped ones are not, even where they had pushed a kept one
 * along its probe. */
static void test_refill_keeps_the_first_entries(void **state)
{
	(void)state;
	struct entry e[100];
	for (uint32_t i = 0; i < 100; i++) /* homes crowd: probes pass dropped entries */
		e[i] = (struct entry){ "x", (uint64_t)(i + 1) << 32 | (i % 5) };
	struct fk_hashindex x = { 0 };
	assert_true(fk_hashindex_rebuild(&x, e, 100, sizeof *e, offsetof(struct entry, hash)));
	size_t slots = x.mask + 1;
	uint64_t *kept = x.slots;
	fk_hashindex_refill(&x, e, 40, sizeof *e, offsetof(struct entry, hash));
	assert_ptr_equal(x.slots, kept);
	assert_int_equal(x.mask + 1, slots);
	for (uint32_t i = 0; i < 100; i++) {
		uint32_t ids[4];
		size_t end;
		size_t n = candidates(&x, e[i].hash, ids, 4, &end);
		assert_int_equal(n, i < 40 ? 1 : 0);
		if (n)
			assert_int_equal(ids[0], i);
	}
	fk_hashindex_free(&x);
	fk_hashindex_refill(&x, e, 0, sizeof *e, offsetof(struct entry, hash)); /* none: nothing */
	assert_null(x.slots);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rebuild_files_every_entry),
		cmocka_unit_test(test_probe_offers_matching_high_bits_and_ends_empty),
		cmocka_unit_test(test_crowded_past_half),
		cmocka_unit_test(test_refill_keeps_the_first_entries),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
