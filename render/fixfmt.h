/* fixfmt.h - printf's "%.Nf" (N <= 3) and "%.15g" for the numbers of an SVG,
 * without printf: the same bytes, several times faster.
 *
 * Owns: nothing; pure functions, no allocation, thread-safe. Each function
 * answers exactly what snprintf would (glibc, default rounding mode): the
 * fast path covers the values that are clearly away from a rounding
 * boundary and small enough for exact integer arithmetic, and everything
 * else (ties, huge values, NaN, infinities) goes to snprintf itself.
 */
#ifndef FK_FIXFMT_H
#define FK_FIXFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The integer printf("%.Nf", v) shows, decimal point removed, of |v|:
 * round(|v| * 10^decimals), ties to even on the exact binary value. True
 * with *r set when that is certain; false (nothing set) when the caller
 * must ask snprintf: decimals > 3, |v| * 10^decimals >= 1e12, NaN,
 * infinities, and values whose scaled product is a tie as a double. */
bool fk_fixed_scaled(double v, unsigned decimals, uint64_t *r);

/* Writes the text of a scaled integer from fk_fixed_scaled ("-" first when
 * negative: printf keeps the sign of -0.0 and of what rounds to zero) and a
 * NUL into buf, which must hold FK_FIXED_TEXT_MAX bytes. Returns the length. */
#define FK_FIXED_TEXT_MAX 32
size_t fk_fixed_text(bool negative, uint64_t r, unsigned decimals, char *buf);

/* snprintf(buf, n, "%.*f", decimals, v): the same bytes, truncation
 * included. Returns strlen(buf). */
size_t fk_fixed(double v, unsigned decimals, char *buf, size_t n);

/* snprintf(buf, n, "%.15g", v), the same way. Fast for integers below 1e15
 * and quarters below 1e12 (exact in 15 digits: what SVG coordinates are). */
size_t fk_g15(double v, char *buf, size_t n);

#endif
