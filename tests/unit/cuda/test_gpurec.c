/* test_gpurec.c - the CUDA side without a GPU: CUPTI activity records built
 * by hand, walked with the real cuptiActivityGetNextRecord (libcupti loads
 * and works without a driver), turned into capture payloads by
 * capture/gpurec.c; then a capture holding them, read back and folded:
 * GPU time per launching stack (kernel names as leaves, interned once),
 * driver calls linked to their runtime call, a record whose call was never
 * seen, records without timestamps, CUPTI's overhead data freed, GPU
 * allocations per stack and as a memory timeline of device 0, and the
 * reserved memory a cudaMallocAsync pool adds, and a kernel replayed from
 * a CUDA graph charged to the code that captured its node.
 * Built only where the CUDA toolkit's headers are (Makefile).
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/capture/model.h"
#include "capture/gpurec.h"
#include "../fold_text.h"

static gpu_next_record_fn next_record;

static int load_cupti(void **state)
{
	(void)state;
	static const char *const names[] = { "libcupti.so.13", "/usr/local/cuda/lib64/libcupti.so.13",
					     "/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13" };
	for (size_t i = 0; i < sizeof names / sizeof *names && !next_record; i++) {
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (h)
			*(void **)&next_record = dlsym(h, "cuptiActivityGetNextRecord");
	}
	return 0;
}

/* Records packed back to back, as CUPTI fills its buffers. */
struct buffer {
	_Alignas(8) uint8_t bytes[4096];
	size_t len;
};

static void put(struct buffer *b, const void *rec, size_t size)
{
	assert_true(b->len + size <= sizeof b->bytes);
	memcpy(b->bytes + b->len, rec, size);
	b->len += (size + 7) & ~(size_t)7;
}

/* k2_name: the same text as k1's at another address (CUPTI shares some
 * name pointers, not all): still one name in the capture. */
static void build(struct buffer *b, void **overhead_data, const char *k2_name)
{
	memset(b, 0, sizeof *b);
	CUpti_ActivityKernel10 k1 = { .kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, .start = 1000,
				      .end = 1250, .correlationId = 7, .name = "gelu_kernel" };
	CUpti_ActivityKernel10 k2 = k1;
	k2.start = 2000, k2.end = 2250, k2.correlationId = 8;
	k2.name = k2_name;
	CUpti_ActivityKernel10 lost = k1;
	lost.start = lost.end = 0, lost.correlationId = 13; /* CUPTI ran out of device buffers */
	CUpti_ActivityMemcpy6 copy = { .kind = CUPTI_ACTIVITY_KIND_MEMCPY, .copyKind = 1,
				       .bytes = 4096, .start = 3000, .end = 3400,
				       .correlationId = 9, .runtimeCorrelationId = 0 };
	CUpti_ActivityMemset4 set = { .kind = CUPTI_ACTIVITY_KIND_MEMSET, .bytes = 64,
				      .start = 4000, .end = 4010, .correlationId = 11 };
	/* Replayed from a CUDA graph: node 0x500 (a clone of 0x400), launched
	 * by call 30. */
	CUpti_ActivityKernel10 replay = k1;
	replay.start = 7000, replay.end = 7050, replay.correlationId = 30;
	replay.name = "graph_kernel", replay.graphNodeId = 0x500;
	CUpti_ActivityKernel10 orphan = k1;
	orphan.start = 5000, orphan.end = 5100, orphan.correlationId = 99, orphan.name = "lonely";
	CUpti_ActivityMemory4 alloc = { .kind = CUPTI_ACTIVITY_KIND_MEMORY2,
					.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION,
					.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
					.correlationId = 12, .address = 0x7000, .bytes = 1 << 20,
					.timestamp = 1500, .deviceId = 0 };
	CUpti_ActivityMemory4 release = alloc;
	release.memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
	release.timestamp = 6000, release.correlationId = 14;
	/* cudaMallocHost's 16 MiB: host memory, never in the GPU's. */
	CUpti_ActivityMemory4 pinned = alloc;
	pinned.memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
	pinned.address = 0xa000, pinned.bytes = 16 << 20, pinned.correlationId = 12;
	/* A cudaMallocAsync pool of 64 MiB, created before the 1 MiB cudaMalloc:
	 * reserved peaks at 65 MiB. */
	CUpti_ActivityMemoryPool3 pool = { .kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL,
					   .memoryPoolOperationType =
						   CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED,
					   .address = 0x9000, .size = 64 << 20, .timestamp = 1200 };
	*overhead_data = malloc(32); /* ours to free, says CUPTI 13 */
	CUpti_ActivityOverhead3 over = { .kind = CUPTI_ACTIVITY_KIND_OVERHEAD, .start = 10,
					 .end = 20, .overheadData = *overhead_data };
	put(b, &k1, sizeof k1);
	put(b, &k2, sizeof k2);
	put(b, &lost, sizeof lost);
	put(b, &copy, sizeof copy);
	put(b, &set, sizeof set);
	put(b, &orphan, sizeof orphan);
	put(b, &alloc, sizeof alloc);
	put(b, &pinned, sizeof pinned);
	put(b, &release, sizeof release);
	put(b, &over, sizeof over);
	put(b, &pool, sizeof pool);
	put(b, &replay, sizeof replay);
}

