/* slices.h - a capture's threads as nested time slices, for timeline
 * viewers (the Chrome / Perfetto trace export): each thread's CPU samples,
 * CUDA API calls with their host stacks, and NVTX push/pop ranges, in time
 * order.
 *
 * How time is laid out, per thread:
 * - A sample of weight w is w sampling periods long and ends at its time;
 *   its duration is rounded to ns cumulatively, so a thread's sample slices
 *   add up to its sampled CPU time (weights x 10^9 / hz ns) exactly.
 * - A sample that would overlap the one before starts where that one ends;
 *   one that starts less than half a period after it is moved back to touch
 *   it (timer jitter, not idle time). Laid out times stay within the
 *   thread's wall-clock gaps of the true ones.
 * - Items that touch share the slices of their common stack prefix: one
 *   slice per frame for as long as the frame stays on the stack. Items that
 *   do not touch share nothing, so no slice spans idle time.
 * - A CUDA API call is a 1 ns item: its host stack's frames, then a slice
 *   for the call itself (FK_SLICE_CALL), which a trace reader links to the
 *   GPU work by correlation id. A call (or an NVTX push or pop) made during
 *   a sample's period goes before that sample: early by less than a
 *   period, never late, so a launch never follows the work it launched.
 * - An NVTX push or pop cuts every frame slice open there and is given as a
 *   mark (FK_SLICE_RANGE_BEGIN / _END) at its laid-out time, so each slice
 *   lies wholly inside or outside every range: begin/end events nest with
 *   the slices. A range still open at the thread's end ends there.
 *
 * Owns: nothing past a call. Slices are handed over per thread in batches,
 * every end known, as soon as they close, except that a slice starting
 * with an open ancestor waits for it and comes after it: slices of one
 * start come parent first (the order viewers nest them in), and a range's
 * begin before what is inside it. Memory is the stack's depth, not the
 * thread's length. Names point into the fk_cap_names texts and the
 * capture.
 */
#ifndef FK_CAP_SLICES_H
#define FK_CAP_SLICES_H

#include "analysis/capture/model.h"

enum fk_slice_kind {
	FK_SLICE_FRAME,       /* a stack frame (from samples and API calls) */
	FK_SLICE_CALL,        /* a CUDA API call: ref indexes c->apis */
	FK_SLICE_RANGE_BEGIN, /* an NVTX push: ref indexes c->nvtx; end == start */
	FK_SLICE_RANGE_END,   /* its pop (ref: the push), or the thread's end */
};

struct fk_cap_slice {
	int64_t start, end;   /* ns, CLOCK_MONOTONIC as laid out */
	const char *name;     /* not NUL-terminated: len bytes; "" for calls */
	uint32_t len;
	uint32_t depth;       /* frames and calls: 0 outermost (ranges not counted) */
	uint32_t ref;
	uint8_t kind;         /* enum fk_slice_kind */
};

struct fk_cap_slice_stats {
	uint64_t frames, calls, ranges;
	uint64_t unmatched_pops;  /* NVTX pops with no push open on their thread */
	uint64_t unclosed_ranges; /* pushes still open at their thread's end */
};

/* Called once or more per thread (tid) with the next slices; false stops. */
typedef bool (*fk_cap_slices_fn)(void *ctx, uint32_t tid, const struct fk_cap_slice *s,
				 size_t n);

/* Every thread's slices. c must keep its samples (fk_capture_load_samples).
 * false when out of memory (reported) or fn stopped. */
bool fk_capture_slices(const struct fk_capture *c, struct fk_cap_names *names,
		       fk_cap_slices_fn fn, void *ctx, struct fk_cap_slice_stats *st,
		       struct fk_diag *d);

#endif
