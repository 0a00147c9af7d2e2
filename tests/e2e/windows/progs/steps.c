/* steps.c - a training loop marked with NVTX (the NVTX3 headers every CUDA
 * library uses; no GPU needed: under stackcap the shim is NVTX's injection
 * library): N steps, each an NVTX range "ProfilerStep#K" holding a
 * "forward" range (fwd_work) and a "backward" one (bwd_work), 20 ms of
 * wall time each, with 5 ms in between() outside every range.
 *
 *   steps N
 */
#include <nvtx3/nvToolsExt.h>
#include <stdio.h>
#include <stdlib.h>

#include "spin.h"

static __attribute__((noinline)) unsigned long fwd_work(void) { return spin(20); }
static __attribute__((noinline)) unsigned long bwd_work(void) { return spin(20); }
static __attribute__((noinline)) unsigned long between(void) { return spin(5); }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 6;
	unsigned long x = 0;
	for (int k = 0; k < n; k++) {
		char name[32];
		snprintf(name, sizeof name, "ProfilerStep#%d", k);
		nvtxRangePushA(name);
		nvtxRangePushA("forward");
		x ^= fwd_work();
		nvtxRangePop();
		nvtxRangePushA("backward");
		x ^= bwd_work();
		nvtxRangePop();
		nvtxRangePop();
		x ^= between();
	}
	printf("%lu\n", x & 1);
	return 0;
}
