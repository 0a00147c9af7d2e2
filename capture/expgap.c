/* expgap.c - exponential gaps between sampled bytes (see expgap.h). */
#include "capture/expgap.h"

#include <string.h>

/* ln 2 = LN2_HI + LN2_LO, LN2_HI with its last 21 bits 0: e * LN2_HI is
 * exact for any exponent, so the sum loses nothing to ln 2's rounding. */
#define LN2_HI 6.93147180369123816490e-01
#define LN2_LO 1.90821492927058770002e-10
#define SQRT2 1.41421356237309504880

/* u = m * 2^e with m in [sqrt(1/2), sqrt(2)), f = m - 1 (exact), then
 * ln m = 2 atanh(s) with s = f / (2 + f), |s| < 0.172:
 *   2s + 2s^3/3 + 2s^5/5 + ...  =  f - s (f - 2 s^2 (1/3 + s^2/5 + ...)),
 * since 2s = f - f s. Written so, the rounding of s and of the series
 * falls on a term a tenth of f; the first term left out, 2 s^25 / 25,
 * is under 1e-20. The series in z = s^2 is summed in pairs and powers of
 * z (Estrin's scheme), not term by term: its chain of dependent steps is
 * 4 long, not 11 (a draw 36 -> 27 ns when one waits for the one before). */
double expgap_neg_log(double u)
{
	uint64_t bits;
	memcpy(&bits, &u, sizeof bits);
	int e = (int)(bits >> 52) - 1023;
	bits = (bits & ((1ull << 52) - 1)) | (1023ull << 52);
	double m;
	memcpy(&m, &bits, sizeof m);
	if (m >= SQRT2) {
		m *= 0.5;
		e++;
	}
	double f = m - 1.0, s = f / (2.0 + f), z = s * s;
	double z2 = z * z, z4 = z2 * z2, z8 = z4 * z4;
	double series = (1.0 / 3 + z * (1.0 / 5)) + z2 * (1.0 / 7 + z * (1.0 / 9)) +
			z4 * ((1.0 / 11 + z * (1.0 / 13)) + z2 * (1.0 / 15 + z * (1.0 / 17))) +
			z8 * ((1.0 / 19 + z * (1.0 / 21)) + z2 * (1.0 / 23));
	double ln_m = f - s * (f - 2.0 * z * series);
	return -((double)e * LN2_HI + ((double)e * LN2_LO + ln_m));
}

uint64_t expgap_next(uint64_t *rng, uint64_t mean)
{
	*rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
	/* 53 random bits, centred in their interval: u in (0, 1), never 0. */
	double u = ((double)(*rng >> 11) + 0.5) / 9007199254740992.0;
	return (uint64_t)(expgap_neg_log(u) * (double)mean) + 1;
}
