/* tsdfree.c - threads whose pthread key destructor (a key made after the
 * shim's, so it runs after the shim's in the same round of the thread's
 * exit, as the CUDA runtime's do) frees the thread's block and allocates
 * again. Under --alloc none of it may be lost.
 * Usage: tsdfree THREADS */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_key_t key;

static void *volatile again; /* volatile: the compiler may not drop the pair */

static void release(void *block)
{
	free(block);
	again = malloc(100);
	free(again);
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_setspecific(key, malloc(4096));
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 8;
	pthread_key_create(&key, release);
	for (int i = 0; i < threads; i++) {
		pthread_t t;
		pthread_create(&t, NULL, worker, NULL);
		pthread_join(t, NULL);
	}
	printf("tsdfree %d\n", threads);
	return 0;
}
