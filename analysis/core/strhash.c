/* strhash.c - fk_text_hash, the identity of whole stack texts.
 *
 * A line of stack text is looked up by 128 bits of XXH3 and, when a stack
 * with the same 128 bits is there, taken to be that stack without reading
 * its names back: comparing a kilobyte line with some thirty names
 * scattered over the table cost more than anything else a line does.
 *
 * The secret XXH3 mixes with is drawn at random once per process and never
 * leaves it. Two different texts then share their 128 bits with a chance of
 * 2^-128 whatever they hold, and an input cannot be made to collide without
 * the secret (XXH3 is not made to resist collisions built on purpose by
 * someone who knows the secret, and its default one is published). The
 * hash values, and so the slots stacks land in, differ from run to run;
 * ids and every output do not.
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
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* More than XXH3's minimum of 136 bytes; its default secret is 192. */
#define SECRET_BYTES 192

static unsigned char secret[SECRET_BYTES];
static pthread_once_t made = PTHREAD_ONCE_INIT;

/* splitmix64: spreads a weak seed over the secret when the kernel has no
 * random bytes to give (no getrandom, a seccomp filter). */
static uint64_t mix(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void make_secret(void)
{
	if (getrandom(secret, sizeof secret, GRND_NONBLOCK) != (ssize_t)sizeof secret) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		uint64_t state = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
		state ^= (uint64_t)getpid() << 32 ^ (uint64_t)(uintptr_t)&state;
		for (size_t k = 0; k < sizeof secret; k += 8) {
			uint64_t w = mix(&state);
			memcpy(secret + k, &w, 8);
		}
	}
}

struct fk_text_hash fk_text_hash(const char *p, size_t len)
{
	pthread_once(&made, make_secret);
	XXH128_hash_t h = XXH3_128bits_withSecret(p, len, secret, sizeof secret);
	return (struct fk_text_hash){ .hash = h.low64, .check = h.high64 };
}
