/* profiled.c - cudaProfilerStart/Stop around the middle phase, as
 * torch.cuda.profiler.start()/stop() do: phase_a, then phase_b between
 * cudaProfilerStart and cudaProfilerStop, then phase_c, each burning CPU
 * for 100 ms of wall time. Linked against the CUDA runtime, or against
 * fakecudart.c's stand-in on a machine without CUDA.
 */
#include <stdio.h>

#include "spin.h"

int cudaProfilerStart(void);
int cudaProfilerStop(void);

static __attribute__((noinline)) unsigned long phase_a(void) { return spin(100); }
static __attribute__((noinline)) unsigned long phase_b(void) { return spin(100); }
static __attribute__((noinline)) unsigned long phase_c(void) { return spin(100); }

int main(void)
{
	unsigned long x = phase_a();
	int rc = cudaProfilerStart();
	x ^= phase_b();
	rc |= cudaProfilerStop();
	x ^= phase_c();
	printf("profiler calls %s (%lu)\n", rc == 0 ? "ok" : "failed", x & 1);
	return 0;
}
