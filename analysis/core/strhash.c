/* strhash.c - fk_text_hash, the identity of whole stack texts.
 *
 * A line of stack text is looked up by its hash and, when a stack with the
 * same hash, check and length is there, taken to be that stack without
 * reading its names back: comparing a kilobyte line with some thirty names
 * scattered over the table cost more than anything else a line does.
 *
 * hash is XXH3 (64 bits) and picks the slot; check is a polynomial hash
 * modulo 2^61 - 1 at a secret point (polyhash.h), which bounds the chance
 * that two different texts share it, whatever they hold: at most
 * (L / 7 + 2) / (2^61 - 1) for texts of L bytes, about 2^-54 for kilobyte
 * stacks, and texts built on purpose do no better. XXH3 alone gives no
 * such bound: texts built for it share all 128 of its bits for one random
 * secret in about 2^26 (xxHash issue #1127). Both keys are drawn at random
 * once per process and never leave it; the hash values, and so the slots
 * stacks land in, differ from run to run, ids and every output do not.
 *
 * XXH3 is built inline for the baseline vector unit (SSE2 on x86-64). On
 * the 1 GB bench input that reads it faster than libxxhash's run-time
 * dispatch (which picked AVX-512 on a Xeon: 0.47 s against 0.56 s, medians
 * of 11), though the wide build hashes a kilobyte alone faster: the wide
 * units cost the rest of the reading more than they save.
 */
#include "analysis/core/stackset.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "analysis/core/polyhash.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/* More than XXH3's minimum of 136 bytes; its default secret is 192. */
#define SECRET_BYTES 192

static unsigned char secret[SECRET_BYTES];
static struct fk_polykey point;
static pthread_once_t made = PTHREAD_ONCE_INIT;

/* splitmix64: spreads a seed over the keys when the kernel has no random
 * bytes to give now (no getrandom, a seccomp filter). */
static uint64_t mix(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void make_keys(void)
{
	unsigned char bytes[SECRET_BYTES + 8];
	if (getrandom(bytes, sizeof bytes, GRND_NONBLOCK) != (ssize_t)sizeof bytes) {
		/* The 16 random bytes the kernel gave this process at exec, the
		 * clock and the pid. */
		uint64_t state, at_random[2] = { 0, 0 };
		const void *r = (const void *)getauxval(AT_RANDOM);
		if (r)
			memcpy(at_random, r, sizeof at_random);
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		state = at_random[0] ^ mix(&at_random[1]) ^ (uint64_t)ts.tv_nsec ^
			(uint64_t)getpid() << 32;
		for (size_t k = 0; k < sizeof bytes; k += 8) {
			uint64_t w = mix(&state);
			memcpy(bytes + k, &w, 8);
		}
	}
	memcpy(secret, bytes, sizeof secret);
	uint64_t k;
	memcpy(&k, bytes + SECRET_BYTES, sizeof k);
	fk_polykey_init(&point, k % (FK_POLY_PRIME - 1) + 1);
}

struct fk_text_hash fk_text_hash(const char *p, size_t len)
{
	pthread_once(&made, make_keys);
	return (struct fk_text_hash){ .hash = XXH3_64bits_withSecret(p, len, secret, sizeof secret),
				      .check = fk_polyhash(p, len, &point) };
}
