/* phases.c - a training-step-shaped program that marks its phases with
 * NVTX (the header-only NVTX3 API every CUDA library uses): forward,
 * backward, optimizer, each burning a known share of CPU (50/30/20 %). No
 * GPU needed: NVTX loads the injection library named in
 * NVTX_INJECTION64_PATH, which under stackcap is the shim. */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <time.h>

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static __attribute__((noinline)) unsigned long burn(double ms)
{
	double end = cpu_ms() + ms;
	unsigned long x = 1;
	while (cpu_ms() < end)
		for (int i = 0; i < 10000; i++)
			x = x * 6364136223846793005u + 1442695040888963407u;
	return x;
}

int main(void)
{
	unsigned long x = 0;
	/* 6 steps of 100 ms of CPU: about 600 samples at 999 Hz (one per
	 * millisecond of CPU), so a sample more or less at a range's edges
	 * moves a share less than with 4. */
	for (int step = 0; step < 6; step++) {
		nvtxRangePushA("step");
		nvtxRangePushA("forward");
		x ^= burn(50);
		nvtxRangePop();
		nvtxRangePushA("backward");
		x ^= burn(30);
		nvtxRangePop();
		nvtxMarkA("optimizer next");
		nvtxRangePushA("optimizer");
		x ^= burn(20);
		nvtxRangePop();
		nvtxRangePop();
	}
	printf("%lu\n", x & 1);
	return 0;
}
