/* num.h - exact non-negative decimal numbers, as they appear in stack files,
 * and the unsigned 128-bit integers their sums are kept in.
 *
 * Owns: struct fk_num and its parse / add / multiply / format operations,
 * and fk_u128 with its decimal text. A value is mant / 10^scale with
 * scale <= FK_NUM_MAX_SCALE. A parsed value's integer part must fit in 64
 * bits (what one line may carry); sums and products may grow until the
 * mantissa passes 128 bits (integers up to 2^128-1, fewer integer digits
 * with decimals), and every operation that would exceed that reports
 * overflow instead of wrapping. Pure functions, no allocation, thread-safe.
 */
#ifndef FK_NUM_H
#define FK_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* gcc and clang both have it; one name so the rest of the tree never
 * spells the extension. */
typedef unsigned __int128 fk_u128;
#define FK_U128_MAX (~(fk_u128)0)

/* Decimal text of v (no sign, no leading zeros) into buf, which must hold
 * FK_U128_TEXT_MAX bytes (39 digits and a NUL). Returns the length. */
#define FK_U128_TEXT_MAX 40
size_t fk_u128_format(fk_u128 v, char *buf);
/* Parses s[0..len) entirely as decimal digits; false when empty, on any
 * other byte, or past 2^128-1 (*out unchanged then). */
bool fk_u128_parse(const char *s, size_t len, fk_u128 *out);

#define FK_NUM_MAX_SCALE 18

struct fk_num {
	fk_u128 mant;
	uint8_t scale;
};

enum fk_num_status {
	FK_NUM_OK = 0,
	FK_NUM_SYNTAX,    /* not [0-9]+(.[0-9]*)? */
	FK_NUM_NEGATIVE,  /* starts with '-' */
	FK_NUM_OVERFLOW,  /* integer part does not fit in 64 bits (one value) */
	FK_NUM_PRECISION, /* more than FK_NUM_MAX_SCALE decimals */
};

/* Parses s[0..len) entirely. */
enum fk_num_status fk_num_parse(const char *s, size_t len, struct fk_num *out);
const char *fk_num_status_text(enum fk_num_status st);

/* fk_num_add for numbers of different scales. */
bool fk_num_add_rescaled(struct fk_num *acc, struct fk_num b);

/* *acc += b; false (and *acc unchanged) when the mantissa at the finer
 * scale would pass 128 bits. Inline: every folded line adds four. */
static inline bool fk_num_add(struct fk_num *acc, struct fk_num b)
{
	if (acc->scale != b.scale) /* plain integers (the common case) skip this */
		return fk_num_add_rescaled(acc, b);
	fk_u128 sum;
	if (__builtin_add_overflow(acc->mant, b.mant, &sum))
		return false;
	acc->mant = sum;
	return true;
}
/* *out = a * b, exact: false when the product passes 128 bits or needs more
 * than FK_NUM_MAX_SCALE decimals (trailing zeros dropped first). */
bool fk_num_mul(struct fk_num a, struct fk_num b, struct fk_num *out);
/* <0, 0, >0 like memcmp. */
int fk_num_cmp(struct fk_num a, struct fk_num b);
/* The nearest double (as Perl reads the decimal text). */
double fk_num_to_double(struct fk_num a);

/* Shortest exact decimal text (trailing fractional zeros dropped) into buf,
 * which must hold FK_NUM_TEXT_MAX bytes (39 digits, "0." and a NUL at
 * most). Returns the length. */
#define FK_NUM_TEXT_MAX 48
size_t fk_num_format(struct fk_num a, char *buf);

#endif
