/* polyhash.h - a keyed polynomial hash modulo the prime 2^61 - 1: the
 * check that tells stacks apart (see strhash.c).
 *
 * The text is cut into 7-byte chunks, its length appended, and the
 * chunks taken as the coefficients of a polynomial evaluated at a secret
 * point k. Two different texts of at most L bytes then share the value for
 * at most L / 7 + 2 of the 2^61 - 1 possible k, whatever bytes they hold:
 * with k drawn at random, the chance is at most that over 2^61 - 1, about
 * 2^-54 for two kilobyte stacks, and no input can be built to do better.
 * (XXH3 gives no such bound: texts built on purpose share its 128 bits for
 * one random secret in about 2^26.)
 *
 * Owns: nothing. Thread-safe.
 */
#ifndef FK_POLYHASH_H
#define FK_POLYHASH_H

#include <stddef.h>
#include <stdint.h>

#define FK_POLY_PRIME (((uint64_t)1 << 61) - 1)

#define FK_POLY_BLOCK 16 /* chunks summed before a reduction */

/* The point k and its first powers. */
struct fk_polykey {
	uint64_t pow[FK_POLY_BLOCK + 1]; /* pow[i] = k^i mod p */
};

/* k must be in [1, p - 1]. */
void fk_polykey_init(struct fk_polykey *key, uint64_t k);

/* The polynomial of p[0..len) at key's point, in [0, p - 1]. */
uint64_t fk_polyhash(const void *p, size_t len, const struct fk_polykey *key);

#endif
