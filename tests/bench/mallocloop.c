/* mallocloop.c - the allocation-tracking workload of make bench: N malloc /
 * free pairs of 16..4096 bytes from stacks 4 to 9 frames deep (each depth
 * its own chain of functions), as issue 16 measured heaptrack and stackcap
 * on. Usage: bench-mallocloop [PAIRS [idle-thread]] (default 3,000,000).
 *
 * With idle-thread a second thread is started first and only sleeps: the
 * bare run of a multithreaded program. glibc's malloc takes its arena
 * locks once a process has ever had two threads, so this measures (by
 * hand) what a profiler's own thread costs any single-threaded program.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long rng = 88172645463325252ull;
static volatile unsigned long long sink;

static unsigned long long next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

__attribute__((noinline)) static void leaf(void)
{
	size_t n = 16 + next() % 4081;
	char *p = malloc(n);
	if (!p)
		exit(1);
	p[0] = (char)n;
	sink += (unsigned char)p[0];
	free(p);
}

#define LEVEL(name, below)                                   \
	__attribute__((noinline)) static void name(int depth) \
	{                                                     \
		if (depth <= 0)                               \
			leaf();                               \
		else                                          \
			below(depth - 1);                     \
		sink++;                                       \
	}
__attribute__((noinline)) static void l0(int depth) { (void)depth; leaf(); sink++; }
LEVEL(l1, l0)
LEVEL(l2, l1)
LEVEL(l3, l2)
LEVEL(l4, l3)
LEVEL(l5, l4)

static void *idle(void *unused)
{
	(void)unused;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long pairs = argc > 1 ? atol(argv[1]) : 3000000;
	pthread_t thread;
	if (argc > 2 && strcmp(argv[2], "idle-thread") == 0 && pthread_create(&thread, NULL, idle, NULL) != 0)
		return 1;
	for (long i = 0; i < pairs; i++)
		l5((int)(next() % 6)); /* 4 to 9 frames deep with main and leaf */
	printf("%llu\n", sink);
	return 0;
}
