/* burn.h - what the capture test programs share: burn(ms) spins until the
 * calling thread has used ms more CPU time (its own CPU clock, so the
 * amount holds however busy the machine is). Header-only: each program is
 * one file, compiled by ../run.sh.
 */
#ifndef CAPTEST_BURN_H
#define CAPTEST_BURN_H

#include <time.h>

static double thread_cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static __attribute__((noinline)) unsigned long burn(double ms)
{
	double end = thread_cpu_ms() + ms;
	unsigned long x = 1;
	while (thread_cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

#endif
