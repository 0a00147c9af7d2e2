/* polyhash.h - a keyed universal hash of byte strings: the identity of a
 * stack text (see strhash.c).
 *
 * Two levels, as in UMAC: the text is cut into blocks of FK_NH_BLOCK bytes
 * and each block hashed by NH twice (the second key the first moved by 16
 * bytes); the blocks' results, then the length, are the coefficients of a
 * polynomial modulo the prime 2^61 - 1, evaluated at two secret points.
 * With the keys drawn at random, two different texts share both values
 * with a chance of at most 2^-64 + ((4B + 1) / (2^61 - 1))^2 for texts of
 * B blocks, about 2^-64, whatever bytes they hold: texts built on purpose
 * do no better. (XXH3 gives no such bound: texts built for it share all
 * 128 of its bits for one random secret in about 2^26, xxHash issue #1127.)
 * NH costs an addition and a 32-bit multiply a word, four of them a vector
 * instruction on SSE2, so a kilobyte hashes about as fast as with XXH3.
 *
 * Owns: nothing. Thread-safe.
 */
#ifndef FK_POLYHASH_H
#define FK_POLYHASH_H

#include <stddef.h>
#include <stdint.h>

#define FK_POLY_PRIME (((uint64_t)1 << 61) - 1)
#define FK_NH_BLOCK 1024 /* bytes of text per NH block */
#define FK_NH_WORDS (FK_NH_BLOCK / 4 + 4) /* a block's key words, and the shift */

struct fk_polykey {
	uint32_t nh[FK_NH_WORDS];
	uint64_t pow[2][5]; /* the two points k (in [1, p - 1]) to the powers 0 to 4 */
};

/* Random bytes enough for a key. */
#define FK_POLYKEY_RANDOM (FK_NH_WORDS * 4 + 16)

/* A key from FK_POLYKEY_RANDOM random bytes. */
void fk_polykey_init(struct fk_polykey *key, const unsigned char *random);

/* The two values of p[0..len), each in [0, p - 1]. */
void fk_polyhash(const void *p, size_t len, const struct fk_polykey *key, uint64_t out[2]);

#endif
