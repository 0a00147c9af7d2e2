/* utf8.h - decoding names as Unicode code points, the way flamegraph.pl sees
 * them (it decodes its input as UTF-8), with a defined answer for bytes that
 * are not valid UTF-8: each such byte stands for itself (U+0080..U+00FF) and
 * is flagged so writers can replace it.
 *
 * Owns: nothing; pure functions.
 */
#ifndef FK_UTF8_H
#define FK_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes the code point at p[*i], advancing *i. *valid is false for a byte
 * that does not start a well-formed sequence (then one byte is consumed). */
uint32_t fk_utf8_next(const char *p, size_t len, size_t *i, bool *valid);

/* Byte offset of code point number n (or len when there are fewer). */
size_t fk_utf8_offset(const char *p, size_t len, size_t n);

#endif
