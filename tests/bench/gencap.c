/* gencap.c - a large synthetic stackcap capture for `make bench`: a module
 * map of this program itself, N samples over a few thousand stacks built
 * from this program's own addresses (so they symbolize), in chunks as the
 * shim writes them, ending with an END chunk. Same bytes on every run.
 *
 * Usage: gencap SAMPLES > file.stackcap
 */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/capture.h"

static uint64_t state = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 2685821657736338717ull;
}

static uint64_t seq;

static void emit(struct fk_cap_buf *b, uint16_t type)
{
	struct fk_cap_buf out = { 0 };
	fk_cap_chunk_encode(&out, type, seq++, b->p, b->len);
	fwrite(out.p, 1, out.len, stdout);
	fk_cap_buf_free(&out);
	b->len = 0;
}

static int module_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	struct fk_cap_buf *b = ctx;
	char exe[4096];
	const char *name = info->dlpi_name;
	if (!name || !*name) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = 0;
		name = exe;
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD) {
			uint64_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			lo = a < lo ? a : lo;
			hi = a + info->dlpi_phdr[i].p_memsz > hi ? a + info->dlpi_phdr[i].p_memsz : hi;
		}
	fk_cap_put_string(b, name, strlen(name));
	fk_cap_put_uvarint(b, lo);
	fk_cap_put_uvarint(b, hi);
	fk_cap_put_uvarint(b, info->dlpi_addr);
	fk_cap_put_string(b, "", 0);
	return 0;
}

#define NODES 20000

static void put_str(struct fk_cap_buf *b, const char *s)
{
	fk_cap_put_string(b, s, strlen(s));
}

/* An NVTX push or pop on thread 1 at time at. */
static void nvtx_rec(struct fk_cap_buf *b, uint64_t *t, uint8_t op, uint64_t at, const char *name)
{
	fk_cap_put_u8(b, op);
	fk_cap_put_uvarint(b, 1);
	fk_cap_put_svarint(b, (int64_t)(at - *t));
	*t = at;
	fk_cap_put_uvarint(b, 0);
	put_str(b, name);
}

/* --cuda: everything but the samples' base layout, see the top comment.
 * Per thread, a sample every period of 1001001 ns of its clock (some
 * weighing 2 or 3 periods), with a 5 ms pause every 64 samples. */
