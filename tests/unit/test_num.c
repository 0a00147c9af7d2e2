/* test_num.c - formats/num.h: exact decimal values.
 *
 * Covers fk_u128_format and fk_u128_parse (every digit count, 2^128 - 1,
 * overflow, syntax), fk_num_parse (grammar, 64-bit integer limit for one
 * value, 18-decimal limit), fk_num_status_text, fk_num_add (mixed scales,
 * sums past 2^64, 128-bit overflow leaves the accumulator alone), fk_num_mul
 * (scales, products past 2^64 and past 128 bits before trailing zeros go,
 * overflow, scale limit), fk_num_cmp, fk_num_format (shortest exact text, up
 * to 39 digits) and fk_num_to_double (past 2^64 too).
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

#define U128_MAX_TEXT "340282366920938463463374607431768211455"

static void assert_u128_text(fk_u128 v, const char *want)
{
	char buf[FK_U128_TEXT_MAX];
	size_t len = fk_u128_format(v, buf);
	assert_string_equal(buf, want);
	assert_int_equal(len, strlen(want));
	fk_u128 back = 1;
	assert_true(fk_u128_parse(buf, len, &back));
	assert_true(back == v);
}

static void test_u128_format(void **state)
{
	(void)state;
	assert_u128_text(0, "0");
	assert_u128_text(7, "7");
	assert_u128_text(UINT64_MAX, "18446744073709551615");
	assert_u128_text((fk_u128)UINT64_MAX + 1, "18446744073709551616");
	assert_u128_text((fk_u128)UINT64_MAX * 3, "55340232221128654845");
	assert_u128_text(FK_U128_MAX, U128_MAX_TEXT);
	/* Every power of ten up to 10^38, and the number just below it. */
	char want[FK_U128_TEXT_MAX];
	fk_u128 p = 1;
	for (int digits = 1; digits <= 39; digits++, p *= 10) {
		memset(want, '0', (size_t)digits);
		want[0] = '1';
		want[digits] = '\0';
		assert_u128_text(p, want);
		if (digits > 1) {
			memset(want, '9', (size_t)digits - 1);
			want[digits - 1] = '\0';
			assert_u128_text(p - 1, want);
		}
	}
}

