/* chromeexport.h - stackcap captures as one Chrome / Perfetto trace (the
 * JSON object form torch.profiler's export_chrome_trace writes, with
 * Kineto's categories and args, so flamekit's own trace reader, HTA,
 * ui.perfetto.dev and chrome://tracing read it):
 *
 * - per process (pid) and thread (tid): the CPU samples as nested "X"
 *   slices (cat cpu_op), laid out as analysis/capture/slices.h says; CUDA
 *   API calls with their host stacks (cat cuda_runtime / cuda_driver, args
 *   cbid and correlation); NVTX push/pop ranges as "B"/"E", marks as "i",
 *   start/end ranges as async "b"/"e" (cat nvtx);
 * - kernels, copies and sets on pid = device, tid = stream (cat kernel,
 *   gpu_memcpy, gpu_memset; args device, stream, correlation, bytes), each
 *   with an "ac2g" flow ("s" at its launch, "f" with bp "e" at the op);
 * - host and GPU memory: torch's "[memory]" instants (args Device Type,
 *   Device Id, Addr, Bytes, Total Allocated) and "C" counters of what is
 *   allocated;
 * - process_name / thread_name metadata, deviceProperties, and under
 *   "flamekit" each capture's file, command, end and losses.
 * Times are CLOCK_MONOTONIC ns as microseconds with exact decimals,
 * relative to the earliest record (baseTimeNanoseconds: its epoch time).
 * Several captures share one time line; each one's correlation ids after
 * the first are offset by k * 2^32 so flows and links stay within it.
 *
 * Owns: nothing past a call; writes into the caller's sink.
 */
#ifndef FK_CHROMEEXPORT_H
#define FK_CHROMEEXPORT_H

#include "analysis/capture/model.h"
#include "formats/sink.h"

struct fk_chrome_capture {
	const char *name;          /* for the metadata and messages */
	const struct fk_capture *c; /* loaded with its samples */
};

struct fk_chrome_stats {
	uint64_t events;           /* trace events written */
	uint64_t gpu_ops, flows;
	uint64_t syncs;            /* CUDA synchronizations: no device or stream, not drawn */
	uint64_t unknown_frees;    /* host frees of blocks never seen allocated: not drawn */
	uint64_t no_launch;        /* GPU ops whose launching call is not in the capture */
	uint64_t unmatched_pops;   /* NVTX pops with no push open: not drawn */
	uint64_t unclosed_ranges;  /* NVTX pushes never popped: end with their thread */
};

/* Writes the trace of captures in[0..n) to s. Frame names as
 * fk_capture_fold makes them with o (its metric, threads and nvtx are not
 * used). false when out of memory (reported). */
bool fk_chrome_write(struct fk_sink *s, const struct fk_chrome_capture *in, size_t n,
		     const struct fk_cap_fold_opts *o, struct fk_chrome_stats *st,
		     struct fk_diag *d);

#endif
