/* inject.c - does what the CUDA driver does during cuInit when
 * CUDA_INJECTION64_PATH names a library: finds InitializeInjection and calls
 * it. Under stackcap that is the shim's, which then loads the real libcupti.
 * Without a driver CUPTI refuses, and the program must go on regardless. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

static __attribute__((noinline)) void work(void)
{
	for (unsigned long i = 0; i < 200000000ul; i++)
		sink += i;
}

int main(void)
{
	const char *path = getenv("CUDA_INJECTION64_PATH");
	void *h = path ? dlopen(path, RTLD_NOW) : NULL;
	int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
	printf("injection: %s, InitializeInjection %s, returned %d\n", path ? path : "unset",
	       init ? "found" : "missing", init ? init() : -1);
	work();
	return 0;
}
