/* fixfmt.c - "%.Nf" and "%.15g" without printf (see fixfmt.h). */
#include "render/fixfmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const double pow10_d[] = { 1, 10, 100, 1000 };

bool fk_fixed_scaled(double v, unsigned decimals, uint64_t *r)
{
	if (decimals > 3)
		return false;
	double a = fabs(v);
	if (!(a < 1e12 / pow10_d[decimals])) /* NaN fails too */
		return false;
	/* s is the exact product p rounded to the nearest double. Every tie
	 * k + 0.5 below 2^52 is a double, and rounding is monotonic, so
	 * s > k + 0.5 implies p > k + 0.5 and s < k + 0.5 implies p < k + 0.5:
	 * p rounds to the integer s rounds to, unless s is a tie itself (then
	 * p may be a tie or a hair either side: snprintf decides). */
	double s = a * pow10_d[decimals];
	double whole = floor(s);
	double frac = s - whole; /* exact: both are multiples of s's ulp */
	if (frac == 0.5)
		return false;
	*r = (uint64_t)whole + (frac > 0.5);
	return true;
}

/* Decimal digits of v, at least min of them (leading zeros), at o;
 * returns the end. */
static char *put_digits(char *o, uint64_t v, unsigned min)
{
	char tmp[24];
	unsigned n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v || n < min);
	while (n)
		*o++ = tmp[--n];
	return o;
}

size_t fk_fixed_text(bool negative, uint64_t r, unsigned decimals, char *buf)
{
	static const uint64_t pow10_u[] = { 1, 10, 100, 1000 };
	char *o = buf;
	if (negative)
		*o++ = '-';
	o = put_digits(o, r / pow10_u[decimals], 1);
	if (decimals) {
		*o++ = '.';
		o = put_digits(o, r % pow10_u[decimals], decimals);
	}
	*o = '\0';
	return (size_t)(o - buf);
}

/* Copies a fast-path text into buf as snprintf would: cut to n - 1 bytes. */
static size_t give(const char *text, size_t len, char *buf, size_t n)
{
	if (n == 0)
		return len;
	size_t k = len < n ? len : n - 1;
	memcpy(buf, text, k);
	buf[k] = '\0';
	return k;
}

size_t fk_fixed(double v, unsigned decimals, char *buf, size_t n)
{
	uint64_t r;
	if (fk_fixed_scaled(v, decimals, &r)) {
		char text[FK_FIXED_TEXT_MAX];
		return give(text, fk_fixed_text(signbit(v) != 0, r, decimals, text), buf, n);
	}
	int len = snprintf(buf, n, "%.*f", (int)decimals, v);
	return n == 0 || len < 0 ? 0 : strlen(buf);
}

size_t fk_g15(double v, char *buf, size_t n)
{
	double a = fabs(v);
	/* An integer below 1e15 has at most 15 digits, a quarter below 1e12 at
	 * most 14: %.15g prints either exactly, trailing zeros dropped, and
	 * never in exponent form (the exponent is below the precision). */
	bool integer = a < 1e15 && a == floor(a);
	if (integer || (a < 1e12 && a * 4 == floor(a * 4))) {
		char text[FK_FIXED_TEXT_MAX];
		char *o = text;
		if (signbit(v))
			*o++ = '-';
		double whole = floor(a);
		o = put_digits(o, (uint64_t)whole, 1);
		static const char *const quarters[] = { "", ".25", ".5", ".75" };
		const char *q = quarters[(int)((a - whole) * 4)];
		size_t ql = strlen(q);
		memcpy(o, q, ql);
		o += ql;
		return give(text, (size_t)(o - text), buf, n);
	}
	int len = snprintf(buf, n, "%.15g", v);
	return n == 0 || len < 0 ? 0 : strlen(buf);
}
