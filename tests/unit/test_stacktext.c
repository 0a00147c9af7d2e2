/* test_stacktext.c - formats/stacktext.h: one line of folded stack text.
 *
 * Covers fk_stackline_parse on plain lines, frames with spaces, tabs, CRLF and
 * trailing blanks, skipped lines, differential lines (and the documented
 * "frame name ending in a number" ambiguity), empty stacks, and every kind of
 * bad line, whose reasons must be non-NULL and distinct.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "formats/stacktext.h"

static enum fk_stackline_kind parse_n(const char *line, size_t len, struct fk_stackline *out,
				      const char **why)
{
	*why = NULL;
	memset(out, 0, sizeof *out);
	return fk_stackline_parse(line, len, out, why);
}

static enum fk_stackline_kind parse(const char *line, struct fk_stackline *out, const char **why)
{
	return parse_n(line, strlen(line), out, why);
}

static void assert_stack(const struct fk_stackline *sl, const char *want)
{
	assert_int_equal(sl->stack_len, strlen(want));
	assert_memory_equal(sl->stack, want, sl->stack_len);
}

static void assert_num(struct fk_num n, const char *want)
{
	char buf[FK_NUM_TEXT_MAX];
	fk_num_format(n, buf);
	assert_string_equal(buf, want);
}

/* A valid single-value line: stack and value. */
static void check_one(const char *line, const char *stack, const char *value)
{
	struct fk_stackline sl;
	const char *why;
	assert_int_equal(parse(line, &sl, &why), FK_STACKLINE_STACK);
	assert_stack(&sl, stack);
	assert_int_equal(sl.nvalues, 1);
	assert_num(sl.value, value);
	assert_num(sl.before, value); /* before = value when not differential */
}

static void check_diff(const char *line, const char *stack, const char *before, const char *after)
{
	struct fk_stackline sl;
	const char *why;
	assert_int_equal(parse(line, &sl, &why), FK_STACKLINE_STACK);
	assert_stack(&sl, stack);
	assert_int_equal(sl.nvalues, 2);
	assert_num(sl.before, before);
	assert_num(sl.value, after);
}

/* An invalid line; returns its reason. */
static const char *check_invalid(const char *line, size_t len)
{
	struct fk_stackline sl;
	const char *why;
	assert_int_equal(parse_n(line, len, &sl, &why), FK_STACKLINE_INVALID);
	assert_non_null(why);
	assert_true(why[0] != '\0');
	return why;
}

static void test_plain(void **state)
{
	(void)state;
	check_one("a;b;c 42", "a;b;c", "42");
	check_one("main 1", "main", "1");
	check_one("t1.py(12):_<module>;nn.Module:_Linear_0;<built-in_function_linear> 15",
		  "t1.py(12):_<module>;nn.Module:_Linear_0;<built-in_function_linear>", "15");
	/* The stack points into the caller's line (no copy). */
	const char *line = "x;y 3";
	struct fk_stackline sl;
	const char *why;
	assert_int_equal(parse(line, &sl, &why), FK_STACKLINE_STACK);
	assert_ptr_equal(sl.stack, line);
}

static void test_decimal_value(void **state)
{
	(void)state;
	check_one("a;b 2.5", "a;b", "2.5");
	check_one("a;b 7.", "a;b", "7");
	check_one("a;b 0.125000", "a;b", "0.125");
	check_one("a;b 0", "a;b", "0");
}

static void test_spaces_inside_frames(void **state)
{
	(void)state;
	check_one("a b;c d 7", "a b;c d", "7");
	check_one("LazyCompile:~foo /app/x.js;bar baz 9", "LazyCompile:~foo /app/x.js;bar baz", "9");
	/* Only the one blank before the value separates: "a;b  1" has frame "b ". */
	check_one("a;b  1", "a;b ", "1");
}

static void test_tabs(void **state)
{
	(void)state;
	check_one("a;b\t3", "a;b", "3");
	check_one("a b;c\t3", "a b;c", "3");
	check_one("a;b \t3", "a;b ", "3");
	check_one("a;b 3\t", "a;b", "3");
}

static void test_crlf_and_trailing_blanks(void **state)
{
	(void)state;
	check_one("a;b 5\r", "a;b", "5");
	check_one("a;b 5  \t ", "a;b", "5");
	check_one("a;b 5 \r", "a;b", "5");
	check_one("a;b 5\v\f", "a;b", "5");
	check_diff("a;b 2 17\r", "a;b", "2", "17");
}

