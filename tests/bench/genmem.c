/* genmem.c - deterministic generator of a large torch raw memory timeline
 * for `make bench`: parameters pre-existing, then training steps that create
 * inputs, activations, temporaries, gradients and optimizer state and free
 * them again (a valid timeline: every DESTROY matches a live allocation),
 * epoch-ns times a few hundred ns apart. Same bytes on every run.
 *
 * Usage: genmem EVENTS > file.raw.json
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t state = 0x9E3779B97F4A7C15ull;

static uint64_t next(void) /* xorshift64* */
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 2685821657736338717ull;
}

#define LIVE_MAX 4096

struct alloc {
	int64_t bytes;
	int category;
};

static struct alloc live[LIVE_MAX];
static int nlive;
static unsigned long long rows;

static void row(int64_t t, int action, int64_t bytes, int category)
{
	printf("%s[%" PRId64 ", %d, %" PRId64 ", %d]", rows++ ? ", " : "", t, action, bytes, category);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: genmem EVENTS > file.raw.json\n");
		return 2;
	}
	unsigned long long events = strtoull(argv[1], NULL, 10), n = 0;
	int64_t t = INT64_C(1763900000000000000); /* Nov 2025, epoch ns */
	putchar('[');
	for (int i = 0; i < 64 && n < events; i++, n++)
		row(-1, 1, (int64_t)(4096 + next() % (1 << 22)), 0);
	while (n < events) {
		t += 50 + (int64_t)(next() % 900);
		uint64_t r = next() % 100;
		if (nlive > 0 && (r < 45 || nlive == LIVE_MAX)) {
			int k = (int)(next() % (uint64_t)nlive);
			row(t, 4, -live[k].bytes, live[k].category);
			live[k] = live[--nlive];
		} else if (nlive > 0 && r < 50 && n + 1 < events) {
			int k = (int)(next() % (uint64_t)nlive); /* a version bump */
			int to = (int)(next() % 8);
			row(t, 3, -live[k].bytes, live[k].category);
			row(t, 3, live[k].bytes, to);
			live[k].category = to;
		} else {
			struct alloc a = { (int64_t)(next() % ((uint64_t)1 << (8 + next() % 20))),
					   1 + (int)(next() % 7) };
			row(t, 2, a.bytes, a.category);
			live[nlive++] = a;
		}
		n++;
	}
	putchar(']');
	return 0;
}
