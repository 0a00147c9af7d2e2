/* fakecudart.c - a stand-in libcudart.so for machines without CUDA: the
 * two profiler calls profiled.c makes, succeeding (cudaSuccess) and
 * counting, so the test sees they were passed on. */
#include <stdio.h>

static int starts, stops;

int cudaProfilerStart(void);
int cudaProfilerStop(void);

int cudaProfilerStart(void)
{
	starts++;
	return 0;
}

int cudaProfilerStop(void)
{
	stops++;
	return 0;
}

__attribute__((destructor)) static void report(void)
{
	fprintf(stderr, "fakecudart: %d start, %d stop\n", starts, stops);
}