static void test_u128_parse(void **state)
{
	(void)state;
	fk_u128 v = 0;
	assert_true(fk_u128_parse("0", 1, &v) && v == 0);
	assert_true(fk_u128_parse("000123", 6, &v) && v == 123);
	assert_true(fk_u128_parse(U128_MAX_TEXT, strlen(U128_MAX_TEXT), &v) && v == FK_U128_MAX);
	assert_true(fk_u128_parse("0000" U128_MAX_TEXT, strlen(U128_MAX_TEXT) + 4, &v));
	assert_true(v == FK_U128_MAX);
	/* Only s[0..len) is read. */
	assert_true(fk_u128_parse("12345", 2, &v) && v == 12);
	/* Refused, and *out left alone. */
	v = 42;
	assert_false(fk_u128_parse("340282366920938463463374607431768211456", 39, &v));
	assert_false(fk_u128_parse("999999999999999999999999999999999999999", 39, &v));
	assert_false(fk_u128_parse("1000000000000000000000000000000000000000", 40, &v));
	assert_false(fk_u128_parse("", 0, &v));
	assert_false(fk_u128_parse("-1", 2, &v));
	assert_false(fk_u128_parse("+1", 2, &v));
	assert_false(fk_u128_parse("1.5", 3, &v));
	assert_false(fk_u128_parse("12a", 3, &v));
	assert_false(fk_u128_parse(" 1", 2, &v));
	assert_true(v == 42);
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

static void test_add_past_64_bits(void **state)
{
	(void)state;
	struct fk_num acc = num("18446744073709551615");
	assert_true(fk_num_add(&acc, num("1")));
	assert_text(acc, "18446744073709551616");
	acc = num("18446744073709551615");
	assert_true(fk_num_add(&acc, num("18446744073709551615")));
	assert_true(fk_num_add(&acc, num("18446744073709551615")));
	assert_text(acc, "55340232221128654845");
	/* With decimals, at either scale. */
	acc = num("18446744073709551615.5");
	assert_true(fk_num_add(&acc, num("0.5")));
	assert_text(acc, "18446744073709551616");
	acc = num("1");
	assert_true(fk_num_add(&acc, num("18446744073709551615.25")));
	assert_text(acc, "18446744073709551616.25");
}

static void test_add_overflow(void **state)
{
	(void)state;
	struct fk_num acc = { FK_U128_MAX - 1, 0 };
	assert_true(fk_num_add(&acc, num("1")));
	assert_text(acc, U128_MAX_TEXT);
	struct fk_num before = acc;
	assert_false(fk_num_add(&acc, num("1")));
	assert_true(acc.mant == before.mant && acc.scale == before.scale);
	assert_false(fk_num_add(&acc, num("18446744073709551615")));
	assert_true(acc.mant == before.mant && acc.scale == before.scale);
	assert_true(fk_num_add(&acc, num("0")));

	/* Decimals count in the 128 bits: a fraction cannot join the
	 * largest integer, nor can the integer be brought to its scale. */
	assert_false(fk_num_add(&acc, num("0.5")));
	assert_true(acc.mant == before.mant && acc.scale == before.scale);
	struct fk_num half = num("0.5");
	struct fk_num half_before = half;
	assert_false(fk_num_add(&half, acc));
	assert_true(half.mant == half_before.mant && half.scale == half_before.scale);

	/* The largest 18-decimal mantissa takes no more. */
	acc = (struct fk_num){ FK_U128_MAX, 18 };
	assert_text(acc, "340282366920938463463.374607431768211455");
	before = acc;
	assert_false(fk_num_add(&acc, num("0.000000000000000001")));
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

static void test_mul_past_64_bits(void **state)
{
	(void)state;
	struct fk_num out;
	assert_true(fk_num_mul(num("18446744073709551615"), num("2"), &out));
	assert_text(out, "36893488147419103230");
	assert_true(fk_num_mul(num("4294967296"), num("4294967296"), &out));
	assert_text(out, "18446744073709551616"); /* 2^64 */
	/* (2^64 - 1)^2 = 2^128 - 2^65 + 1: fits. */
	assert_true(fk_num_mul(num("18446744073709551615"), num("18446744073709551615"), &out));
	assert_text(out, "340282366920938463426481119284349108225");
	/* 2^127 * 2 = 2^128 does not; 2^127 * 1.5 does, though the product
	 * of the mantissas (2^127 * 15) passes 128 bits before / 10. */
	struct fk_num p127 = { (fk_u128)1 << 127, 0 };
	assert_false(fk_num_mul(p127, num("2"), &out));
	assert_true(fk_num_mul(p127, num("1.5"), &out));
	assert_text(out, "255211775190703847597530955573826158592");
	assert_false(fk_num_mul(p127, num("2.5"), &out));
	/* The product 2^127 * 5 passes 128 bits, but / 10 it is 2^126. */
	assert_true(fk_num_mul(p127, num("0.5"), &out));
	assert_text(out, "85070591730234615865843651857942052864");
	assert_int_equal(out.scale, 0);
	/* 2^128 - 1 times 0.2: exact with one decimal. */
	struct fk_num max = { FK_U128_MAX, 0 };
	assert_true(fk_num_mul(max, num("0.2"), &out));
	assert_text(out, "68056473384187692692674921486353642291");
	assert_true(fk_num_mul(max, num("1"), &out));
	assert_text(out, U128_MAX_TEXT);
	/* A decimal result whose mantissa passes 128 bits is refused. */
	assert_false(fk_num_mul(max, num("0.3"), &out)); /* 102084710076281539039012382229530463436.5 */
}

static void test_mul_refused(void **state)
{
	(void)state;
	struct fk_num out;
	struct fk_num max = { FK_U128_MAX, 0 };
	assert_false(fk_num_mul(max, num("2"), &out));
	assert_false(fk_num_mul(max, max, &out));
	assert_false(fk_num_mul(num("18446744073709551615.999999999999999999"),
				num("18446744073709551615.999999999999999999"), &out));
	assert_false(fk_num_mul(num("18446744073709551615.5"), num("18446744073709551615.5"), &out));
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
	/* The longest texts fit the documented buffer size. */
	struct fk_num max = num("18446744073709551615.999999999999999999");
	char buf[FK_NUM_TEXT_MAX];
	assert_true(fk_num_format(max, buf) < FK_NUM_TEXT_MAX);
	struct fk_num top = { FK_U128_MAX, 0 }, small = { FK_U128_MAX, 18 }, tiny = { 1, 18 };
	assert_text(top, U128_MAX_TEXT);
	assert_text(small, "340282366920938463463.374607431768211455");
	assert_text(tiny, "0.000000000000000001");
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
	/* Past 2^64, rounded to nearest, not wrapped. */
	struct fk_num twice = { (fk_u128)UINT64_MAX * 2, 0 }, top = { FK_U128_MAX, 0 };
	assert_true(fk_num_to_double(twice) == 36893488147419103232.0);
	assert_true(fk_num_to_double(top) == ldexp(1.0, 128));
	struct fk_num dec = { (fk_u128)UINT64_MAX * 20 + 5, 1 };
	assert_true(fk_num_to_double(dec) == 36893488147419103232.0);
	assert_true(fabs(fk_num_to_double(num("1234.5678")) - 1234.5678) < 1e-12);
	assert_true(fabs(fk_num_to_double(num("0.000000000000000001")) - 1e-18) < 1e-30);
	struct fk_num a = { 1000, 2 };
	assert_true(fk_num_to_double(a) == 10.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u128_format),
		cmocka_unit_test(test_u128_parse),
		cmocka_unit_test(test_parse_integers),
		cmocka_unit_test(test_parse_decimals),
		cmocka_unit_test(test_parse_uses_len_only),
		cmocka_unit_test(test_parse_rejects),
		cmocka_unit_test(test_parse_64bit_limit),
		cmocka_unit_test(test_parse_precision_limit),
		cmocka_unit_test(test_status_text),
		cmocka_unit_test(test_add_mixed_scales),
		cmocka_unit_test(test_add_past_64_bits),
		cmocka_unit_test(test_add_overflow),
		cmocka_unit_test(test_mul),
		cmocka_unit_test(test_mul_past_64_bits),
		cmocka_unit_test(test_mul_refused),
		cmocka_unit_test(test_cmp),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_round_trip),
		cmocka_unit_test(test_to_double),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
