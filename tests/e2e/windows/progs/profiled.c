/* profiled.c - cudaProfilerStart/Stop around the middle phase, as
 * torch.cuda.profiler.start()/stop() do: phase_a, then phase_b between
 * cudaProfilerStart and cudaProfilerStop, then phase_c, each burning CPU
 * for 100 ms of wall time. Linked against the CUDA runtime, or against
 * fakecudart.c's stand-in on a machine without CUDA.
 */
#include <stdio.h>
#include <time.h>

int cudaProfilerStart(void);
int cudaProfilerStop(void);

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
