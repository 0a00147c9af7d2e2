/* lategap.c - allocations while a capture is paused, then small ones
 * recorded: paused() allocates and frees N (default 100000) blocks of
 * 1 KiB, the program raises SIGUSR1 (run under --toggle-signal USR1, which
 * starts recording), and tiny() allocates and frees M (default 2000)
 * blocks of 1 byte.
 *
 * Under --alloc-sample 8388608 the paused megabytes reach sampled bytes a
 * dozen times; none is kept, and each must draw the next gap. A gap left
 * where it was would hand the sample to tiny(), weighed as 8 MiB; drawn
 * afresh, tiny()'s 2000 bytes are sampled with a chance of 0.024%.
 *
 * Usage: lategap [N [M]]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static void *volatile kept; /* the compiler may not drop the pairs below */

__attribute__((noinline)) static void paused(int n)
{
	for (int i = 0; i < n; i++) {
		kept = malloc(1024);
		free(kept);
	}
}

__attribute__((noinline)) static void tiny(int m)
{
	for (int i = 0; i < m; i++) {
		kept = malloc(1);
		free(kept);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000, m = argc > 2 ? atoi(argv[2]) : 2000;
	paused(n);
	raise(SIGUSR1);
	tiny(m);
	printf("done\n");
	return 0;
}
