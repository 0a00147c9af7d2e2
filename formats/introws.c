/* introws.c - lexing one JSON row of integers by hand (see introws.h). */
#include "formats/introws.h"

#include <stdbool.h>

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && fk_introw_space(*p))
		p++;
	return p;
}

/* JSON's integer grammar, -?(0|[1-9][0-9]*), in int64_t range, ended by a
 * byte that cannot continue a number. */
static enum fk_introw_result lex_int(const char **at, const char *end, int64_t *out)
{
	const char *p = *at;
	bool neg = p < end && *p == '-';
	p += neg;
	if (p == end)
		return FK_INTROW_MORE;
	if (*p < '0' || *p > '9')
		return FK_INTROW_OTHER;
	const char *digits = p;
	uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	while (p < end && *p >= '0' && *p <= '9') {
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
