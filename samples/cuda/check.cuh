// check.cuh - the CUDA samples' one error check: a failed runtime call
// prints what failed and why, and exits 1.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                   \
	do {                                                                          \
		cudaError_t e_ = (call);                                              \
		if (e_ != cudaSuccess) {                                              \
			fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e_));   \
			exit(1);                                                      \
		}                                                                     \
	} while (0)