static void test_walk_real_cupti(void **state)
{
	(void)state;
	if (!next_record)
		skip();
	struct buffer b;
	void *overhead;
	char *name = strdup("gelu_kernel");
	build(&b, &overhead, name);
	struct gpu_emit e = { 0 };
	assert_int_equal(gpu_walk_buffer(&e, b.bytes, b.len, next_record), 12);
	free(name);
	assert_int_equal(e.records, 12);
	assert_int_equal(e.no_timestamp, 1);
	assert_int_equal(e.overhead, 1);
	assert_int_equal(e.next_name, 3); /* gelu_kernel once, lonely, graph_kernel */
	struct fk_cap_buf kernels, memory;
	gpu_emit_take(&e, &kernels, &memory);
	/* The first record defines the name, the kernels use it. */
	struct fk_cap_cursor c = { kernels.p, kernels.p + kernels.len, false };
	assert_int_equal(fk_cap_get_u8(&c), FK_CAP_GPU_NAME);
	assert_int_equal(fk_cap_get_uvarint(&c), 1);
	size_t len;
	const uint8_t *text = fk_cap_get_bytes(&c, &len);
	assert_int_equal(len, 11);
	assert_memory_equal(text, "gelu_kernel", 11);
	assert_int_equal(fk_cap_get_u8(&c), FK_CAP_GPU_KERNEL);
	assert_int_equal(fk_cap_get_uvarint(&c), 7);   /* correlation */
	fk_cap_get_uvarint(&c), fk_cap_get_uvarint(&c); /* device, stream */
	assert_int_equal(fk_cap_get_uvarint(&c), 1000); /* start */
	assert_int_equal(fk_cap_get_uvarint(&c), 250);  /* duration */
	assert_int_equal(fk_cap_get_uvarint(&c), 1);    /* name id */
	fk_cap_get_uvarint(&c);
	assert_int_equal(fk_cap_get_u8(&c), FK_CAP_GPU_KERNEL); /* no second NAME */
	assert_false(c.bad);
	assert_true(memory.len > 0);
	fk_cap_buf_free(&kernels);
	fk_cap_buf_free(&memory);
	gpu_emit_free(&e);
}

/* ---- a capture with GPU chunks, read and folded ---- */

static uint64_t seq;

static void chunk(struct fk_cap_buf *file, uint16_t type, struct fk_cap_buf *payload)
{
	assert_true(fk_cap_chunk_encode(file, type, seq++, payload->p, payload->len));
	payload->len = 0;
}

/* kernels_first: the GPU records land in the file before the API calls
 * that made them (CUPTI delivers buffers late, or early): same result. */
