/* num.h - exact non-negative decimal numbers, as they appear in stack files.
 *
 * Owns: struct fk_num and its parse / add / multiply / format operations.
 * A value is mant / 10^scale with scale <= FK_NUM_MAX_SCALE. The integer part
 * must fit in 64 bits; every operation that would exceed that reports overflow
 * instead of wrapping. Pure functions, no allocation, thread-safe.
 */
#ifndef FK_NUM_H
#define FK_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FK_NUM_MAX_SCALE 18

struct fk_num {
	unsigned __int128 mant;
	uint8_t scale;
};

enum fk_num_status {
	FK_NUM_OK = 0,
	FK_NUM_SYNTAX,    /* not [0-9]+(.[0-9]*)? */
	FK_NUM_NEGATIVE,  /* starts with '-' */
	FK_NUM_OVERFLOW,  /* integer part does not fit in 64 bits */
	FK_NUM_PRECISION, /* more than FK_NUM_MAX_SCALE decimals */
};

/* Parses s[0..len) entirely. */
enum fk_num_status fk_num_parse(const char *s, size_t len, struct fk_num *out);
const char *fk_num_status_text(enum fk_num_status st);

/* *acc += b; false (and *acc unchanged) on overflow. */
bool fk_num_add(struct fk_num *acc, struct fk_num b);
/* *out = a * b; false on overflow or when the scales add past the maximum. */
bool fk_num_mul(struct fk_num a, struct fk_num b, struct fk_num *out);
/* <0, 0, >0 like memcmp. */
int fk_num_cmp(struct fk_num a, struct fk_num b);
double fk_num_to_double(struct fk_num a);

/* Shortest exact decimal text (trailing fractional zeros dropped) into buf,
 * which must hold FK_NUM_TEXT_MAX bytes. Returns the length. */
#define FK_NUM_TEXT_MAX 48
size_t fk_num_format(struct fk_num a, char *buf);

#endif
