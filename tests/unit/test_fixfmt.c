/* test_fixfmt.c - render/fixfmt.h against snprintf itself.
 *
 * Every case formats one value both ways and wants the same bytes: several
 * million random values over the ranges an SVG uses and beyond, bit
 * patterns of every exponent, and adversarial ones: exact ties (x.x5 and
 * x.xx5 that are binary fractions, like 0.125), the doubles on either side
 * of every decimal tie, multiples of 0.1 and 0.01 as computed, the edge of
 * the fast path (1e12 / 10^N), 2^53, negative zero, values rounding to
 * "-0.0", huge values, subnormals, NaN and infinities; short buffers (the
 * truncation snprintf does). fk_fixed_scaled's integer must be the text's
 * digits, and r / 10^N the double strtod reads back from the text.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "render/fixfmt.h"

/* xorshift64*: a fixed sequence, so a failure reproduces. */
static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1Du;
}

/* Uniform in [0, 1). */
static double unit(void)
{
	return (double)(rnd() >> 11) * 0x1p-53;
}

static unsigned long fast_hits; /* how many values took the fast path */

/* One value through every function, each against snprintf. */
static void check(double v)
{
	char want[512], got[512];
	for (unsigned d = 0; d <= 3; d++) {
		snprintf(want, sizeof want, "%.*f", (int)d, v);
		size_t len = fk_fixed(v, d, got, sizeof got);
		if (strcmp(want, got) != 0 || len != strlen(want))
			fail_msg("%%.%uf of %a: want \"%s\", got \"%s\"", d, v, want, got);
		uint64_t r;
		if (fk_fixed_scaled(v, d, &r)) {
			fast_hits++;
			char text[FK_FIXED_TEXT_MAX];
			fk_fixed_text(signbit(v) != 0, r, d, text);
			assert_string_equal(text, want);
			static const double p10[] = { 1, 10, 100, 1000 };
			double back = copysign((double)r / p10[d], v);
			double read = strtod(want, NULL);
			if (memcmp(&back, &read, sizeof back) != 0)
				fail_msg("%%.%uf of %a: r / 10^N is %a, strtod %a", d, v, back, read);
		}
	}
	snprintf(want, sizeof want, "%.15g", v);
	size_t len = fk_g15(v, got, sizeof got);
	if (strcmp(want, got) != 0 || len != strlen(want))
		fail_msg("%%.15g of %a: want \"%s\", got \"%s\"", v, want, got);
}

static void check_both_signs(double v)
{
	check(v);
	check(-v);
}

/* v and its neighbours, a few ulps each way. */
static void check_around(double v)
{
	double up = v, down = v;
	check_both_signs(v);
	for (int i = 0; i < 3; i++) {
		up = nextafter(up, INFINITY);
		down = nextafter(down, -INFINITY);
		check_both_signs(up);
		check_both_signs(down);
	}
}

static void test_special_values(void **state)
{
	(void)state;
	const double specials[] = {
		0.0, 0.5, 1.5, 2.5, 0.25, 0.125, 0.375, 0.0625, 1.05, 1.005, 0.045,
		0.05, 0.15, 0.35, 2.675, 1e-300, 4.9e-324, 2.2250738585072014e-308,
		0x1p52, 0x1p53, 0x1p53 + 2, 0x1p63, 0x1p64, 1e12, 1e11, 1e10, 1e9,
		1e12 / 10, 1e12 / 100, 1e12 / 1000, 1e15, 1e15 - 1, 1e15 + 2, 1e16,
		1e17, 1e22, 1e100, 1.7976931348623157e308, 999999999999.75,
		99999999999.75, 999.95, 999.995, 9.95, 9.995, 99.5, 0.95, 0.995,
		0.04, 0.004, 0.0004, 0.00004, 1e-5, 123456.789, 1190.05,
	};
	for (size_t i = 0; i < sizeof specials / sizeof *specials; i++)
		check_around(specials[i]);
	check(INFINITY);
	check(-INFINITY);
	check(NAN);
	check(-NAN);

	/* Things printf is particular about. */
	char buf[64];
	fk_fixed(-0.0, 1, buf, sizeof buf);
	assert_string_equal(buf, "-0.0");
	fk_fixed(-0.04, 1, buf, sizeof buf);
	assert_string_equal(buf, "-0.0");
	fk_fixed(0.125, 2, buf, sizeof buf);
	assert_string_equal(buf, "0.12"); /* an exact tie: to even */
	fk_fixed(0.375, 2, buf, sizeof buf);
	assert_string_equal(buf, "0.38");
	fk_fixed(2.675, 2, buf, sizeof buf);
	assert_string_equal(buf, "2.67"); /* 2.67499999... in binary */
	fk_g15(-0.0, buf, sizeof buf);
	assert_string_equal(buf, "-0");
	fk_g15(1e15, buf, sizeof buf);
	assert_string_equal(buf, "1e+15");
}

