/* test_num.c - formats/num.h: exact decimal values.
 *
 * Covers fk_num_parse (grammar, 64-bit integer limit, 18-decimal limit),
 * fk_num_status_text, fk_num_add (mixed scales, overflow leaves the
 * accumulator alone), fk_num_mul (scales, overflow, scale limit), fk_num_cmp,
 * fk_num_format (shortest exact text) and fk_num_to_double.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "formats/num.h"

/* Parses a NUL-terminated string that must be valid. */
static struct fk_num num(const char *s)
{
	struct fk_num n = { 0, 0 };
	assert_int_equal(fk_num_parse(s, strlen(s), &n), FK_NUM_OK);
	return n;
}

static enum fk_num_status parse_st(const char *s)
{
	struct fk_num n = { 0, 0 };
	return fk_num_parse(s, strlen(s), &n);
}

static void assert_text(struct fk_num n, const char *want)
{
	char buf[FK_NUM_TEXT_MAX];
	size_t len = fk_num_format(n, buf);
	assert_string_equal(buf, want);
	assert_int_equal(len, strlen(want));
}

static void assert_mant(struct fk_num n, uint64_t mant, unsigned scale)
{
	assert_true(n.mant == mant);
	assert_int_equal(n.scale, scale);
}

static void test_parse_integers(void **state)
{
	(void)state;
	assert_mant(num("0"), 0, 0);
	assert_mant(num("42"), 42, 0);
	assert_mant(num("007"), 7, 0);
	assert_mant(num("1234567890"), 1234567890, 0);
}

static void test_parse_decimals(void **state)
{
	(void)state;
	assert_mant(num("2.5"), 25, 1);
	assert_mant(num("7."), 7, 0);          /* "7." is allowed: [0-9]+(.[0-9]*)? */
	assert_mant(num("1.500"), 15, 1);      /* trailing zeros carry no value */
	assert_mant(num("0.000"), 0, 0);
	assert_mant(num("3.14159"), 314159, 5);
	assert_mant(num("0.05"), 5, 2);
	assert_mant(num("10.0"), 10, 0);
}

static void test_parse_uses_len_only(void **state)
{
	(void)state;
	struct fk_num n;
	/* Only s[0..len) is read: the rest of the buffer is not part of it. */
	assert_int_equal(fk_num_parse("12345", 2, &n), FK_NUM_OK);
	assert_mant(n, 12, 0);
	assert_int_equal(fk_num_parse("2.5x", 3, &n), FK_NUM_OK);
	assert_mant(n, 25, 1);
	assert_int_equal(fk_num_parse("1x", 2, &n), FK_NUM_SYNTAX);
	/* An empty string is not a number. */
	assert_int_equal(fk_num_parse("", 0, &n), FK_NUM_SYNTAX);
}

static void test_parse_rejects(void **state)
{
	(void)state;
	assert_int_equal(parse_st(".5"), FK_NUM_SYNTAX);
	assert_int_equal(parse_st("-4"), FK_NUM_NEGATIVE);
	assert_int_equal(parse_st("-0.5"), FK_NUM_NEGATIVE);
	assert_int_equal(parse_st("1e3"), FK_NUM_SYNTAX);
	assert_int_equal(parse_st("1E3"), FK_NUM_SYNTAX);
	assert_int_equal(parse_st("+1"), FK_NUM_SYNTAX);
	assert_int_equal(parse_st(" 1"), FK_NUM_SYNTAX);
	assert_int_equal(parse_st("1 "), FK_NUM_SYNTAX);
	assert_int_equal(parse_st("1.2.3"), FK_NUM_SYNTAX);
	assert_int_equal(parse_st("0x10"), FK_NUM_SYNTAX);
	assert_int_equal(parse_st("1,5"), FK_NUM_SYNTAX);
	assert_int_equal(parse_st("."), FK_NUM_SYNTAX);
	assert_int_equal(parse_st("inf"), FK_NUM_SYNTAX);
	assert_int_equal(parse_st("nan"), FK_NUM_SYNTAX);
}

static void test_parse_64bit_limit(void **state)
{
	(void)state;
	struct fk_num n = num("18446744073709551615");
	assert_true(n.mant == UINT64_MAX);
	assert_int_equal(n.scale, 0);
	assert_int_equal(parse_st("18446744073709551616"), FK_NUM_OVERFLOW);
	assert_int_equal(parse_st("99999999999999999999999999999999999999999"), FK_NUM_OVERFLOW);
	assert_int_equal(parse_st("18446744073709551616.5"), FK_NUM_OVERFLOW);
	/* The limit is on the integer part: 18 decimals more still fit. */
	n = num("18446744073709551615.999999999999999999");
	assert_int_equal(n.scale, 18);
	assert_text(n, "18446744073709551615.999999999999999999");
	/* Leading zeros do not count towards the limit. */
	n = num("0000000000000000000000018446744073709551615");
	assert_true(n.mant == UINT64_MAX);
}

