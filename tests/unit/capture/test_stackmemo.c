/* test_stackmemo.c - the writer's memo of native stacks
 * (capture/stackmemo.c): a stack put is found again, in full only; a
 * different stack in the same slot, its own prefix too, is a miss, then
 * takes the slot over;
 * stacks with a Python record, empty ones and ones deeper than the memo
 * holds are never kept; a clear forgets everything; stacks kept before the
 * arena grows are found after; a full arena starts the memo over.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "capture/stackmemo.h"
#include "formats/capture.h"

static void fill(uint64_t *ips, uint32_t n, uint64_t seed)
{
	for (uint32_t i = 0; i < n; i++)
		ips[i] = 0x400000 + seed * 0x1000 + i * 0x10;
}

static void test_put_then_get(void **state)
{
	(void)state;
	struct stack_memo m = { 0 };
	uint64_t ips[8];
	fill(ips, 8, 1);
	uint32_t slot;
	assert_int_equal(stack_memo_get(&m, ips, 8, &slot), 0);
	assert_true(slot < STACK_MEMO_SLOTS);
	stack_memo_put(&m, slot, ips, 8, 42);
	uint32_t again;
	assert_int_equal(stack_memo_get(&m, ips, 8, &again), 42);
	assert_int_equal(again, slot);
	/* Its prefix, or one frame changed, is another stack. */
	assert_int_equal(stack_memo_get(&m, ips, 7, &again), 0);
	ips[3]++;
	assert_int_equal(stack_memo_get(&m, ips, 8, &again), 0);
	stack_memo_free(&m);
}

static void test_same_slot_other_stack(void **state)
{
	(void)state;
	struct stack_memo m = { 0 };
	uint64_t a[5], b[5];
	fill(a, 5, 7);
	uint32_t slot_a, slot_b = STACK_MEMO_SLOTS;
	stack_memo_get(&m, a, 5, &slot_a);
	stack_memo_put(&m, slot_a, a, 5, 1);
	/* Some other stack shares the slot: 1024 slots, so one is soon found. */
	uint64_t seed = 8;
	for (; seed < 1000000; seed++) {
		fill(b, 5, seed);
		if (stack_memo_get(&m, b, 5, &slot_b) == 0 && slot_b == slot_a)
			break;
	}
	assert_int_equal(slot_b, slot_a);
	stack_memo_put(&m, slot_b, b, 5, 2);
	uint32_t slot;
	assert_int_equal(stack_memo_get(&m, b, 5, &slot), 2);
	assert_int_equal(stack_memo_get(&m, a, 5, &slot), 0); /* taken over */
	stack_memo_free(&m);
}

/* A stack and its own prefix landing in one slot: the prefix is not the
 * stack (a memo that compared only the frames both have would say it is). */
static void test_prefix_is_another_stack(void **state)
{
	(void)state;
	struct stack_memo m = { 0 };
	uint64_t ips[6];
	uint32_t whole = 0, prefix = STACK_MEMO_SLOTS;
	uint64_t seed = 0;
	for (; seed < 1000000; seed++) {
		fill(ips, 6, seed);
		stack_memo_get(&m, ips, 6, &whole);
		stack_memo_get(&m, ips, 5, &prefix);
		if (whole == prefix)
			break;
	}
	assert_int_equal(whole, prefix);
	stack_memo_put(&m, whole, ips, 6, 9);
	uint32_t slot;
	assert_int_equal(stack_memo_get(&m, ips, 6, &slot), 9);
	assert_int_equal(stack_memo_get(&m, ips, 5, &slot), 0);
	stack_memo_free(&m);
}

static void test_never_kept(void **state)
{
	(void)state;
	struct stack_memo m = { 0 };
	uint64_t ips[STACK_MEMO_MAX_IPS + 1];
	fill(ips, STACK_MEMO_MAX_IPS + 1, 3);
	uint32_t slot;
	/* Deeper than a slot holds. */
	assert_int_equal(stack_memo_get(&m, ips, STACK_MEMO_MAX_IPS + 1, &slot), 0);
	assert_int_equal(slot, STACK_MEMO_SLOTS);
	stack_memo_put(&m, slot, ips, STACK_MEMO_MAX_IPS + 1, 5);
	assert_int_equal(stack_memo_get(&m, ips, STACK_MEMO_MAX_IPS + 1, &slot), 0);
	/* As deep as a slot holds is kept. */
	stack_memo_get(&m, ips, STACK_MEMO_MAX_IPS, &slot);
	stack_memo_put(&m, slot, ips, STACK_MEMO_MAX_IPS, 6);
	assert_int_equal(stack_memo_get(&m, ips, STACK_MEMO_MAX_IPS, &slot), 6);
	/* A Python record anywhere. */
	ips[2] |= FK_CAP_IP_PYTHON;
	assert_int_equal(stack_memo_get(&m, ips, 4, &slot), 0);
	assert_int_equal(slot, STACK_MEMO_SLOTS);
	/* No frames. */
	assert_int_equal(stack_memo_get(&m, ips, 0, &slot), 0);
	assert_int_equal(slot, STACK_MEMO_SLOTS);
	stack_memo_free(&m);
}

