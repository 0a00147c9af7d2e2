/* unblock.c - a thread that blocks every signal, spends 300 ms of CPU in
 * masked_part(), unblocks them again and spends 50 ms in unmasked_part().
 * The CPU timer keeps running while the sampling signal is blocked; the
 * signal finally delivered then stands for the whole 300 ms (its overrun
 * count), and must not be charged to the frame where it lands.
 * Prints "unblock ok" at the end.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "burn.h"

__attribute__((noinline)) unsigned long masked_part(void) { return burn(300) + 1; }
__attribute__((noinline)) unsigned long unmasked_part(void) { return burn(50) + 1; }

static void *unblocker(void *arg)
{
	sigset_t all, old;
	sigfillset(&all);
	if (pthread_sigmask(SIG_BLOCK, &all, &old) != 0)
		return NULL;
	unsigned long x = masked_part();
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	x ^= unmasked_part();
	*(unsigned long *)arg = x | 1;
	return NULL;
}

int main(void)
{
	pthread_t t;
	unsigned long x = 0;
	if (pthread_create(&t, NULL, unblocker, &x) != 0)
		return 1;
	pthread_join(t, NULL);
	if (!x)
		return 1;
	printf("unblock ok\n");
	return 0;
}
