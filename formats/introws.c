/* introws.c - lexing one JSON row of integers by hand (see introws.h). */
#include "formats/introws.h"

#include <stdbool.h>
#include <string.h>

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && fk_introw_space(*p))
		p++;
	return p;
}

static bool is_digit(char c)
{
	return (unsigned char)(c - '0') <= 9;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The digits that start the 8 bytes at p, read as one word: how many
 * (0..8) and their value. The first byte is the word's lowest, and the
 * most significant digit. */
static unsigned digits8(const char *p, uint64_t *value)
{
	uint64_t w;
	memcpy(&w, p, sizeof w);
	/* A byte below '0' borrows, one above '9' carries, into the bytes
	 * after it only: the lowest byte with its top bit set in either is
	 * the first that is not a digit. */
	uint64_t d = w - 0x3030303030303030u;
	uint64_t not_digit = (d | (d + 0x7676767676767676u)) & 0x8080808080808080u;
	unsigned n = not_digit ? (unsigned)__builtin_ctzll(not_digit) / 8 : 8;
	if (n == 0)
		return 0;
	d <<= 8 * (8 - n); /* only the digits, as the low places of 8 */
	d = (d * 10 + (d >> 8)) & 0x00ff00ff00ff00ffu;      /* 4 pairs of digits */
	d = (d * 100 + (d >> 16)) & 0x0000ffff0000ffffu;    /* 2 groups of 4 */
	*value = (d * 10000 + (d >> 32)) & 0xffffffffu;    /* 8 */
	return n;
}
#endif

/* JSON's integer grammar, -?(0|[1-9][0-9]*), in int64_t range, ended by a
 * byte that cannot continue a number. */
static enum fk_introw_result lex_int(const char **at, const char *end, int64_t *out)
{
	const char *p = *at;
	bool neg = p < end && *p == '-';
	p += neg;
	if (p == end)
		return FK_INTROW_MORE;
	if (!is_digit(*p))
		return FK_INTROW_OTHER;
	const char *digits = p;
	uint64_t v = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* Eight digits a step, twice (sixteen cannot pass int64_t). */
	for (int step = 0; step < 2 && end - p >= 8; step++) {
		uint64_t part;
		unsigned n = digits8(p, &part);
		if (n == 0)
			break;
		static const uint64_t scale[9] = { 1, 10, 100, 1000, 10000, 100000, 1000000,
						   10000000, 100000000 };
		v = v * scale[n] + part;
		p += n;
		if (n < 8)
			break;
	}
#endif
	/* 18 digits cannot pass int64_t either: no range check on the way (it
	 * was a third of the lexing, a division's latency on every digit). */
	const char *unchecked = end - digits > 18 ? digits + 18 : end;
	while (p < unchecked && is_digit(*p))
		v = v * 10 + (unsigned)(*p++ - '0');
	uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	while (p < end && is_digit(*p)) {
		unsigned d = (unsigned)(*p - '0');
		if (v > (limit - d) / 10)
			return FK_INTROW_OTHER; /* out of range: the parser says so */
		v = v * 10 + d;
		p++;
	}
	if (p == end)
		return FK_INTROW_MORE;
	if (*p == '.' || *p == 'e' || *p == 'E' || (*digits == '0' && p - digits > 1))
		return FK_INTROW_OTHER;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	*at = p;
	return FK_INTROW_OK;
}

enum fk_introw_result fk_introw_lex(const char *p, const char *end, int64_t *v, int n,
				    size_t *used)
{
	const char *start = p;
	if (p == end)
		return FK_INTROW_MORE;
	if (*p++ != '[' || n < 1)
		return FK_INTROW_OTHER;
	for (int i = 0; i < n; i++) {
		p = skip_space(p, end);
		enum fk_introw_result r = lex_int(&p, end, &v[i]);
		if (r != FK_INTROW_OK)
			return r;
		p = skip_space(p, end);
		if (p == end)
			return FK_INTROW_MORE;
		if (*p++ != (i + 1 < n ? ',' : ']'))
			return FK_INTROW_OTHER;
	}
	*used = (size_t)(p - start);
	return FK_INTROW_OK;
}
