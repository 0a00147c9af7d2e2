/* test_expgap.c - the gaps between sampled bytes of --alloc-sample
 * (capture/expgap.c): -ln(u) agrees with libm's log() to within two
 * ulps over the whole range a draw can take (the smallest u, powers of
 * two, both sides of each reduction boundary, near 1, a million random
 * draws); the gaps drawn are the ones libm's log() would give, all but a
 * handful rounded alike and none off by more than a byte; and they are
 * exponential with the mean asked for (mean, tails).
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "capture/expgap.h"

#define DRAWS 1000000
#define MEAN 524288u

/* Relative error against libm, in units of 2^-52 of the result. */
static double ulps_off(double u)
{
	double want = -log(u), got = expgap_neg_log(u);
	if (want == 0)
		return got == 0 ? 0 : INFINITY;
	return fabs(got - want) / (fabs(want) * 0x1p-52);
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static void test_neg_log_matches_libm(void **state)
{
	(void)state;
	double worst = 0;
	const double fixed[] = { 0x1p-54, 0x1p-53 * 1.5, 0.25, 0.5, 0.70710678118654746,
				 0.70710678118654757, 0.7071067811865476, 0.75, 0.9,
				 0.99999, 1 - 0x1p-53, 1.0 };
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
		double off = ulps_off(fixed[i]);
		if (off > worst)
			worst = off;
	}
	assert_true(expgap_neg_log(1.0) == 0.0);
	/* Every power of two a draw can reach, and its neighbours. */
	for (int e = -54; e <= 0; e++) {
		double p = ldexp(1.0, e);
		double around[] = { p, nextafter(p, 0), p * 1.41421356237309, p * 1.4142135623731 };
		for (size_t i = 0; i < 4; i++)
			if (around[i] <= 1.0 && ulps_off(around[i]) > worst)
				worst = ulps_off(around[i]);
	}
	uint64_t s = 88172645463325252ull;
	for (int i = 0; i < DRAWS; i++) {
		double u = ((double)(xorshift(&s) >> 11) + 0.5) / 9007199254740992.0;
		double off = ulps_off(u);
		if (off > worst)
			worst = off;
	}
	print_message("worst: %.2f ulps\n", worst);
	assert_true(worst <= 2.0);
}

static void test_gaps_are_libms(void **state)
{
	(void)state;
	uint64_t ours = 0x9E3779B97F4A7C15u, theirs = ours;
	int rounded_apart = 0;
	for (int i = 0; i < DRAWS; i++) {
		uint64_t got = expgap_next(&ours, MEAN);
		double u = ((double)(xorshift(&theirs) >> 11) + 0.5) / 9007199254740992.0;
		uint64_t want = (uint64_t)(-log(u) * (double)MEAN) + 1;
		assert_true(got + 1 >= want && got <= want + 1);
		rounded_apart += got != want;
	}
	print_message("%d of %d gaps rounded apart\n", rounded_apart, DRAWS);
	assert_true(rounded_apart <= 10);
}

static void test_gaps_are_exponential(void **state)
{
	(void)state;
	uint64_t s = 12345;
	double sum = 0;
	int above_mean = 0, above_3 = 0;
	for (int i = 0; i < DRAWS; i++) {
		uint64_t g = expgap_next(&s, MEAN);
		assert_true(g >= 1);
		sum += (double)g;
		above_mean += g > MEAN;
		above_3 += g > 3u * MEAN;
	}
	/* Standard errors: the mean 0.1 %, P(> mean) 0.0005, P(> 3 means)
	 * 0.0002; allowed five of them. */
	assert_true(fabs(sum / DRAWS / MEAN - 1) < 0.005);
	assert_true(fabs((double)above_mean / DRAWS - exp(-1)) < 0.0025);
	assert_true(fabs((double)above_3 / DRAWS - exp(-3)) < 0.001);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_neg_log_matches_libm),
		cmocka_unit_test(test_gaps_are_libms),
		cmocka_unit_test(test_gaps_are_exponential),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
