/* introws.h - the fast path of JSON files that are lists of integer rows
 * ("[[1, 2, 3, 4], [5, 6, 7, 8], ...]": torch's raw memory timelines): one
 * row lexed by hand, no general JSON parser involved.
 *
 * Owns: nothing; pure functions, no allocation, thread-safe. It only says
 * yes to the plain shape (whitespace, integers without fraction or exponent
 * that fit in int64_t, commas, brackets); anything else is FK_INTROW_OTHER,
 * for the caller to hand to a full JSON parser from the row's start, which
 * then reports what is wrong in its own words.
 */
#ifndef FK_INTROWS_H
#define FK_INTROWS_H

#include <stddef.h>
#include <stdint.h>

enum fk_introw_result {
	FK_INTROW_OK,    /* a row of exactly n integers */
	FK_INTROW_MORE,  /* the bytes end before the row does: call again with more */
	FK_INTROW_OTHER, /* not this shape (the caller's parser decides) */
};

/* Lexes the row starting at p (its '['; no whitespace before it) of exactly
 * n integers into v[0..n); *used gets the bytes up to and including its ']'. */
enum fk_introw_result fk_introw_lex(const char *p, const char *end, int64_t *v, int n,
				    size_t *used);

/* JSON whitespace, as far as the fast path goes: ' ', '\t', '\n', '\r'. */
static inline int fk_introw_space(char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

#endif