static void test_len_is_respected(void **state)
{
	(void)state;
	/* Only line[0..len) is the line: "a;b 12345" cut after "a;b 12". */
	struct fk_stackline sl;
	const char *why;
	assert_int_equal(parse_n("a;b 12345", 6, &sl, &why), FK_STACKLINE_STACK);
	assert_stack(&sl, "a;b");
	assert_num(sl.value, "12");
	/* The line's own NUL would be in range here: it is a bad line. */
	assert_int_equal(parse_n("a;b 1\0 2", 8, &sl, &why), FK_STACKLINE_INVALID);
}

static void test_skip(void **state)
{
	(void)state;
	const char *skipped[] = { "", " ", "   \t ", "\r", " \r", "# comment", "#a;b 5", "#" };
	for (size_t i = 0; i < sizeof skipped / sizeof *skipped; i++) {
		struct fk_stackline sl;
		const char *why;
		assert_int_equal(parse(skipped[i], &sl, &why), FK_STACKLINE_SKIP);
	}
	/* A '#' after the start is part of a frame, not a comment. */
	check_one("a#b 5", "a#b", "5");
}

static void test_differential(void **state)
{
	(void)state;
	check_diff("a;b 2 17", "a;b", "2", "17");
	check_diff("a;b\t2\t17", "a;b", "2", "17");
	check_diff("a;b 2.5 3.25", "a;b", "2.5", "3.25");
	check_diff("a;b 0 5", "a;b", "0", "5");
	check_diff("a;b 5. 3", "a;b", "5", "3");
	check_diff("a b;c d 1 2", "a b;c d", "1", "2");
	/* An empty stack with two values. */
	check_diff(" 2 3", "", "2", "3");
	/* Frame names ending in a number are read as differential, the way
	 * flamegraph.pl reads them (documented in formats/STACKTEXT.md). */
	check_diff("frame 5 10", "frame", "5", "10");
	check_diff("a;worker 3 7", "a;worker", "3", "7");
}

static void test_not_differential(void **state)
{
	(void)state;
	/* The token before the value is not a number: it stays in the stack. */
	check_one("a;b 1-2 3", "a;b 1-2", "3");
	check_one("a;b -4 3", "a;b -4", "3"); /* "-4" is no number to flamegraph.pl */
	check_one("a;b .5 3", "a;b .5", "3");
	check_one("a;b 1.2.3 3", "a;b 1.2.3", "3");
	check_one("a;b x5 3", "a;b x5", "3");
	check_one("a;b5 3", "a;b5", "3");
	check_one("a;b 0x10 3", "a;b 0x10", "3");
}

static void test_empty_stack(void **state)
{
	(void)state;
	check_one(" 5", "", "5");
	check_one("\t5", "", "5");
}

static void test_invalid_lines(void **state)
{
	(void)state;
	const char *no_stack = check_invalid("5", 1);
	const char *no_value = check_invalid("a;b", 3);
	assert_string_equal(check_invalid("a;b foo", 7), no_value);
	assert_string_equal(check_invalid("a;b x5", 6), no_value);
	const char *negative = check_invalid("a;b -4", 6);
	const char *syntax = check_invalid("a;b 1e3", 7);
	assert_string_equal(check_invalid("a;b .5", 6), syntax);
	assert_string_equal(check_invalid("a;b 1.2.3", 9), syntax);
	assert_string_equal(check_invalid("a;b 5x", 6), syntax);
	const char *overflow = check_invalid("a;b 18446744073709551616", 24);
	const char *precision = check_invalid("a;b 0.1234567890123456789", 25);
	const char *nul = check_invalid("a\0b 5", 5);
	assert_string_equal(check_invalid("a;b 5\0", 6), nul);

	/* Each kind of failure has its own reason. */
	const char *whys[] = { no_stack, no_value, negative, syntax, overflow, precision, nul };
	size_t n = sizeof whys / sizeof *whys;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(whys[i], whys[j]);
}

static void test_value_limits(void **state)
{
	(void)state;
	check_one("a;b 18446744073709551615", "a;b", "18446744073709551615");
	check_one("a;b 0.123456789012345678", "a;b", "0.123456789012345678");
	/* A first value that cannot be a value makes the line bad, too. */
	const char *overflow = check_invalid("a;b 18446744073709551616", 24);
	assert_string_equal(check_invalid("a;b 18446744073709551616 5", 26), overflow);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_decimal_value),
		cmocka_unit_test(test_spaces_inside_frames),
		cmocka_unit_test(test_tabs),
		cmocka_unit_test(test_crlf_and_trailing_blanks),
		cmocka_unit_test(test_len_is_respected),
		cmocka_unit_test(test_skip),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_not_differential),
		cmocka_unit_test(test_empty_stack),
		cmocka_unit_test(test_invalid_lines),
		cmocka_unit_test(test_value_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
