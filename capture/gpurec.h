/* gpurec.h - CUPTI activity records into capture payloads: the pure layer
 * between CUPTI's buffers and the capture file. It reads records (kernels,
 * memcpy, memset, MEMORY2 allocations and frees, synchronization,
 * overhead), interns kernel names, counts what has no timestamp, and
 * appends GPU_KERNELS and GPU_MEMORY records (formats/CAPTURE.md). No CUPTI
 * calls: buffers are walked with a next-record function the caller passes
 * (cuptiActivityGetNextRecord in the shim, the same in tests over buffers
 * built by hand). Also the trimming of API stacks: CUPTI's own frames.
 *
 * Owns: the payload buffers and the name table in struct gpu_emit.
 */
#ifndef STACKCAP_GPUREC_H
#define STACKCAP_GPUREC_H

#include <cupti.h>

#include "formats/capture.h"

struct gpu_name {
	const char *p; /* a copy */
	uint32_t id;   /* 0: empty slot */
};

struct gpu_emit {
	struct fk_cap_buf kernels, memory; /* GPU_KERNELS and GPU_MEMORY payloads */
	struct gpu_name *names;
	size_t names_mask;
	uint32_t next_name;
	uint64_t records, no_timestamp, overhead, unknown;
};

typedef CUptiResult (*gpu_next_record_fn)(uint8_t *buffer, size_t valid, CUpti_Activity **record);

/* One record into the payloads. */
void gpu_emit_record(struct gpu_emit *e, const CUpti_Activity *r);
/* Every record of a buffer; returns how many. */
size_t gpu_walk_buffer(struct gpu_emit *e, uint8_t *buffer, size_t valid,
		       gpu_next_record_fn next);
/* Records CUPTI dropped (no buffer): a GPU_KERNELS record. */
void gpu_emit_dropped(struct gpu_emit *e, uint64_t dropped);
/* Hands the payloads over (empties them; names stay interned). */
void gpu_emit_take(struct gpu_emit *e, struct fk_cap_buf *kernels, struct fk_cap_buf *memory);
void gpu_emit_free(struct gpu_emit *e);

/* Code that runs between a CUDA API call and the shim's callback: CUPTI's
 * dispatch, in libcupti and libcuda. */
struct gpu_code {
	uintptr_t lo, hi;
};
/* Drops the frames of ips (leaf first) that lie in any of code, from the
 * leaf up to the first that does not: what is left ends at the runtime
 * API call (cudaLaunchKernel), or at the caller of a driver API call
 * (cuLaunchKernel is libcuda's own code). Returns how many are left. */
uint32_t gpu_drop_dispatch_frames(uint64_t *ips, uint32_t n, const struct gpu_code *code,
				  size_t ncode);

#endif
