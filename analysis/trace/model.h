/* model.h - a torch Chrome / Kineto trace in memory, as compact records:
 * the host threads' CPU events (ops, annotations, Python frames, CUDA
 * runtime and driver calls), the GPU ops (kernels, copies, sets) and the
 * [memory] events, with the names interned. What is made of it lives
 * beside it: nesting (nest.c), folded stacks (fold.c), tables (table.c).
 *
 * Owns: everything in struct fk_trace (fk_trace_free). Memory is about 48
 * bytes per CPU or GPU event and 48 per memory event, plus the distinct
 * names: a tenth of the JSON or less, never the JSON itself.
 */
#ifndef FK_TRACE_MODEL_H
#define FK_TRACE_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/core/strtab.h"
#include "formats/chrometrace.h"

#define FK_TRACE_NONE UINT32_MAX

struct fk_trace_cpu {
	int64_t ts, dur;     /* ns; dur may be clipped by nesting */
	int64_t corr;        /* runtime / driver calls: "correlation"; -1 none */
	uint64_t self;       /* ns: dur minus the direct children's (nest.c);
				before nesting, the event's place in the file */
	uint32_t thread;     /* index into threads */
	uint32_t name;       /* id in names */
	uint32_t parent;     /* the enclosing event (nest.c); FK_TRACE_NONE for a root */
	uint8_t cat;         /* enum fk_trace_cat */
};

struct fk_trace_gpu {
	int64_t ts, dur;
	int64_t corr;        /* -1 none */
	int64_t device;      /* the event's pid: the GPU */
	uint32_t name;
	uint32_t launch;     /* the CPU event that launched it (fold.c); FK_TRACE_NONE */
	uint8_t cat;         /* FK_TCAT_KERNEL, _MEMCPY, _MEMSET */
};

struct fk_trace_mem {
	int64_t ts;
	uint64_t addr;
	int64_t bytes;       /* negative: a free */
	int64_t total_allocated, total_reserved; /* -1 unknown (legacy files) */
	int32_t device_type, device_id;
	bool has_addr;
};

struct fk_trace_flow { /* one end of a fwdbwd flow: forward op -> backward op */
	uint64_t id;
	int64_t ts;
	uint32_t thread;
	bool start;          /* "s": the forward op's end; "f": the backward op's */
};

struct fk_trace_thread {
	int64_t pid, tid;
	uint32_t name;       /* thread_name metadata; FK_TRACE_NONE */
};

struct fk_trace {
	struct fk_strtab names;
	struct fk_trace_cpu *cpu;
	size_t ncpu, cpu_cap;
	struct fk_trace_gpu *gpu;
	size_t ngpu, gpu_cap;
	struct fk_trace_mem *mem;
	size_t nmem, mem_cap;
	struct fk_trace_thread *threads;
	size_t nthreads, threads_cap;
	struct fk_trace_flow *flows;
	size_t nflows, flows_cap;
	struct fk_trace_info info;
	uint64_t clipped;    /* CPU events cut to fit their parent (nest.c) */
	bool nested;
};

/* Reads an open input that holds a trace. false (reported) on bad JSON or
 * when out of memory; fk_trace_free either way. */
bool fk_trace_load(struct fk_input *in, struct fk_trace *t, struct fk_diag *d);
void fk_trace_free(struct fk_trace *t);

static inline const char *fk_trace_name(const struct fk_trace *t, uint32_t id)
{
	return fk_strtab_get(&t->names, id)->p;
}

/* Per thread, CPU events sorted by (ts, -dur) and nested with an interval
 * stack: parent and self set, an event that ends past its parent clipped
 * to it (t->clipped counts them). Ties: annotations outside Python frames
 * outside ops outside runtime calls, then the file's order (parent first,
 * as torch and stackcap export write them). The events are reordered. false when
 * out of memory. */
bool fk_trace_nest(struct fk_trace *t);

#endif
