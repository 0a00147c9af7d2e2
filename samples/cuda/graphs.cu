// graphs.cu - CUDA graphs, for stackcap's attribution of replayed kernels.
// record_step captures three kernels (scale, shift, square) from a stream
// into a graph; add_node adds a fourth (bump) by hand; replay launches the
// instantiated graph REPLAYS times. Instantiation clones the nodes, so each
// replayed kernel must be followed back through its clone to where its node
// was made: scale, shift and square under record_step, bump under add_node,
// none under replay (the cudaGraphLaunch).
//
// Usage: graphs [REPLAYS (default 10)]; prints JSON: replays, kernels per
// replay, and y[7], which bump raises by 1 per replay: every replay ran.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "check.cuh"

__global__ void scale(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= 0.5f; }
__global__ void shift(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }
__global__ void square(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = x[i] * x[i]; }
__global__ void bump(float *y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] += 1.0f; }

static const int N = 1 << 20, THREADS = 256, BLOCKS = (N + THREADS - 1) / THREADS;

__attribute__((noinline)) static cudaGraph_t record_step(cudaStream_t s, float *x)
{
	cudaGraph_t g;
	CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	scale<<<BLOCKS, THREADS, 0, s>>>(x, N);
	shift<<<BLOCKS, THREADS, 0, s>>>(x, N);
	square<<<BLOCKS, THREADS, 0, s>>>(x, N);
	CHECK(cudaStreamEndCapture(s, &g));
	return g;
}

__attribute__((noinline)) static void add_node(cudaGraph_t g, float *y)
{
	int n = N;
	void *args[] = { &y, &n };
	cudaKernelNodeParams p = {};
	p.func = (void *)bump;
	p.gridDim = dim3(BLOCKS);
	p.blockDim = dim3(THREADS);
	p.kernelParams = args;
	cudaGraphNode_t node;
	CHECK(cudaGraphAddKernelNode(&node, g, nullptr, 0, &p));
}

__attribute__((noinline)) static void replay(cudaGraphExec_t exec, cudaStream_t s, int times)
{
	for (int r = 0; r < times; r++)
		CHECK(cudaGraphLaunch(exec, s));
	CHECK(cudaStreamSynchronize(s));
}

int main(int argc, char **argv)
{
	int replays = argc > 1 ? atoi(argv[1]) : 10;
	float *x, *y;
	CHECK(cudaMalloc(&x, N * sizeof(float)));
	CHECK(cudaMalloc(&y, N * sizeof(float)));
	CHECK(cudaMemset(x, 0, N * sizeof(float)));
	CHECK(cudaMemset(y, 0, N * sizeof(float)));
	cudaStream_t s;
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	cudaGraph_t g = record_step(s, x);
	add_node(g, y);
	cudaGraphExec_t exec;
	CHECK(cudaGraphInstantiate(&exec, g, 0));
	replay(exec, s, replays);
	float y7;
	CHECK(cudaMemcpy(&y7, y + 7, sizeof y7, cudaMemcpyDeviceToHost));
	printf("{\"replays\": %d, \"kernels_per_replay\": 4, \"y[7]\": %.1f}\n", replays, y7);
	CHECK(cudaGraphExecDestroy(exec));
	CHECK(cudaGraphDestroy(g));
	cudaFree(x), cudaFree(y);
	return 0;
}
