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
 * the secret (XXH3 with its published default secret has known collisions
 * that can be built on purpose). The hash values, and so the slots stacks
 * land in, differ from run to run; ids and every output do not.
 *
 * Stack texts are long (a kilobyte is common), and there the x86 build of
 * Debian's libxxhash, which picks the widest vector unit at run time,
 * hashes 1.4x as fast on AVX2 as inline XXH3 built for the baseline SSE2.
 * Debian builds the library with its dispatcher wherever it ships
 * xxh_x86dispatch.h.
 */
#include "analysis/core/stackset.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__has_include)
#if __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h> /* XXH3_128bits_withSecret becomes its _dispatch */
#define FK_XXH_DISPATCH 1
#endif
#endif
#ifndef FK_XXH_DISPATCH
#include <xxhash.h>
#endif

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
	/* The dispatcher picks its implementation on its first call, with no
	 * lock: made here, once, so readers on several threads never race. */
	(void)XXH3_128bits_withSecret("", 0, secret, sizeof secret);
}

struct fk_text_hash fk_text_hash(const char *p, size_t len)
{
	pthread_once(&made, make_secret);
	XXH128_hash_t h = XXH3_128bits_withSecret(p, len, secret, sizeof secret);
	return (struct fk_text_hash){ .hash = h.low64, .check = h.high64 };
}
