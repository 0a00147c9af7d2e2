/* cudaprof.c - --capture-range cuda-profiler-api: cudaProfilerStart and
 * cudaProfilerStop (what torch.cuda.profiler.start() calls) are
 * interposed, open or close the window, and go on to the CUDA runtime.
 * Only a program that calls the shared libcudart's symbols is seen here; a
 * runtime linked statically into the program is seen by CUPTI's callbacks
 * (cupti.c). Without CUDA no one calls them, and the shim says the window
 * never opened.
 */
#include <dlfcn.h>

#include "capture/window.h"

typedef int (*profiler_fn)(void);

/* cudaError_t is an int enum; 0 is cudaSuccess. */
int cudaProfilerStart(void);
int cudaProfilerStop(void);

int cudaProfilerStart(void)
{
	static profiler_fn real;
	if (!real)
		real = (profiler_fn)dlsym(RTLD_NEXT, "cudaProfilerStart");
	win_cuda_profiler(true);
	return real ? real() : 0;
}

int cudaProfilerStop(void)
{
	static profiler_fn real;
	if (!real)
		real = (profiler_fn)dlsym(RTLD_NEXT, "cudaProfilerStop");
	win_cuda_profiler(false);
	return real ? real() : 0;
}
