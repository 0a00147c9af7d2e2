/* threads.c - many short-lived threads: NTHREADS (default 500) threads,
 * BATCH (default 25) at a time, each spending MS (default 2) of CPU in
 * tiny_work(). Prints "threads N" when all were joined.
 *
 * Usage: threads [NTHREADS [BATCH [MS]]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "burn.h"

static double ms = 2;

__attribute__((noinline)) unsigned long tiny_work(void) { return burn(ms) + 1; }

static void *run(void *arg)
{
	unsigned long *out = arg;
	*out = tiny_work();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 500;
	int batch = argc > 2 ? atoi(argv[2]) : 25;
	if (argc > 3)
		ms = atof(argv[3]);
	if (batch < 1 || batch > 1000)
		return 2;
	pthread_t t[1000];
	unsigned long r[1000];
	int done = 0;
	unsigned long x = 0;
	while (done < n) {
		int k = n - done < batch ? n - done : batch;
		for (int i = 0; i < k; i++)
			if (pthread_create(&t[i], NULL, run, &r[i]) != 0) {
				perror("pthread_create");
				return 1;
			}
		for (int i = 0; i < k; i++) {
			pthread_join(t[i], NULL);
			x ^= r[i];
		}
		done += k;
	}
	printf("threads %d %lu\n", done, x & 0);
	return 0;
}