static void cuda_program(struct fk_cap_buf *b, uint64_t start, unsigned long long samples)
{
	static const char *const kernels[] = {
		"_Z10vector_addPfS_S_i", "relu_kernel", "gemm<float, 128>",
		"odd \"quoted\" \\ name;with semicolon \xff\xfe end",
	};
	put_str(b, "command"), put_str(b, "gencap --cuda (a synthetic CUDA program)");
	put_str(b, "gpu"), put_str(b, "on (gencap)");
	put_str(b, "gpu_clock"), put_str(b, "monotonic");
	emit(b, FK_CAP_META);
	fk_cap_put_uvarint(b, 2), put_str(b, "worker");
	fk_cap_put_uvarint(b, 3), put_str(b, "loader \"3\"");
	emit(b, FK_CAP_THREADS);
	for (size_t i = 0; i < sizeof kernels / sizeof *kernels; i++) {
		fk_cap_put_u8(b, FK_CAP_GPU_NAME);
		fk_cap_put_uvarint(b, i + 1);
		put_str(b, kernels[i]);
	}
	emit(b, FK_CAP_GPU_KERNELS);
	struct fk_cap_buf api = { 0 }, ops = { 0 }, nvtx = { 0 }, allocs = { 0 }, gmem = { 0 };
	uint64_t stream_end[2][2] = { { 0 } }, t = start, api_t = start, nvtx_t = start,
		 alloc_t = start, live_gpu[64] = { 0 }, live_host[64] = { 0 };
	uint64_t clock[3] = { start, start + 1000, start + 2000 };
	uint32_t corr = 0;
	unsigned long long done = 0;
	while (done < samples) {
		unsigned long long n = samples - done < 30000 ? samples - done : 30000;
		fk_cap_put_uvarint(b, t);
		fk_cap_put_uvarint(&api, api_t);
		fk_cap_put_uvarint(&nvtx, nvtx_t);
		fk_cap_put_uvarint(&allocs, alloc_t);
		uint64_t prev = t;
		for (unsigned long long i = done; i < done + n; i++) {
			uint32_t tid = 1 + (uint32_t)(i % 3);
			/* A thread's clock: as much time as the sample stands for. */
			uint64_t weight = i % 7 == 3 ? 2 + next() % 2 : 1;
			clock[tid - 1] += weight * 1001001 + (i % 192 == 189 ? 5000000 : 0);
			uint64_t at = clock[tid - 1];
			t = at > t ? at : t;
			uint32_t node = 1 + (uint32_t)(next() % NODES);
			fk_cap_put_uvarint(b, tid);
			fk_cap_put_uvarint(b, node);
			fk_cap_put_uvarint(b, weight);
			fk_cap_put_svarint(b, (int64_t)(at - prev));
			prev = at;
			if (tid == 1 && i % 96 == 0) { /* a step: forward, then backward */
				nvtx_rec(&nvtx, &nvtx_t, FK_CAP_NVTX_PUSH, at + 100, "step");
				nvtx_rec(&nvtx, &nvtx_t, FK_CAP_NVTX_PUSH, at + 200, "forward \"fwd\"");
			} else if (tid == 1 && i % 96 == 48) {
				nvtx_rec(&nvtx, &nvtx_t, FK_CAP_NVTX_POP, at + 100, "");
				nvtx_rec(&nvtx, &nvtx_t, FK_CAP_NVTX_PUSH, at + 200, "backward");
			} else if (tid == 1 && i % 96 == 93) {
				nvtx_rec(&nvtx, &nvtx_t, FK_CAP_NVTX_POP, at + 100, "");
				nvtx_rec(&nvtx, &nvtx_t, FK_CAP_NVTX_POP, at + 200, "");
			}
			if (i % 8 != 5)
				continue;
			/* An API call on this thread, at a stack of its own, and its op. */
			uint8_t tag = i % 40 == 5 ? FK_CAP_GPU_MEMCPY : i % 40 == 13 ? FK_CAP_GPU_MEMSET
				      : FK_CAP_GPU_KERNEL;
			uint32_t cbid = tag == FK_CAP_GPU_MEMCPY ? 41 : tag == FK_CAP_GPU_MEMSET ? 51 : 211;
			uint64_t call = at + 200;
			corr++;
			fk_cap_put_u8(&api, FK_CAP_API_CALL);
			fk_cap_put_uvarint(&api, tid);
			fk_cap_put_uvarint(&api, corr);
			fk_cap_put_u8(&api, 1);
			fk_cap_put_uvarint(&api, cbid);
			fk_cap_put_uvarint(&api, 1 + next() % NODES);
			fk_cap_put_svarint(&api, (int64_t)(call - api_t));
			api_t = call;
			uint32_t dev = corr % 2, st = (corr / 2) % 2;
			uint64_t op_start = call + 3000 > stream_end[dev][st] ? call + 3000 : stream_end[dev][st];
			uint64_t dur = 1000 + next() % 20000;
			stream_end[dev][st] = op_start + dur + 500;
			/* One op in 200 names no API call: its launch was lost. */
			uint32_t op_corr = corr % 200 == 7 ? corr + 100000000 : corr;
			fk_cap_put_u8(&ops, tag);
			fk_cap_put_uvarint(&ops, op_corr);
			if (tag == FK_CAP_GPU_MEMCPY)
				fk_cap_put_uvarint(&ops, 0); /* runtime correlation */
			fk_cap_put_uvarint(&ops, dev);
			fk_cap_put_uvarint(&ops, 7 + st);
			fk_cap_put_uvarint(&ops, op_start);
			fk_cap_put_uvarint(&ops, dur);
			if (tag == FK_CAP_GPU_KERNEL) {
				fk_cap_put_uvarint(&ops, 1 + corr % 4);
				fk_cap_put_uvarint(&ops, 0);
			} else {
				fk_cap_put_uvarint(&ops, 4096 + corr);
				if (tag == FK_CAP_GPU_MEMCPY)
					fk_cap_put_u8(&ops, 1); /* HtoD */
			}
			if (corr % 64 == 1) { /* a synchronization: no device, no stream */
				fk_cap_put_u8(&ops, FK_CAP_GPU_SYNC);
				fk_cap_put_uvarint(&ops, corr);
				fk_cap_put_uvarint(&ops, op_start + dur);
				fk_cap_put_uvarint(&ops, 700);
				fk_cap_put_u8(&ops, 3);
			}
			/* GPU memory: a block per 16 calls on either device, freed 128
			 * calls later. */
			size_t slot = corr / 16 % 8;
			if (corr % 16 == 0) {
				fk_cap_put_u8(&gmem, live_gpu[slot] ? FK_CAP_FREE : FK_CAP_ALLOC);
				fk_cap_put_uvarint(&gmem, corr);
				fk_cap_put_uvarint(&gmem, slot % 2);
				fk_cap_put_uvarint(&gmem, 0x7f0000000000ull + slot * 0x100000);
				fk_cap_put_uvarint(&gmem, 1 << 20);
				fk_cap_put_uvarint(&gmem, call + 100);
				fk_cap_put_u8(&gmem, 3); /* device memory */
				fk_cap_put_u8(&gmem, 0);
				live_gpu[slot] = !live_gpu[slot];
			}
			/* Host memory, on the worker: one allocation or free per call. */
			size_t hs = corr % 64;
			fk_cap_put_u8(&allocs, live_host[hs] ? FK_CAP_FREE : FK_CAP_ALLOC);
			fk_cap_put_svarint(&allocs, (int64_t)(call - alloc_t));
			alloc_t = call;
			fk_cap_put_uvarint(&allocs, 2);
			fk_cap_put_uvarint(&allocs, 0x5500000000ull + hs * 4096);
			if (!live_host[hs]) {
				fk_cap_put_uvarint(&allocs, 100 + corr % 1000);
				fk_cap_put_uvarint(&allocs, 1 + next() % NODES);
			}
			live_host[hs] = !live_host[hs];
		}
		emit(b, FK_CAP_SAMPLES);
		emit(&api, FK_CAP_GPU_API);
		emit(&ops, FK_CAP_GPU_KERNELS);
		emit(&nvtx, FK_CAP_NVTX);
		emit(&allocs, FK_CAP_ALLOCS);
		if (gmem.len)
			emit(&gmem, FK_CAP_GPU_MEMORY);
		done += n;
	}
	/* A mark and an epoch-long start/end range on the loader thread. */
	fk_cap_put_uvarint(&nvtx, start);
	fk_cap_put_u8(&nvtx, FK_CAP_NVTX_START), fk_cap_put_uvarint(&nvtx, 3);
	fk_cap_put_svarint(&nvtx, 0), fk_cap_put_uvarint(&nvtx, 1), put_str(&nvtx, "epoch 1");
	fk_cap_put_u8(&nvtx, FK_CAP_NVTX_MARK), fk_cap_put_uvarint(&nvtx, 3);
	fk_cap_put_svarint(&nvtx, 5000), fk_cap_put_uvarint(&nvtx, 0), put_str(&nvtx, "checkpoint <saved>");
	fk_cap_put_u8(&nvtx, FK_CAP_NVTX_END), fk_cap_put_uvarint(&nvtx, 3);
	fk_cap_put_svarint(&nvtx, (int64_t)(t - start - 5000)), fk_cap_put_uvarint(&nvtx, 1);
	put_str(&nvtx, "");
	emit(&nvtx, FK_CAP_NVTX);
	fk_cap_buf_free(&api), fk_cap_buf_free(&ops), fk_cap_buf_free(&nvtx);
	fk_cap_buf_free(&allocs), fk_cap_buf_free(&gmem);
}

