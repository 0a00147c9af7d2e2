/* sigprof.c - a program that profiles itself the old way: a SIGPROF handler
 * counting signals from setitimer(ITIMER_PROF) every 10 ms of process CPU,
 * while prof_work() spends MS (default 500) of CPU. Prints "sigprof N".
 * Under stackcap N must stay about what it is without (stackcap samples
 * on its own signal and its own timers).
 *
 * Usage: sigprof [MS]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "burn.h"

static volatile sig_atomic_t count;

static void on_prof(int sig)
{
	(void)sig;
	count++;
}

__attribute__((noinline)) unsigned long prof_work(double ms) { return burn(ms) + 1; }

int main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 500;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) != 0)
		return 2;
	struct itimerval it = { { 0, 10000 }, { 0, 10000 } };
	if (setitimer(ITIMER_PROF, &it, NULL) != 0)
		return 2;
	unsigned long x = prof_work(ms);
	struct itimerval off = { { 0, 0 }, { 0, 0 } };
	setitimer(ITIMER_PROF, &off, NULL);
	printf("sigprof %d %lu\n", (int)count, x & 0);
	return 0;
}
