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

/* Largest mantissa whose integer part still fits in 64 bits at this scale. */
static unsigned __int128 mant_limit(uint8_t scale)
{
	return ((unsigned __int128)UINT64_MAX + 1) * pow10_u64[scale] - 1;
}

static bool is_digit(char c) { return c >= '0' && c <= '9'; }

enum fk_num_status fk_num_parse(const char *s, size_t len, struct fk_num *out)
{
	if (len > 0 && s[0] == '-')
		return FK_NUM_NEGATIVE;
	size_t i = 0;
	unsigned __int128 mant = 0;
	while (i < len && is_digit(s[i])) {
		mant = mant * 10 + (unsigned)(s[i++] - '0');
		if (mant > UINT64_MAX)
			return FK_NUM_OVERFLOW;
	}
	if (i == 0)
		return FK_NUM_SYNTAX;
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
		for (size_t k = frac; k < frac_end; k++)
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

/* Brings a to scale s >= a.scale; false on overflow. */
static bool rescale(struct fk_num *a, uint8_t s)
{
	unsigned __int128 m = a->mant * pow10_u64[s - a->scale];
	if (m > mant_limit(s))
		return false;
	a->mant = m;
	a->scale = s;
	return true;
}

bool fk_num_add(struct fk_num *acc, struct fk_num b)
{
	struct fk_num a = *acc;
	if (a.scale == b.scale) { /* the common case: plain integers */
		a.mant += b.mant;
		if (a.mant > mant_limit(a.scale))
			return false;
		*acc = a;
		return true;
	}
	uint8_t s = a.scale > b.scale ? a.scale : b.scale;
	if (!rescale(&a, s) || !rescale(&b, s))
		return false;
	a.mant += b.mant;
	if (a.mant > mant_limit(s))
		return false;
	*acc = a;
	return true;
}

bool fk_num_mul(struct fk_num a, struct fk_num b, struct fk_num *out)
{
	/* Work on integer and fraction parts so nothing exceeds 128 bits. */
	if (a.mant == 0 || b.mant == 0) {
		out->mant = 0;
		out->scale = 0;
		return true;
	}
	unsigned s = (unsigned)a.scale + b.scale;
	unsigned __int128 m;
	if (__builtin_mul_overflow(a.mant, b.mant, &m))
		return false;
	/* Drop trailing zeros first, then precision beyond the maximum scale
	 * would be lost: report it rather than round silently. */
	while (s > 0 && m % 10 == 0)
		m /= 10, s--;
	if (s > FK_NUM_MAX_SCALE)
		return false;
	if (m > mant_limit((uint8_t)s))
		return false;
	out->mant = m;
	out->scale = (uint8_t)s;
	return true;
}

int fk_num_cmp(struct fk_num a, struct fk_num b)
{
	/* Compare integer parts first, then fractions at a common scale. */
	unsigned __int128 ia = a.mant / pow10_u64[a.scale], ib = b.mant / pow10_u64[b.scale];
	if (ia != ib)
		return ia < ib ? -1 : 1;
	uint8_t s = a.scale > b.scale ? a.scale : b.scale;
	unsigned __int128 fa = (a.mant % pow10_u64[a.scale]) * pow10_u64[s - a.scale];
	unsigned __int128 fb = (b.mant % pow10_u64[b.scale]) * pow10_u64[s - b.scale];
	return fa < fb ? -1 : fa > fb;
}

double fk_num_to_double(struct fk_num a)
{
	if (a.scale == 0)
		return (double)(uint64_t)a.mant;
	/* strtod rounds the decimal text correctly, as Perl does. */
	char buf[FK_NUM_TEXT_MAX];
	fk_num_format(a, buf);
	return strtod(buf, NULL);
}

static size_t format_u64(uint64_t v, char *buf)
{
	char tmp[24];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

size_t fk_num_format(struct fk_num a, char *buf)
{
	uint64_t ip = (uint64_t)(a.mant / pow10_u64[a.scale]);
	uint64_t fp = (uint64_t)(a.mant % pow10_u64[a.scale]);
	size_t n = format_u64(ip, buf);
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