/* Every decimal tie k + 5/10^(N+1) for small k: the doubles nearest it
 * and their neighbours, where a wrong rounding would show. */
static void test_decimal_ties(void **state)
{
	(void)state;
	for (unsigned d = 0; d <= 3; d++) {
		double step = 1 / pow(10, d);
		for (int k = 0; k < 5000; k++)
			check_around((k + 0.5) * step);
	}
	/* Ties at larger magnitudes, close to the fast path's edge. */
	for (int i = 0; i < 30000; i++) {
		unsigned d = (unsigned)(rnd() % 4);
		double k = floor(unit() * 1e12 / pow(10, d));
		check_around((k + 0.5) / pow(10, d));
	}
}

/* Values as an SVG computes them: x = 10 + start * widthpertime and
 * differences of rounded ends, percentages 100 * count / total. */
static void test_svg_shapes(void **state)
{
	(void)state;
	for (int i = 0; i < 150000; i++) {
		double total = floor(unit() * 1e9) + 1;
		double wpt = (double)(1 + rnd() % 100000) / total;
		double start = floor(unit() * total);
		check(10 + start * wpt);
		check(100 * floor(unit() * total) / total);
		check(round(unit() * 12000) / 10 - round(unit() * 12000) / 10);
	}
}

static void test_random_values(void **state)
{
	(void)state;
	/* Uniform over every decade from 1e-6 to 1e16. */
	for (int i = 0; i < 150000; i++) {
		double scale = pow(10, (double)(rnd() % 23) - 6);
		check_both_signs(unit() * scale);
	}
	/* Random bit patterns: every exponent, NaNs and infinities too. */
	for (int i = 0; i < 10000; i++) {
		uint64_t bits = rnd();
		double v;
		memcpy(&v, &bits, sizeof v);
		check(v);
	}
	/* Random bit patterns of the exponents the fast path takes. */
	for (int i = 0; i < 100000; i++) {
		uint64_t bits = (rnd() & 0x800FFFFFFFFFFFFFu) | ((uint64_t)(1000 + rnd() % 64) << 52);
		double v;
		memcpy(&v, &bits, sizeof v);
		check(v);
	}
	assert_true(fast_hits > 1000000); /* the fast path was what got tested */
}

/* snprintf cuts to n - 1 bytes; so must these. */
static void test_short_buffers(void **state)
{
	(void)state;
	const double vs[] = { 1234.5678, -0.0, 0.25, 1e300, 123456789012.25, -42 };
	for (size_t i = 0; i < sizeof vs / sizeof *vs; i++) {
		for (size_t n = 1; n < 12; n++) {
			/* volatile: the cut is meant (no -Wformat-truncation). */
			volatile size_t cut = n;
			char want[16], got[16];
			memset(want, 'x', sizeof want);
			memset(got, 'x', sizeof got);
			snprintf(want, cut, "%.2f", vs[i]);
			fk_fixed(vs[i], 2, got, n);
			assert_memory_equal(want, got, sizeof want);
			memset(want, 'x', sizeof want);
			memset(got, 'x', sizeof got);
			snprintf(want, cut, "%.15g", vs[i]);
			fk_g15(vs[i], got, n);
			assert_memory_equal(want, got, sizeof want);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_special_values),
		cmocka_unit_test(test_decimal_ties),
		cmocka_unit_test(test_svg_shapes),
		cmocka_unit_test(test_random_values),
		cmocka_unit_test(test_short_buffers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
