/* strhash.c - fk_text_hash, the identity of whole stack texts.
 *
 * A line of stack text is looked up by its hash and, when a stack with the
 * same hash, check and length is there, taken to be that stack without
 * reading its names back: comparing a kilobyte line with some thirty names
 * scattered over the table cost more than anything else a line does.
 *
 * Both come from a keyed universal hash (polyhash.h) under a key drawn at
 * random once per process, which never leaves it: two different texts
 * share them with a chance of about 2^-64, whatever bytes they hold. A
 * fast hash such as XXH3 gives no such bound (texts built for it share all
 * 128 of its bits for one random secret in about 2^26). The values, and so
 * the slots stacks land in, differ from run to run; ids and every output
 * do not.
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

static struct fk_polykey key;
static pthread_once_t made = PTHREAD_ONCE_INIT;

/* splitmix64: spreads a seed over the key when the kernel has no random
 * bytes to give now (no getrandom, a seccomp filter). */
static uint64_t mix(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

static void make_key(void)
{
	unsigned char bytes[FK_POLYKEY_RANDOM];
	size_t got = 0;
	for (ssize_t n; got < sizeof bytes; got += (size_t)n)
		if ((n = getrandom(bytes + got, sizeof bytes - got, GRND_NONBLOCK)) <= 0)
			break;
	if (got < sizeof bytes) {
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
			memcpy(bytes + k, &w, sizeof bytes - k < 8 ? sizeof bytes - k : 8);
		}
	}
	fk_polykey_init(&key, bytes);
}

struct fk_text_hash fk_text_hash(const char *p, size_t len)
{
	pthread_once(&made, make_key);
	uint64_t v[2];
	fk_polyhash(p, len, &key, v);
	/* Both values are under 2^61: the slot hash gets bits everywhere,
	 * and (hash, check) still gives back both. */
	return (struct fk_text_hash){ .hash = v[0] ^ v[1] << 32, .check = v[1] };
}
