/* sigmask.c - a thread that blocks every signal (pthread_sigmask) and then
 * spends 200 ms of CPU in masked_work(), beside the main thread spending
 * 200 ms in main_work(). Prints "sigmask ok" when both finished.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "burn.h"

__attribute__((noinline)) unsigned long masked_work(void) { return burn(200) + 1; }
__attribute__((noinline)) unsigned long main_work(void) { return burn(200) + 1; }

static void *masked(void *arg)
{
	sigset_t all;
	sigfillset(&all);
	if (pthread_sigmask(SIG_BLOCK, &all, NULL) != 0)
		return NULL;
	*(unsigned long *)arg = masked_work();
	return NULL;
}

int main(void)
{
	pthread_t t;
	unsigned long m = 0;
	if (pthread_create(&t, NULL, masked, &m) != 0)
		return 1;
	unsigned long x = main_work();
	pthread_join(t, NULL);
	if (!m)
		return 1;
	printf("sigmask ok %lu\n", (x ^ m) & 0);
	return 0;
}
