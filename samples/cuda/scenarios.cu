// scenarios.cu - a training loop with one bottleneck at a time, in the
// spirit of a profiler demo, for stackcap + flamekit on a GPU machine.
// Each step: prepare a batch on the CPU, copy it to the GPU, forward,
// backward, optimizer (NVTX ranges "data", "forward", "backward",
// "optimizer"). The scenario decides what goes wrong:
//   dataloader    slow CPU data preparation with I/O-like sleeps: the GPU
//                 waits (CPU flame graph: prepare_batch; GPU mostly idle)
//   sync          a device-to-host copy of the loss every step forces a
//                 sync (GPU flame graph: [memcpy DtoH] under read_loss;
//                 CPU time in cudaMemcpy waiting)
//   tiny_ops      forward and backward as 400 tiny kernels each instead
//                 of a few large ones (GPU flame graph: launch-bound)
//   memory_churn  activations cudaMalloc'd and cudaFree'd every step
//                 (memory timeline: sawtooth; CPU time in cudaFree, which
//                 synchronizes); the other scenarios take them from the
//                 stream-ordered pool (cudaMallocAsync / cudaFreeAsync)
// Memory, known: parameters 64 MiB + gradients 64 MiB + batch 16 MiB live
// all along; activations 4 x 32 MiB live from forward to backward: the
// peak allocated is exactly 272 MiB in every scenario.
//
// Usage: scenarios --scenario NAME [--steps N]; prints JSON: average step
// time and data-wait time in ms.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include "check.cuh"

static const size_t MIB = 1 << 20;

__global__ void work(float *y, const float *x, size_t n, int rounds)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		for (int r = 0; r < rounds; r++)
			v = v * 0.999f + 0.001f;
		y[i] = v;
	}
}

static double ms_since(std::chrono::steady_clock::time_point t)
{
	return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

__attribute__((noinline)) static void prepare_batch(float *host, size_t n, bool slow)
{
	for (size_t i = 0; i < n; i++)
		host[i] = (float)(i % 977) * 0.001f;
	if (slow) { // decode + read from disk
		for (int r = 0; r < 3; r++)
			for (size_t i = 0; i < n; i++)
				host[i] = host[i] * 1.0001f + 0.5f;
		usleep(20000);
	}
}

__attribute__((noinline)) static void layer(float *y, const float *x, size_t n, bool tiny,
					    cudaStream_t s)
{
	if (!tiny) {
		work<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(y, x, n, 64);
		return;
	}
	for (int k = 0; k < 100; k++) // the same work as 100 tiny launches
		work<<<4, 64, 0, s>>>(y, x, 256, 1);
}

__attribute__((noinline)) static float read_loss(const float *d)
{
	float loss;
	CHECK(cudaMemcpy(&loss, d, sizeof loss, cudaMemcpyDeviceToHost)); // waits for the GPU
	return loss;
}

int main(int argc, char **argv)
{
	const char *scenario = nullptr;
	int steps = 20;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--scenario") && i + 1 < argc)
			scenario = argv[++i];
		else if (!strcmp(argv[i], "--steps") && i + 1 < argc)
			steps = atoi(argv[++i]);
	}
	bool dataloader = scenario && !strcmp(scenario, "dataloader");
	bool sync = scenario && !strcmp(scenario, "sync");
	bool tiny = scenario && !strcmp(scenario, "tiny_ops");
	bool churn = scenario && !strcmp(scenario, "memory_churn");
	if (!dataloader && !sync && !tiny && !churn) {
		fprintf(stderr, "usage: scenarios --scenario dataloader|sync|tiny_ops|memory_churn [--steps N]\n");
		return 2;
	}
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));
	size_t pn = 64 * MIB / sizeof(float), bn = 16 * MIB / sizeof(float), an = 32 * MIB / sizeof(float);
	float *params, *grads, *batch, *act[4], *host;
	CHECK(cudaMalloc(&params, pn * sizeof(float)));
	CHECK(cudaMalloc(&grads, pn * sizeof(float)));
	CHECK(cudaMalloc(&batch, bn * sizeof(float)));
	CHECK(cudaMallocHost(&host, bn * sizeof(float)));
	double total_ms = 0, wait_ms = 0;
	for (int step = 0; step < steps; step++) {
		auto t0 = std::chrono::steady_clock::now();
		nvtxRangePushA("data");
		prepare_batch(host, bn, dataloader);
		CHECK(cudaMemcpyAsync(batch, host, bn * sizeof(float), cudaMemcpyHostToDevice, s));
		nvtxRangePop();
		wait_ms += ms_since(t0);
		nvtxRangePushA("forward");
		for (int k = 0; k < 4; k++) {
			if (churn)
				CHECK(cudaMalloc(&act[k], an * sizeof(float)));
			else
				CHECK(cudaMallocAsync(&act[k], an * sizeof(float), s));
			layer(act[k], k ? act[k - 1] : batch, k ? an : bn, tiny, s);
		}
		nvtxRangePop();
		nvtxRangePushA("backward");
		for (int k = 3; k >= 0; k--) {
			layer(grads, act[k], an < pn ? an : pn, tiny, s);
			if (churn)
				CHECK(cudaFree(act[k])); // synchronizes the device, every time
			else
				CHECK(cudaFreeAsync(act[k], s));
		}
		if (sync)
			read_loss(grads);
		nvtxRangePop();
		nvtxRangePushA("optimizer");
		layer(params, grads, pn, false, s);
		nvtxRangePop();
		CHECK(cudaStreamSynchronize(s));
		total_ms += ms_since(t0);
	}
	printf("{\"scenario\": \"%s\", \"steps\": %d, \"avg_step_ms\": %.3f, \"avg_data_wait_ms\": %.3f}\n",
	       scenario, steps, total_ms / steps, wait_ms / steps);
	return 0;
}