static void test_parse_precision_limit(void **state)
{
	(void)state;
	struct fk_num n = num("0.123456789012345678"); /* 18 decimals */
	assert_int_equal(n.scale, 18);
	assert_int_equal(parse_st("0.1234567890123456789"), FK_NUM_PRECISION); /* 19 */
	assert_int_equal(parse_st("1.00000000000000000001"), FK_NUM_PRECISION);
	/* Trailing zeros are dropped before the limit is checked. */
	n = num("1.1234567890123456780000");
	assert_int_equal(n.scale, 18);
	/* Too many decimals followed by garbage is a syntax error first. */
	assert_int_equal(parse_st("0.1234567890123456789x"), FK_NUM_SYNTAX);
}

static void test_status_text(void **state)
{
	(void)state;
	enum fk_num_status all[] = { FK_NUM_OK, FK_NUM_SYNTAX, FK_NUM_NEGATIVE,
				     FK_NUM_OVERFLOW, FK_NUM_PRECISION };
	size_t n = sizeof all / sizeof *all;
	for (size_t i = 0; i < n; i++) {
		const char *a = fk_num_status_text(all[i]);
		assert_non_null(a);
		assert_true(a[0] != '\0');
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(a, fk_num_status_text(all[j]));
	}
}

static void test_add_mixed_scales(void **state)
{
	(void)state;
	struct fk_num acc = num("2.5");
	assert_true(fk_num_add(&acc, num("1.25")));
	assert_text(acc, "3.75");
	assert_int_equal(fk_num_cmp(acc, num("3.75")), 0);

	acc = num("1");
	assert_true(fk_num_add(&acc, num("0.001")));
	assert_text(acc, "1.001");

	acc = num("0.001");
	assert_true(fk_num_add(&acc, num("1")));
	assert_text(acc, "1.001");

	/* Ten times 0.1 is exactly 1 (a double sum would not be). */
	acc = num("0");
	for (int i = 0; i < 10; i++)
		assert_true(fk_num_add(&acc, num("0.1")));
	assert_int_equal(fk_num_cmp(acc, num("1")), 0);
	assert_text(acc, "1");

	/* 18-decimal parts add exactly. */
	acc = num("0.000000000000000001");
	assert_true(fk_num_add(&acc, num("0.999999999999999999")));
	assert_text(acc, "1");
}

static void test_add_overflow(void **state)
{
	(void)state;
	struct fk_num acc = num("18446744073709551615");
	struct fk_num before = acc;
	assert_false(fk_num_add(&acc, num("1")));
	assert_true(acc.mant == before.mant && acc.scale == before.scale);

	/* Fractions that stay below the next integer still fit. */
	assert_true(fk_num_add(&acc, num("0.5")));
	assert_text(acc, "18446744073709551615.5");
	before = acc;
	assert_false(fk_num_add(&acc, num("0.5")));
	assert_true(acc.mant == before.mant && acc.scale == before.scale);
	assert_false(fk_num_add(&acc, num("0.500000000000000001")));
	assert_true(acc.mant == before.mant && acc.scale == before.scale);
	assert_true(fk_num_add(&acc, num("0.499999999999999999")));
	assert_text(acc, "18446744073709551615.999999999999999999");

	/* Overflow when the accumulator has the finer scale. */
	acc = num("18446744073709551615.25");
	before = acc;
	assert_false(fk_num_add(&acc, num("1")));
	assert_true(acc.mant == before.mant && acc.scale == before.scale);
}

static void test_mul(void **state)
{
	(void)state;
	struct fk_num out;
	assert_true(fk_num_mul(num("1234"), num("0.001"), &out));
	assert_text(out, "1.234");
	assert_true(fk_num_mul(num("2.5"), num("4"), &out));
	assert_text(out, "10");
	assert_int_equal(fk_num_cmp(out, num("10")), 0);
	assert_true(fk_num_mul(num("0.5"), num("0.2"), &out));
	assert_text(out, "0.1");
	assert_true(fk_num_mul(num("1.5"), num("1.5"), &out));
	assert_text(out, "2.25");
	assert_true(fk_num_mul(num("0"), num("18446744073709551615"), &out));
	assert_text(out, "0");
	assert_true(fk_num_mul(num("18446744073709551615"), num("1"), &out));
	assert_text(out, "18446744073709551615");
	/* 4294967295 * 4294967297 = 2^64 - 1: the largest product that fits. */
	assert_true(fk_num_mul(num("4294967295"), num("4294967297"), &out));
	assert_true(out.mant == UINT64_MAX);
	/* 9 + 9 decimals = 18: still exact. */
	assert_true(fk_num_mul(num("0.000000001"), num("0.000000001"), &out));
	assert_text(out, "0.000000000000000001");
	/* 1 + 18 decimals, but the product ends in 0: 0.5 * 2e-18 = 1e-18. */
	assert_true(fk_num_mul(num("0.5"), num("0.000000000000000002"), &out));
	assert_text(out, "0.000000000000000001");
}

