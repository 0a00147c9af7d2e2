// gelu.cu - the GELU comparison of the torch samples, in plain CUDA:
// "manual" computes 0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))) as eight
// elementwise kernels (one per torch op, each a full pass over memory),
// "fused" as one kernel. Under stackcap, stackfold --metric
// self_cuda_time_total shows 8 kernels per step against 1, and where their
// time goes; --nvtx shows the forward phase.
//
// Usage: gelu manual|fused [N (default 16M)] [STEPS (default 20)]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include "check.cuh"

__global__ void pow3(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] * x[i] * x[i]; }
__global__ void scale(const float *x, float *y, float a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i]; }
__global__ void add(const float *x, const float *z, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] + z[i]; }
__global__ void tanh_(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = tanhf(x[i]); }
__global__ void add1(const float *x, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1.0f + x[i]; }
__global__ void mul(const float *x, const float *z, float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = x[i] * z[i]; }

__global__ void gelu_fused(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
	}
}

static void manual(const float *x, float *y, float *t1, float *t2, int n, int blocks)
{
	pow3<<<blocks, 256>>>(x, t1, n);                 // x^3
	scale<<<blocks, 256>>>(t1, t1, 0.044715f, n);    // 0.044715 x^3
	add<<<blocks, 256>>>(x, t1, t1, n);              // x + ...
	scale<<<blocks, 256>>>(t1, t1, 0.7978845608f, n);// sqrt(2/pi) (...)
	tanh_<<<blocks, 256>>>(t1, t1, n);
	add1<<<blocks, 256>>>(t1, t1, n);                // 1 + tanh
	mul<<<blocks, 256>>>(x, t1, t2, n);              // x (...)
	scale<<<blocks, 256>>>(t2, y, 0.5f, n);          // 0.5 x (...)
}

int main(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "manual") && strcmp(argv[1], "fused"))) {
		fprintf(stderr, "usage: gelu manual|fused [N] [STEPS]\n");
		return 2;
	}
	bool fused = strcmp(argv[1], "fused") == 0;
	int n = argc > 2 ? atoi(argv[2]) : 16 << 20;
	int steps = argc > 3 ? atoi(argv[3]) : 20;
	int blocks = (n + 255) / 256;
	float *x, *y, *t1 = nullptr, *t2 = nullptr;
	CHECK(cudaMalloc(&x, n * sizeof(float)));
	CHECK(cudaMalloc(&y, n * sizeof(float)));
	if (!fused) { // the temporaries torch would allocate
		CHECK(cudaMalloc(&t1, n * sizeof(float)));
		CHECK(cudaMalloc(&t2, n * sizeof(float)));
	}
	float *host = (float *)malloc(n * sizeof(float));
	for (int i = 0; i < n; i++)
		host[i] = (float)(i % 1000) / 500.0f - 1.0f;
	CHECK(cudaMemcpy(x, host, n * sizeof(float), cudaMemcpyHostToDevice));
	for (int s = 0; s < steps; s++) {
		nvtxRangePushA("forward");
		if (fused)
			gelu_fused<<<blocks, 256>>>(x, y, n);
		else
			manual(x, y, t1, t2, n, blocks);
		nvtxRangePop();
	}
	CHECK(cudaMemcpy(host, y, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaDeviceSynchronize());
	printf("{\"mode\": \"%s\", \"n\": %d, \"steps\": %d, \"y[1500]\": %.6f}\n", argv[1], n, steps,
	       host[1500 % n]);
	cudaFree(x), cudaFree(y), cudaFree(t1), cudaFree(t2);
	free(host);
	return 0;
}
