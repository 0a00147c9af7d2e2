/* num.c - exact decimal arithmetic for stack values (see num.h). */
#include "formats/num.h"

#include <stdlib.h>

static const uint64_t pow10_u64[FK_NUM_MAX_SCALE + 1] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
	100000000ull, 1000000000ull, 10000000000ull, 100000000000ull,
	1000000000000ull, 10000000000000ull, 100000000000000ull,
	1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull,
};

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

size_t fk_u128_format(fk_u128 v, char *buf)
{
	char tmp[FK_U128_TEXT_MAX];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + (unsigned)(v % 10));
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

bool fk_u128_parse(const char *s, size_t len, fk_u128 *out)
{
	if (len == 0)
		return false;
	fk_u128 v = 0;
	for (size_t i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return false;
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (FK_U128_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

enum fk_num_status fk_num_parse(const char *s, size_t len, struct fk_num *out)
{
	if (len > 0 && s[0] == '-')
		return FK_NUM_NEGATIVE;
	size_t i = 0;
	while (i < len && is_digit(s[i]))
		i++;
	if (i == 0)
		return FK_NUM_SYNTAX;
	/* One value stays within 64 bits (what the readers always took);
	 * only sums of values grow past it. */
	fk_u128 mant;
	if (!fk_u128_parse(s, i, &mant) || mant > UINT64_MAX)
		return FK_NUM_OVERFLOW;
	uint8_t scale = 0;
	if (i < len && s[i] == '.') {
		size_t frac = ++i;
		while (i < len && is_digit(s[i]))
			i++;
		size_t frac_end = i;
		/* Trailing zeros carry no value; dropping them keeps precision room. */
		while (frac_end > frac && s[frac_end - 1] == '0')
			frac_end--;
		if (frac_end - frac > FK_NUM_MAX_SCALE)
			return i == len ? FK_NUM_PRECISION : FK_NUM_SYNTAX;
		for (size_t k = frac; k < frac_end; k++) /* below 2^64 * 10^18: fits */
			mant = mant * 10 + (unsigned)(s[k] - '0');
		scale = (uint8_t)(frac_end - frac);
	}
	if (i != len)
		return FK_NUM_SYNTAX;
	out->mant = mant;
	out->scale = scale;
	return FK_NUM_OK;
}

const char *fk_num_status_text(enum fk_num_status st)
{
	switch (st) {
	case FK_NUM_OK: return "ok";
	case FK_NUM_SYNTAX: return "value is not a number";
	case FK_NUM_NEGATIVE: return "negative value";
	case FK_NUM_OVERFLOW: return "value does not fit in 64 bits";
	case FK_NUM_PRECISION: return "value has more than 18 decimals";
	}
	return "?";
}

/* Brings a to scale s >= a.scale; false when the mantissa passes 128 bits. */
static bool rescale(struct fk_num *a, uint8_t s)
{
	fk_u128 m;
	if (__builtin_mul_overflow(a->mant, (fk_u128)pow10_u64[s - a->scale], &m))
		return false;
	a->mant = m;
	a->scale = s;
	return true;
}

bool fk_num_add_rescaled(struct fk_num *acc, struct fk_num b)
{
	struct fk_num a = *acc;
	uint8_t s = a.scale > b.scale ? a.scale : b.scale;
	if (!rescale(&a, s) || !rescale(&b, s) || __builtin_add_overflow(a.mant, b.mant, &a.mant))
		return false;
	*acc = a;
	return true;
}

/* A 256-bit product as four 64-bit limbs, lowest first: a scaled product
 * may pass 128 bits before its trailing zeros are dropped. */
struct u256 {
	uint64_t limb[4];
};

static struct u256 mul_wide(fk_u128 a, fk_u128 b)
{
	uint64_t a0 = (uint64_t)a, a1 = (uint64_t)(a >> 64);
	uint64_t b0 = (uint64_t)b, b1 = (uint64_t)(b >> 64);
	fk_u128 ll = (fk_u128)a0 * b0, lh = (fk_u128)a0 * b1;
	fk_u128 hl = (fk_u128)a1 * b0, hh = (fk_u128)a1 * b1;
	fk_u128 mid = (ll >> 64) + (uint64_t)lh + (uint64_t)hl;
	/* The whole product is below 2^256, so its top half fits. */
	fk_u128 hi = hh + (lh >> 64) + (hl >> 64) + (mid >> 64);
	return (struct u256){ { (uint64_t)ll, (uint64_t)mid, (uint64_t)hi, (uint64_t)(hi >> 64) } };
}

/* *q = x / 10; returns x % 10. */
static unsigned div10(struct u256 x, struct u256 *q)
{
	fk_u128 rem = 0;
	for (int i = 3; i >= 0; i--) {
		fk_u128 cur = (rem << 64) | x.limb[i];
		q->limb[i] = (uint64_t)(cur / 10);
		rem = cur % 10;
	}
	return (unsigned)rem;
}

bool fk_num_mul(struct fk_num a, struct fk_num b, struct fk_num *out)
{
	if (a.mant == 0 || b.mant == 0) {
		out->mant = 0;
		out->scale = 0;
		return true;
	}
	unsigned s = (unsigned)a.scale + b.scale;
	struct u256 m = mul_wide(a.mant, b.mant), q;
	/* Drop trailing zeros first; precision beyond the maximum scale
	 * would then be lost: report it rather than round silently. */
	while (s > 0 && div10(m, &q) == 0)
		m = q, s--;
	if (s > FK_NUM_MAX_SCALE || m.limb[2] || m.limb[3])
		return false;
	out->mant = ((fk_u128)m.limb[1] << 64) | m.limb[0];
	out->scale = (uint8_t)s;
	return true;
}

int fk_num_cmp(struct fk_num a, struct fk_num b)
{
	/* Compare integer parts first, then fractions at a common scale. */
	fk_u128 ia = a.mant / pow10_u64[a.scale], ib = b.mant / pow10_u64[b.scale];
	if (ia != ib)
		return ia < ib ? -1 : 1;
	uint8_t s = a.scale > b.scale ? a.scale : b.scale;
	fk_u128 fa = (a.mant % pow10_u64[a.scale]) * pow10_u64[s - a.scale];
	fk_u128 fb = (b.mant % pow10_u64[b.scale]) * pow10_u64[s - b.scale];
	return fa < fb ? -1 : fa > fb;
}

double fk_num_to_double(struct fk_num a)
{
	if (a.scale == 0)
		return (double)a.mant; /* rounded to nearest, also past 2^64 */
	/* strtod rounds the decimal text correctly, as Perl does. */
	char buf[FK_NUM_TEXT_MAX];
	fk_num_format(a, buf);
	return strtod(buf, NULL);
}

size_t fk_num_format(struct fk_num a, char *buf)
{
	fk_u128 ip = a.mant / pow10_u64[a.scale];
	uint64_t fp = (uint64_t)(a.mant % pow10_u64[a.scale]);
	size_t n = fk_u128_format(ip, buf);
	if (fp != 0) {
		unsigned digits = a.scale;
		while (fp % 10 == 0)
			fp /= 10, digits--;
		buf[n++] = '.';
		for (unsigned i = digits; i-- > 0;) {
			buf[n + i] = (char)('0' + fp % 10);
			fp /= 10;
		}
		n += digits;
	}
	buf[n] = '\0';
	return n;
}