static void test_mul_refused(void **state)
{
	(void)state;
	struct fk_num out;
	assert_false(fk_num_mul(num("18446744073709551615"), num("2"), &out));
	assert_false(fk_num_mul(num("4294967296"), num("4294967296"), &out)); /* 2^64 */
	assert_false(fk_num_mul(num("9223372036854775808"), num("2"), &out));
	assert_false(fk_num_mul(num("18446744073709551615.5"), num("1.000000000000000001"), &out));
	assert_false(fk_num_mul(num("18446744073709551615.999999999999999999"),
				num("18446744073709551615.999999999999999999"), &out));
	/* 19 decimals would be needed: refused rather than rounded. */
	assert_false(fk_num_mul(num("0.000000001"), num("0.0000000001"), &out));
	assert_false(fk_num_mul(num("0.3"), num("0.000000000000000003"), &out));
}

static void test_cmp(void **state)
{
	(void)state;
	assert_int_equal(fk_num_cmp(num("1"), num("1")), 0);
	assert_true(fk_num_cmp(num("1"), num("2")) < 0);
	assert_true(fk_num_cmp(num("2"), num("1")) > 0);
	assert_true(fk_num_cmp(num("10"), num("9.99")) > 0);
	assert_true(fk_num_cmp(num("9.99"), num("10")) < 0);
	assert_true(fk_num_cmp(num("1"), num("1.000000000000000001")) < 0);
	assert_true(fk_num_cmp(num("0.2"), num("0.19")) > 0);
	assert_true(fk_num_cmp(num("18446744073709551615"), num("18446744073709551615.1")) < 0);
	assert_true(fk_num_cmp(num("18446744073709551615.1"), num("18446744073709551614.9")) > 0);
	/* Equal values with different scales (not normalized) compare equal. */
	struct fk_num a = { 250, 2 }, b = { 25, 1 }, c = { 2500000, 6 };
	assert_int_equal(fk_num_cmp(a, b), 0);
	assert_int_equal(fk_num_cmp(c, b), 0);
	struct fk_num big = { (unsigned __int128)UINT64_MAX * 1000000000000000000ull, 18 };
	assert_int_equal(fk_num_cmp(big, num("18446744073709551615")), 0);
}

static void test_format(void **state)
{
	(void)state;
	assert_text(num("0"), "0");
	assert_text(num("7"), "7");
	assert_text(num("3.75"), "3.75");
	assert_text(num("0.05"), "0.05");
	assert_text(num("100"), "100");
	assert_text(num("0.000000000000000001"), "0.000000000000000001");
	assert_text(num("18446744073709551615"), "18446744073709551615");
	/* Not normalized: trailing fractional zeros are still dropped. */
	struct fk_num a = { 1000, 2 }, b = { 50, 3 }, z = { 0, 5 }, c = { 1010, 3 };
	assert_text(a, "10");
	assert_text(b, "0.05");
	assert_text(z, "0");
	assert_text(c, "1.01");
	/* The longest text fits the documented buffer size. */
	struct fk_num max = num("18446744073709551615.999999999999999999");
	char buf[FK_NUM_TEXT_MAX];
	assert_true(fk_num_format(max, buf) < FK_NUM_TEXT_MAX);
}

static void test_format_round_trip(void **state)
{
	(void)state;
	const char *texts[] = { "0", "1", "2.5", "0.1", "123.456", "18446744073709551615",
				"0.123456789012345678", "42.000000000000000001" };
	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		char buf[FK_NUM_TEXT_MAX];
		struct fk_num n = num(texts[i]);
		size_t len = fk_num_format(n, buf);
		struct fk_num back;
		assert_int_equal(fk_num_parse(buf, len, &back), FK_NUM_OK);
		assert_int_equal(fk_num_cmp(n, back), 0);
		assert_string_equal(buf, texts[i]);
	}
}

static void test_to_double(void **state)
{
	(void)state;
	assert_true(fk_num_to_double(num("0")) == 0.0);
	assert_true(fk_num_to_double(num("2.5")) == 2.5);
	assert_true(fk_num_to_double(num("0.1")) == 0.1);
	assert_true(fk_num_to_double(num("1234")) == 1234.0);
	assert_true(fk_num_to_double(num("18446744073709551615")) == 18446744073709551615.0);
	assert_true(fabs(fk_num_to_double(num("1234.5678")) - 1234.5678) < 1e-12);
	assert_true(fabs(fk_num_to_double(num("0.000000000000000001")) - 1e-18) < 1e-30);
	struct fk_num a = { 1000, 2 };
	assert_true(fk_num_to_double(a) == 10.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_integers),
		cmocka_unit_test(test_parse_decimals),
		cmocka_unit_test(test_parse_uses_len_only),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_parse_64bit_limit),
		cmocka_unit_test(test_parse_precision_limit),
		cmocka_unit_test(test_status_text),
		cmocka_unit_test(test_add_mixed_scales),
		cmocka_unit_test(test_add_overflow),
		cmocka_unit_test(test_mul),
		cmocka_unit_test(test_mul_refused),
		cmocka_unit_test(test_cmp),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_to_double),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
