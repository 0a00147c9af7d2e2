/* test_perfsplit.c - formats/perfscript.h's pieces for reading a perf
 * script in parts: fk_perf_split (parts start right after a blank line,
 * never empty, fewer when blank lines are few, one when there is none) and
 * fk_perf_first_event (the first sample header's event, past comments,
 * frame lines and headers without one; none at all).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/perfscript.h"

static const char sample[] = "a 1/1 1.0: 1 cycles: \n\t1 f (m)\n\n";

/* Every start after the first follows "\n\n", starts rise, the last is n. */
static void assert_split_ok(const char *p, size_t n, const size_t *starts, size_t count)
{
	assert_int_equal(starts[0], 0);
	for (size_t i = 1; i < count; i++) {
		assert_true(starts[i] > starts[i - 1]);
		assert_true(starts[i] >= 2 && starts[i] < n);
		assert_memory_equal(p + starts[i] - 2, "\n\n", 2);
	}
	assert_int_equal(starts[count], n);
}

static void test_split_many_samples(void **state)
{
	(void)state;
	size_t one = strlen(sample), n = one * 100;
	char *p = malloc(n);
	assert_non_null(p);
	for (size_t i = 0; i < 100; i++)
		memcpy(p + i * one, sample, one);
	size_t starts[9];
	for (unsigned parts = 1; parts <= 8; parts++) {
		size_t count = fk_perf_split(p, n, parts, starts);
		assert_int_equal(count, parts);
		assert_split_ok(p, n, starts, count);
	}
	free(p);
}

static void test_split_few_blank_lines(void **state)
{
	(void)state;
	size_t starts[9];
	/* no blank line: one part */
	const char *none = "a 1/1 1.0: 1 cycles: \n\t1 f (m)\n\t2 g (m)\n";
	assert_int_equal(fk_perf_split(none, strlen(none), 8, starts), 1);
	assert_int_equal(starts[1], strlen(none));
	/* one blank line early: every later target finds none */
	char two[256];
	snprintf(two, sizeof two, "%s%s", sample, "b 2/2 2.0: 1 cycles: \n\t1 f (m)\n\t1 f (m)\n\t1 f (m)\n");
	size_t count = fk_perf_split(two, strlen(two), 4, starts);
	assert_int_equal(count, 2);
	assert_int_equal(starts[1], strlen(sample));
	assert_split_ok(two, strlen(two), starts, count);
	/* a blank line that ends the text starts no (empty) part */
	assert_int_equal(fk_perf_split(sample, strlen(sample), 2, starts), 1);
	/* blank lines at the very start */
	const char *lead = "\n\n\n\nx 1/1 1.0: 1 cycles: \n\t1 f (m)\n";
	count = fk_perf_split(lead, strlen(lead), 3, starts);
	assert_split_ok(lead, strlen(lead), starts, count);
}

static void test_first_event(void **state)
{
	(void)state;
	char *ev = NULL;
	const char *text = "# comment: 1 cycles: \n"
			   "\t1 notaheader 2/2 1.0: 1 branches: \n"
			   "noevent 1/1 1.0\n"
			   "app 1/1 1.0: 250 cpu-clock:ppp: \n"
			   "app 1/1 1.0: 250 cycles: \n";
	assert_true(fk_perf_first_event(text, strlen(text), &ev));
	assert_non_null(ev);
	assert_string_equal(ev, "cpu-clock:ppp");
	free(ev);
	const char *no = "# only comments\n\t1 f (m)\n\n";
	assert_true(fk_perf_first_event(no, strlen(no), &ev));
	assert_null(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_many_samples),
		cmocka_unit_test(test_split_few_blank_lines),
		cmocka_unit_test(test_first_event),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
