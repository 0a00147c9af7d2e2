/* smallallocs.c - many small allocations, for --alloc-sample's estimate:
 * many_small() allocates N (default 20000) blocks of 4096 bytes (80 MiB in
 * all) and frees them. With a sampling mean of 64 KiB about 1200 of them
 * are kept; the scaled estimate of bytes and count has a standard error of
 * about 3%.
 *
 * With --threads N, N threads (one at a time) each make one allocation
 * of 16 bytes in one_small() and free it: 1 KiB or so in all, which a
 * sampling mean of 512 KiB almost never keeps.
 *
 * Usage: smallallocs [N] | smallallocs --threads N
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N 100000
static void *p[MAX_N];

__attribute__((noinline)) static unsigned long many_small(int n)
{
	unsigned long x = 0;
	for (int i = 0; i < n; i++) {
		p[i] = malloc(4096);
		if (p[i]) {
			memset(p[i], i, 64);
			x += ((unsigned char *)p[i])[1];
		}
	}
	for (int i = 0; i < n; i++)
		free(p[i]);
	return x;
}

static void *volatile kept; /* the compiler may not drop the pair below */

__attribute__((noinline)) static void *one_small(void *unused)
{
	(void)unused;
	kept = malloc(16);
	free(kept);
	return NULL;
}

static int threads(int n)
{
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, one_small, NULL) != 0 || pthread_join(t, NULL) != 0)
			return 1;
	}
	printf("threads %d\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && strcmp(argv[1], "--threads") == 0)
		return threads(atoi(argv[2]));
	int n = argc > 1 ? atoi(argv[1]) : 20000;
	if (n < 0 || n > MAX_N)
		return 2;
	printf("%lu\n", many_small(n) & 0);
	return 0;
}