int main(int argc, char **argv)
{
	bool cuda = argc == 3 && strcmp(argv[1], "--cuda") == 0;
	if (argc != 2 && !cuda) {
		fprintf(stderr, "usage: gencap [--cuda] SAMPLES > file.stackcap\n");
		return 2;
	}
	argv += cuda;
	unsigned long long samples = strtoull(argv[1], NULL, 10);
	/* --cuda: a pid no GPU track has (Kineto's GPU tracks are pid = device). */
	struct fk_cap_header h = { .version = FK_CAP_VERSION, .pid = cuda ? 4242 : 1,
				   .start_mono_ns = 1000000000,
				   .start_real_ns = 1763900000000000000ull, .sample_hz = 999,
				   .flags = cuda ? FK_CAP_HDR_ALLOCS : 0 };
	uint8_t hdr[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(hdr, &h);
	fwrite(hdr, 1, sizeof hdr, stdout);
	struct fk_cap_buf b = { 0 };
	dl_iterate_phdr(module_cb, &b);
	emit(&b, FK_CAP_MODULES);
	fk_cap_put_uvarint(&b, 1);
	fk_cap_put_string(&b, "bench", 5);
	emit(&b, FK_CAP_THREADS);
	/* A tree of NODES nodes: each under a random earlier one, at addresses
	 * spread over libc and this program. */
	const uint8_t *text[] = { (const uint8_t *)main, (const uint8_t *)printf,
				  (const uint8_t *)qsort, (const uint8_t *)memcpy };
	fk_cap_put_uvarint(&b, 1);
	for (uint32_t id = 1; id <= NODES; id++) {
		uint32_t parent = id < 8 ? 0 : (uint32_t)(next() % (id - 1)) + 1;
		fk_cap_put_uvarint(&b, parent);
		fk_cap_put_uvarint(&b, (uint64_t)(uintptr_t)(text[next() % 4] + next() % 512));
	}
	emit(&b, FK_CAP_STACKS);
	uint64_t t = h.start_mono_ns;
	if (cuda) {
		cuda_program(&b, t, samples);
		samples = 0;
	}
	while (samples > 0) {
		unsigned long long n = samples < 50000 ? samples : 50000;
		fk_cap_put_uvarint(&b, t);
		for (unsigned long long i = 0; i < n; i++) {
			fk_cap_put_uvarint(&b, 1);
			fk_cap_put_uvarint(&b, 1 + next() % NODES);
			fk_cap_put_uvarint(&b, 1 + next() % 3);
			fk_cap_put_svarint(&b, 1001001);
		}
		t += n * 1001001;
		emit(&b, FK_CAP_SAMPLES);
		samples -= n;
	}
	for (int i = 0; i < 4; i++) /* END: samples, events, drops, untracked */
		fk_cap_put_uvarint(&b, i == 0 ? strtoull(argv[1], NULL, 10) : 0);
	emit(&b, FK_CAP_END);
	fk_cap_buf_free(&b);
	return 0;
}