static char *write_capture(bool kernels_first, bool broken_clone)
{
	struct buffer b;
	void *overhead;
	char *name = strdup("gelu_kernel");
	build(&b, &overhead, name);
	struct gpu_emit e = { 0 };
	gpu_walk_buffer(&e, b.bytes, b.len, next_record);
	free(name);
	struct fk_cap_buf kernels, memory, file = { 0 }, p = { 0 };
	gpu_emit_take(&e, &kernels, &memory);
	struct fk_cap_header h = { .version = FK_CAP_VERSION, .pid = 1, .sample_hz = 999,
				   .start_mono_ns = 1000, .start_real_ns = 1000 };
	uint8_t hdr[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(hdr, &h);
	fk_cap_put_bytes(&file, hdr, sizeof hdr);
	seq = 0;
	fk_cap_put_string(&p, "gpu", 3);
	fk_cap_put_string(&p, "on (test)", 9);
	fk_cap_put_string(&p, "gpu_clock", 9);
	fk_cap_put_string(&p, "monotonic", 9);
	chunk(&file, FK_CAP_META, &p);
	/* Stacks: 1 = [a], 2 = [a, b] (no modules: frames are "[unknown]"). */
	fk_cap_put_uvarint(&p, 1);
	fk_cap_put_uvarint(&p, 0), fk_cap_put_uvarint(&p, 0x10);
	fk_cap_put_uvarint(&p, 1), fk_cap_put_uvarint(&p, 0x20);
	chunk(&file, FK_CAP_STACKS, &p);
	/* Calls: 7 and 8 launched from stack 2, 12 allocated from stack 1, 11
	 * (memset) from stack 1; driver call 9 ran inside runtime call 20,
	 * made from stack 2. 99 was never seen. */
	fk_cap_put_uvarint(&p, 100);
	static const uint32_t calls[][2] = { { 7, 2 }, { 8, 2 }, { 12, 1 }, { 11, 1 }, { 20, 2 } };
	for (size_t i = 0; i < 5; i++) {
		fk_cap_put_u8(&p, FK_CAP_API_CALL);
		fk_cap_put_uvarint(&p, 42);
		fk_cap_put_uvarint(&p, calls[i][0]);
		fk_cap_put_u8(&p, 1);
		fk_cap_put_uvarint(&p, 211);
		fk_cap_put_uvarint(&p, calls[i][1]);
		fk_cap_put_svarint(&p, 10);
	}
	fk_cap_put_u8(&p, FK_CAP_API_LINK);
	fk_cap_put_uvarint(&p, 9), fk_cap_put_uvarint(&p, 20);
	/* The graph: launched by call 30 from stack 1, but its node 0x400 was
	 * captured at stack 2 and cloned as 0x500 when instantiated. */
	fk_cap_put_u8(&p, FK_CAP_API_CALL);
	fk_cap_put_uvarint(&p, 42), fk_cap_put_uvarint(&p, 30), fk_cap_put_u8(&p, 1);
	fk_cap_put_uvarint(&p, 311), fk_cap_put_uvarint(&p, 1), fk_cap_put_svarint(&p, 10);
	fk_cap_put_u8(&p, FK_CAP_API_GRAPH_NODE);
	fk_cap_put_uvarint(&p, 0x400), fk_cap_put_uvarint(&p, 42), fk_cap_put_uvarint(&p, 2);
	/* As CUDA 13 reports instantiation: the clone as a node made there
	 * (at stack 1), then as cloned. */
	fk_cap_put_u8(&p, FK_CAP_API_GRAPH_NODE);
	fk_cap_put_uvarint(&p, 0x500), fk_cap_put_uvarint(&p, 42), fk_cap_put_uvarint(&p, 1);
	fk_cap_put_u8(&p, FK_CAP_API_GRAPH_CLONE);
	fk_cap_put_uvarint(&p, 0x500), fk_cap_put_uvarint(&p, 0x400);
	if (kernels_first) {
		chunk(&file, FK_CAP_GPU_KERNELS, &kernels);
		chunk(&file, FK_CAP_GPU_MEMORY, &memory);
		chunk(&file, FK_CAP_GPU_API, &p);
	} else {
		chunk(&file, FK_CAP_GPU_API, &p);
		chunk(&file, FK_CAP_GPU_KERNELS, &kernels);
		chunk(&file, FK_CAP_GPU_MEMORY, &memory);
	}
	if (broken_clone) {
		/* 0x600, cloned from a node the capture never saw, made at
		 * instantiation at stack 2: its kernel (launched by call 30, from
		 * stack 1) goes to stack 2. */
		fk_cap_put_uvarint(&p, 100);
		fk_cap_put_u8(&p, FK_CAP_API_GRAPH_NODE);
		fk_cap_put_uvarint(&p, 0x600), fk_cap_put_uvarint(&p, 42), fk_cap_put_uvarint(&p, 2);
		fk_cap_put_u8(&p, FK_CAP_API_GRAPH_CLONE);
		fk_cap_put_uvarint(&p, 0x600), fk_cap_put_uvarint(&p, 0x999);
		chunk(&file, FK_CAP_GPU_API, &p);
		fk_cap_put_u8(&p, FK_CAP_GPU_KERNEL);
		fk_cap_put_uvarint(&p, 30), fk_cap_put_uvarint(&p, 0), fk_cap_put_uvarint(&p, 0);
		fk_cap_put_uvarint(&p, 8000), fk_cap_put_uvarint(&p, 100); /* start, duration */
		fk_cap_put_uvarint(&p, 1), fk_cap_put_uvarint(&p, 0x600); /* gelu_kernel, node */
		chunk(&file, FK_CAP_GPU_KERNELS, &p);
	}
	for (int i = 0; i < 4; i++)
		fk_cap_put_uvarint(&p, 0);
	chunk(&file, FK_CAP_END, &p);
	char *path = strdup("/tmp/test_gpurec_XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, file.p, file.len), (ssize_t)file.len);
	close(fd);
	fk_cap_buf_free(&file);
	fk_cap_buf_free(&p);
	fk_cap_buf_free(&kernels);
	fk_cap_buf_free(&memory);
	gpu_emit_free(&e);
	return path;
}

static char *fold(const struct fk_capture *c, enum fk_cap_metric m, bool no_kernels)
{
	struct fk_cap_fold_opts o = { .metric = m, .no_kernel_frames = no_kernels };
	return fold_text(c, &o);
}

static void check_capture(bool kernels_first)
{
	char *path = write_capture(kernels_first, false);
	struct fk_diag d;
	fk_diag_init(&d, "test");
	struct fk_capture c;
	assert_true(fk_capture_load(path, "t", &c, &d));
	assert_string_equal(c.gpu_status, "on (test)");
	assert_true(c.gpu_monotonic);
	assert_int_equal(c.gpu_no_timestamp, 1);
	assert_int_equal(c.cuda_host_allocs, 1);
	assert_int_equal(c.cuda_host_bytes, 16 << 20);
	char *text = fold(&c, FK_METRIC_SELF_CUDA, false);
	/* Two 250 ns kernels from stack 2; the copy through its runtime call
	 * (stack 2); the memset from stack 1; the kernel of call 99 has none. */
	assert_string_equal(text, "[no host stack];lonely 0.1\n"
				  "[unknown];[memset] 0.01\n"
				  "[unknown];[unknown];[memcpy HtoD] 0.4\n"
				  "[unknown];[unknown];gelu_kernel 0.5\n"
				  "[unknown];[unknown];graph_kernel 0.05\n");
	free(text);
	text = fold(&c, FK_METRIC_SELF_CUDA, true);
	assert_string_equal(text, "[no host stack] 0.1\n[unknown] 0.01\n[unknown];[unknown] 0.95\n");
	free(text);
	text = fold(&c, FK_METRIC_GPU_ALLOC_BYTES, false);
	assert_string_equal(text, "[unknown] 1048576\n");
	free(text);
	assert_int_equal(fk_capture_max_reserved(&c, 0), (64 << 20) + (1 << 20));
	assert_int_equal(fk_capture_max_reserved(&c, 1), -1); /* no pool seen there */
	struct fk_mem_timeline tl;
	fk_mem_init(&tl);
	assert_true(fk_capture_memory(&c, 0, &tl, &d));
	assert_int_equal(tl.count, 2);
	struct fk_mem_event ev;
	fk_mem_get(&tl, 0, &ev);
	assert_int_equal(ev.action, FK_MEM_CREATE);
	assert_int_equal(ev.device, 0);
	assert_int_equal(ev.bytes, 1 << 20);
	assert_int_equal(ev.address, 0x7000);
	assert_string_equal(fk_mem_stack_text(&tl, ev.stack)->p, "[unknown]");
	fk_mem_get(&tl, 1, &ev);
	assert_int_equal(ev.action, FK_MEM_DESTROY);
	fk_mem_free(&tl);
	fk_capture_free(&c);
	unlink(path);
	free(path);
}

static void test_capture_gpu_fold(void **state)
{
	(void)state;
	if (!next_record)
		skip();
	check_capture(false);
}

static void test_capture_gpu_records_before_calls(void **state)
{
	(void)state;
	if (!next_record)
		skip();
	check_capture(true);
}

/* A clone whose original the capture lacks: its kernel goes to where the
 * clone was made (instantiation), not to the graph launch. */
static void test_capture_graph_clone_of_unseen_node(void **state)
{
	(void)state;
	if (!next_record)
		skip();
	char *path = write_capture(false, true);
	struct fk_diag d;
	fk_diag_init(&d, "test");
	struct fk_capture c;
	assert_true(fk_capture_load(path, "t", &c, &d));
	char *text = fold(&c, FK_METRIC_SELF_CUDA, false);
	assert_non_null(strstr(text, "\n[unknown];[unknown];gelu_kernel 0.6\n"));
	assert_null(strstr(text, "\n[unknown];gelu_kernel"));
	free(text);
	fk_capture_free(&c);
	unlink(path);
	free(path);
}

/* CUPTI's count of records it dropped (no buffer) reaches the capture. */
static void test_dropped_records(void **state)
{
	(void)state;
	struct gpu_emit e = { 0 };
	gpu_emit_dropped(&e, 0);
	gpu_emit_dropped(&e, 17);
	struct fk_cap_buf kernels, memory;
	gpu_emit_take(&e, &kernels, &memory);
	struct fk_cap_cursor c = { kernels.p, kernels.p + kernels.len, false };
	assert_int_equal(fk_cap_get_u8(&c), FK_CAP_GPU_DROPPED);
	assert_int_equal(fk_cap_get_uvarint(&c), 17);
	assert_false(fk_cap_more(&c));
	fk_cap_buf_free(&kernels);
	fk_cap_buf_free(&memory);
	gpu_emit_free(&e);
}

/* An API stack loses the frames of CUPTI's dispatch at its leaf end, and
 * only those: the same code further out is the program's. */
static void test_drop_dispatch_frames(void **state)
{
	(void)state;
	const struct gpu_code code[2] = { { 0x1000, 0x2000 }, { 0x5000, 0x6000 } };
	uint64_t ips[] = { 0x1100, 0x5100, 0x1fff, 0x3000, 0x4000, 0x5200 };
	assert_int_equal(gpu_drop_dispatch_frames(ips, 6, code, 2), 3);
	assert_int_equal(ips[0], 0x3000);
	assert_int_equal(ips[1], 0x4000);
	assert_int_equal(ips[2], 0x5200);
	uint64_t none[] = { 0x2000, 0x1000 }; /* 0x2000: just past the first range */
	assert_int_equal(gpu_drop_dispatch_frames(none, 2, code, 2), 2);
	assert_int_equal(none[0], 0x2000);
	uint64_t all[] = { 0x1000, 0x5fff };
	assert_int_equal(gpu_drop_dispatch_frames(all, 2, code, 2), 0);
	assert_int_equal(gpu_drop_dispatch_frames(all, 0, code, 2), 0);
	const struct gpu_code unknown[1] = { { 0, 0 } }; /* a range not found */
	assert_int_equal(gpu_drop_dispatch_frames(none, 2, unknown, 1), 2);
}

int main(int argc, char **argv)
{
	/* --write-capture PATH: the capture the fold tests read, for the CLI
	 * tests (tests/e2e/table.sh) */
	if (argc == 3 && strcmp(argv[1], "--write-capture") == 0) {
		load_cupti(NULL);
		char *path = write_capture(false, false);
		int rc = rename(path, argv[2]) == 0 ? 0 : 1;
		free(path);
		return rc;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_walk_real_cupti),
		cmocka_unit_test(test_capture_gpu_fold),
		cmocka_unit_test(test_capture_gpu_records_before_calls),
		cmocka_unit_test(test_capture_graph_clone_of_unseen_node),
		cmocka_unit_test(test_dropped_records),
		cmocka_unit_test(test_drop_dispatch_frames),
	};
	return cmocka_run_group_tests(tests, load_cupti, NULL);
}
