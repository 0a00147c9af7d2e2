/* cpu_shares.c - a program with known CPU shares, for stackcap's tests and
 * demo: the main thread spends 600 ms of CPU in alpha(); a second thread,
 * running at the same time, spends 300 ms in beta() and then 100 ms in
 * gamma(). Of the 1000 ms of CPU time, alpha has 60%, beta 30%, gamma 10%.
 * Each function burns its own thread's CPU clock (CLOCK_THREAD_CPUTIME_ID),
 * so the shares hold however busy the machine is.
 *
 * Usage: cpu_shares [SCALE]   (SCALE multiplies every duration; default 1)
 *        cpu_shares fixed [N]  (fixed work instead: N million iterations
 *                              split 60/30/10, default 2000; the wall time
 *                              then shows what sampling costs)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double scale = 1;
static double fixed_iterations; /* > 0: a fixed amount of work, not of CPU time */

static double thread_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Spins until this thread has used ms more CPU; returns junk to keep the
 * loop. */
static __attribute__((noinline)) unsigned long burn(double ms)
{
	unsigned long x = 1;
	if (fixed_iterations > 0) { /* ms as a share of the 1000 */
		for (double n = fixed_iterations * ms / 1000; n > 0; n -= 20000)
			for (int i = 0; i < 20000; i++)
				x = x * 6364136223846793005u + 1442695040888963407u;
		return x;
	}
	double end = thread_cpu_ms() + ms * scale;
	while (thread_cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

static __attribute__((noinline)) unsigned long alpha(void) { return burn(600); }
static __attribute__((noinline)) unsigned long beta(void) { return burn(300); }
static __attribute__((noinline)) unsigned long gamma_(void) { return burn(100); }

static void *second(void *arg)
{
	unsigned long *out = arg;
	*out = beta() ^ gamma_();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "fixed") == 0)
		fixed_iterations = (argc > 2 ? atof(argv[2]) : 2000) * 1e6;
	else if (argc > 1)
		scale = atof(argv[1]);
	pthread_t t;
	unsigned long b = 0;
	if (pthread_create(&t, NULL, second, &b) != 0)
		return 1;
	unsigned long a = alpha();
	pthread_join(t, NULL);
	printf("%lu\n", (a ^ b) & 1);
	return 0;
}
