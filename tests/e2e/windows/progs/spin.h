/* spin.h - what the window test programs share: spin(ms) burns CPU for ms
 * of wall time (the monotonic clock, not the thread's CPU clock: a --delay
 * or --duration is wall time, so a phase must end on the wall clock however
 * loaded the machine is). Header-only: each program is one file, compiled
 * by ../run.sh.
 */
#ifndef WINTEST_SPIN_H
#define WINTEST_SPIN_H

#include <time.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static __attribute__((noinline)) unsigned long spin(double ms)
{
	double end = now_ms() + ms;
	unsigned long x = 1;
	while (now_ms() < end)
		for (int i = 0; i < 20000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

#endif
