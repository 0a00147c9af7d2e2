/* test_pystack.c - the writer's pure Python-frame functions
 * (capture/pystack.c): line numbers from location tables built by hand
 * (every entry form), the merge of Python runs into native stacks (runs
 * replace evaluation-loop frames, native frames kept, leftovers at the
 * root end, a stack without Python frames unchanged), and UTF-8 names from
 * CPython's three string kinds. Real tables from real interpreters are
 * checked against co_lines() by tests/e2e/python/run.sh.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "capture/python.h"

/* One entry's first byte: code, length in code units. */
#define ENTRY(code, units) (uint8_t)(0x80 | (code) << 3 | ((units) - 1))

static void line_forms(void **state)
{
	(void)state;
	const uint8_t table[] = {
		ENTRY(0, 2), 5,          /* units 0-1: short form, line 10 */
		ENTRY(11, 3), 1, 2,      /* units 2-4: one-line form, +1: 11 */
		ENTRY(13, 1), 2 << 1,    /* unit 5: no columns, +2: 13 */
		ENTRY(15, 2),            /* units 6-7: no location */
		ENTRY(14, 4), 3, 0, 1, 1, /* units 8-11: long form, -1 (svarint 3): 12 */
		ENTRY(13, 8), 0x40 | 4, 1, /* units 12-19: varint 4 + (1 << 6) = 68: +34: 46 */
	};
	size_t n = sizeof table;
	assert_int_equal(py_line(table, n, 10, 0), 10);
	assert_int_equal(py_line(table, n, 10, 1), 10);
	assert_int_equal(py_line(table, n, 10, 2), 11);
	assert_int_equal(py_line(table, n, 10, 4), 11);
	assert_int_equal(py_line(table, n, 10, 5), 13);
	assert_int_equal(py_line(table, n, 10, 6), 0);  /* no location: unknown */
	assert_int_equal(py_line(table, n, 10, 9), 12); /* the running line survived it */
	assert_int_equal(py_line(table, n, 10, 19), 46);
	assert_int_equal(py_line(table, n, 10, 20), 0); /* past the table */
	assert_int_equal(py_line(table, n, 10, PY_LASTI_START), 10);
	/* A table cut in the middle of a varint. */
	assert_int_equal(py_line(table, n - 1, 10, 12), 0);
	assert_int_equal(py_line(NULL, 0, 7, 3), 0);
}

#define EVAL 0x5000u
static bool is_eval(uint64_t ip)
{
	return ip == EVAL;
}

static void merge_runs(void **state)
{
	(void)state;
	/* Leaf first: a native leaf, an eval frame running f3 and f2 (entered
	 * with f2), a C callback frame, an eval frame running f1 and <module>,
	 * then main. */
	uint64_t p1 = py_rec(1, 4, false), p2 = py_rec(2, 6, true), p3 = py_rec(3, 8, false),
		 p4 = py_rec(4, 10, true);
	const uint64_t ips[] = { 0x100, EVAL, 0x200, EVAL, 0x300, p1, p2, p3, p4 };
	uint64_t out[16];
	uint32_t k = py_merge(ips, 9, is_eval, out, 16);
	const uint64_t want[] = { 0x100, p1, p2, 0x200, p3, p4, 0x300 };
	assert_int_equal(k, 7);
	assert_memory_equal(out, want, sizeof want);
}

static void merge_leftovers(void **state)
{
	(void)state;
	/* Native unwinding stopped after one eval frame: the other run goes
	 * at the root end. More eval frames than runs: the leaf-most is a
	 * call being entered or left, dropped; the run is its caller's. */
	uint64_t p1 = py_rec(1, 0, true), p2 = py_rec(2, 0, true);
	const uint64_t ips[] = { 0x100, EVAL, p1, p2 };
	uint64_t out[8];
	uint32_t k = py_merge(ips, 4, is_eval, out, 8);
	const uint64_t want[] = { 0x100, p1, p2 };
	assert_int_equal(k, 3);
	assert_memory_equal(out, want, sizeof want);

	const uint64_t ips2[] = { EVAL, 0x200, EVAL, 0x300, p1 };
	k = py_merge(ips2, 5, is_eval, out, 8);
	const uint64_t want2[] = { 0x200, p1, 0x300 };
	assert_int_equal(k, 3);
	assert_memory_equal(out, want2, sizeof want2);
	/* A run not ended (the walk stopped) still counts as one. */
	uint64_t q1 = py_rec(5, 0, false);
	const uint64_t ips4[] = { EVAL, EVAL, p1, q1 };
	k = py_merge(ips4, 4, is_eval, out, 8);
	const uint64_t want4[] = { p1, q1 };
	assert_int_equal(k, 2);
	assert_memory_equal(out, want4, sizeof want4);

	/* No Python frames: an eval frame is a call entered or left, dropped;
	 * the native frames as they were. */
	const uint64_t ips3[] = { 0x100, EVAL, 0x300 };
	k = py_merge(ips3, 3, is_eval, out, 8);
	const uint64_t want3[] = { 0x100, 0x300 };
	assert_int_equal(k, 2);
	assert_memory_equal(out, want3, sizeof want3);
	k = py_merge(ips3 + 2, 1, is_eval, out, 8);
	assert_int_equal(k, 1);
	assert_true(out[0] == 0x300);
	/* Room for two only. */
	k = py_merge(ips, 4, is_eval, out, 2);
	assert_int_equal(k, 2);
}

static void names_utf8(void **state)
{
	(void)state;
	char out[64];
	const uint8_t latin1[] = { 'c', 0xE9 };
	struct py_str s = { latin1, 2, 1 };
	size_t n = py_str_utf8(&s, out, sizeof out);
	assert_int_equal(n, 3);
	assert_memory_equal(out, "c\xC3\xA9", 3);

	const uint16_t ucs2[] = { 0x65E5, 0xD800 }; /* a lone surrogate */
	s = (struct py_str){ (const uint8_t *)ucs2, 2, 2 };
	n = py_str_utf8(&s, out, sizeof out);
	assert_int_equal(n, 6);
	assert_memory_equal(out, "\xE6\x97\xA5\xEF\xBF\xBD", 6);

	const uint32_t ucs4[] = { 0x1F600, 'x' };
	s = (struct py_str){ (const uint8_t *)ucs4, 2, 4 };
	n = py_str_utf8(&s, out, sizeof out);
	assert_int_equal(n, 5);
	assert_memory_equal(out, "\xF0\x9F\x98\x80x", 5);
	/* Cut at a whole character, never inside one. */
	n = py_str_utf8(&s, out, 3);
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(line_forms),
		cmocka_unit_test(merge_runs),
		cmocka_unit_test(merge_leftovers),
		cmocka_unit_test(names_utf8),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