static void test_clear_forgets(void **state)
{
	(void)state;
	struct stack_memo m = { 0 };
	uint64_t ips[64][6];
	uint32_t slot;
	for (uint64_t s = 0; s < 64; s++) {
		fill(ips[s], 6, s);
		stack_memo_get(&m, ips[s], 6, &slot);
		stack_memo_put(&m, slot, ips[s], 6, (uint32_t)s + 1);
	}
	unsigned found = 0;
	for (uint64_t s = 0; s < 64; s++) {
		uint32_t node = stack_memo_get(&m, ips[s], 6, &slot);
		assert_true(node == 0 || node == s + 1); /* never another's node */
		found += node != 0;
	}
	assert_true(found >= 56); /* a few may share a slot */
	stack_memo_clear(&m);
	for (uint64_t s = 0; s < 64; s++)
		assert_int_equal(stack_memo_get(&m, ips[s], 6, &slot), 0);
	stack_memo_free(&m);
}

/* Puts stacks seed .. seed+count-1 of n frames; how many of them are
 * found again, each with its own node. */
static unsigned put_and_find(struct stack_memo *m, uint64_t seed, unsigned count, uint32_t n)
{
	uint64_t ips[STACK_MEMO_MAX_IPS];
	uint32_t slot;
	for (unsigned s = 0; s < count; s++) {
		fill(ips, n, seed + s);
		stack_memo_get(m, ips, n, &slot);
		stack_memo_put(m, slot, ips, n, (uint32_t)(seed + s) + 1);
	}
	unsigned found = 0;
	for (unsigned s = 0; s < count; s++) {
		fill(ips, n, seed + s);
		uint32_t node = stack_memo_get(m, ips, n, &slot);
		assert_true(node == 0 || node == seed + s + 1); /* never another's node */
		found += node != 0;
	}
	return found;
}

static void test_arena_grows_then_starts_over(void **state)
{
	(void)state;
	struct stack_memo m = { 0 };
	/* 40 deep stacks: the arena grows (moves) under them, twice. */
	assert_true(put_and_find(&m, 0, 40, STACK_MEMO_MAX_IPS) >= 36);
	assert_true(m.cap > 40 * STACK_MEMO_MAX_IPS);
	/* Up to its limit: whatever still holds a slot is found. */
	unsigned room = STACK_MEMO_ARENA_MAX_IPS / STACK_MEMO_MAX_IPS - 40;
	assert_true(put_and_find(&m, 1000, room, STACK_MEMO_MAX_IPS) > 0);
	assert_int_equal(m.used, STACK_MEMO_ARENA_MAX_IPS);
	/* One more: the memo starts over, with it alone. */
	assert_int_equal(put_and_find(&m, 5000, 1, STACK_MEMO_MAX_IPS), 1);
	assert_int_equal(m.used, STACK_MEMO_MAX_IPS);
	assert_int_equal(m.cap, STACK_MEMO_ARENA_MAX_IPS);
	assert_int_equal(put_and_find(&m, 0, 1, STACK_MEMO_MAX_IPS), 1); /* put again: found */
	uint64_t ips[STACK_MEMO_MAX_IPS];
	uint32_t slot;
	fill(ips, STACK_MEMO_MAX_IPS, 1001);
	assert_int_equal(stack_memo_get(&m, ips, STACK_MEMO_MAX_IPS, &slot), 0); /* forgotten */
	stack_memo_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_then_get),
		cmocka_unit_test(test_same_slot_other_stack),
		cmocka_unit_test(test_prefix_is_another_stack),
		cmocka_unit_test(test_never_kept),
		cmocka_unit_test(test_clear_forgets),
		cmocka_unit_test(test_arena_grows_then_starts_over),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
