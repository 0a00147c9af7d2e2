/* livethreads.c - threads still alive when the process ends: NWORKERS
 * (default 30) threads named "worker" each spend MS (default 10) ms of CPU
 * in work_then_wait() and then wait forever, NSPIN (default 2) threads
 * named "spinner" spin in spin_forever() to the end; once every worker
 * is waiting, main prints "workers N" and calls exit() with all of them
 * alive. Workers this short are mostly never sampled: their CPU time
 * (N x MS) must still reach the capture, and the spinners' last signals
 * race with the end of the capture.
 *
 * Usage: livethreads [NWORKERS [MS [NSPIN]]]
 */
#define _GNU_SOURCE /* pthread_setname_np */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

static double ms = 10;
static atomic_int waiting;

static __attribute__((noinline)) void *work_then_wait(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "worker");
	burn(ms);
	atomic_fetch_add(&waiting, 1);
	for (;;)
		pause();
	return NULL;
}

static __attribute__((noinline)) void *spin_forever(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "spinner");
	for (;;)
		burn(1);
	return NULL;
}

static void start(void *(*fn)(void *))
{
	pthread_t t;
	if (pthread_create(&t, NULL, fn, NULL) != 0) {
		perror("pthread_create");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;
	if (argc > 2)
		ms = atof(argv[2]);
	int spin = argc > 3 ? atoi(argv[3]) : 2;
	if (n < 0 || n > 1000 || spin < 0 || spin > 100)
		return 2;
	for (int i = 0; i < spin; i++)
		start(spin_forever);
	for (int i = 0; i < n; i++)
		start(work_then_wait);
	struct timespec nap = { 0, 1000000 };
	while (atomic_load(&waiting) < n)
		nanosleep(&nap, NULL);
	printf("workers %d\n", n);
	fflush(stdout);
	exit(0);
}
