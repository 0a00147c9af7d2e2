/* cpu_shares.c - a program with known CPU shares, for stackcap's tests and
 * demo: the main thread spends 600 ms of CPU in alpha(); a second thread,
 * running at the same time, spends 300 ms in beta() and then 100 ms in
 * gamma(). Of the 1000 ms of CPU time, alpha has 60%, beta 30%, gamma 10%.
 * Each function burns its own thread's CPU clock (CLOCK_THREAD_CPUTIME_ID),
 * so the shares hold however busy the machine is.
 *
 * Usage: cpu_shares [SCALE]   (SCALE multiplies every duration; default 1)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double scale = 1;

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
	double end = thread_cpu_ms() + ms * scale;
	unsigned long x = 1;
	while (thread_cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

__attribute__((noinline)) unsigned long alpha(void) { return burn(600); }
__attribute__((noinline)) unsigned long beta(void) { return burn(300); }
__attribute__((noinline)) unsigned long gamma_(void) { return burn(100); }

static void *second(void *arg)
{
	unsigned long *out = arg;
	*out = beta() ^ gamma_();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc > 1)
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
