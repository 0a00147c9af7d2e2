/* model.h - a stackcap capture in memory: its header and how it ended,
 * the modules, the stack prefix tree, threads, CPU samples (aggregated per
 * thread and stack) and allocation events; and what is made of it: folded
 * stacks for a metric (stackfold), a memory timeline (memtimeline), and the
 * `stackcap info` summary.
 *
 * Owns: everything in struct fk_capture (fk_capture_free).
 */
#ifndef FK_CAPLOAD_H
#define FK_CAPLOAD_H

#include <stdio.h>

#include "formats/capture.h"
#include "formats/diag.h"
#include "analysis/capture/pynames.h"
#include "analysis/core/arena.h"
#include "analysis/mem/events.h"
#include "analysis/core/stacks.h"

struct fk_cap_module {
	char *path;
	uint64_t start, end, bias;
	uint8_t *build_id;
	size_t build_id_len;
};

struct fk_cap_sample_sum { /* one (thread, stack) */
	uint32_t tid, node;
	uint64_t weight, count;
};

struct fk_cap_alloc {
	uint64_t t_ns; /* CLOCK_MONOTONIC of the capturing process */
	uint64_t addr, size;
	uint32_t tid, node; /* node 0 for frees */
	uint8_t kind;       /* FK_CAP_ALLOC or FK_CAP_FREE */
};

/* A GPU operation from CUPTI: kernel, memcpy, memset or synchronization. */
struct fk_cap_gpu_op {
	uint64_t start, dur; /* ns, in the capture's GPU clock */
	uint64_t bytes;
	uint64_t graph_node; /* kernels replayed from a CUDA graph: its node; 0 none */
	uint32_t corr, runtime_corr, device, name; /* name: kernels only, 0 none */
	uint32_t stream;     /* CUPTI stream id (kernels, copies, sets) */
	uint8_t tag;         /* FK_CAP_GPU_KERNEL, _MEMCPY, _MEMSET, _SYNC */
	uint8_t copy_kind;   /* memcpy: CUPTI's CUpti_ActivityMemcpyKind */
};

struct fk_cap_gpu_mem { /* CUPTI MEMORY2 (allocation, free) or MEMORY_POOL */
	uint64_t t, addr, bytes; /* a pool: its size after the operation */
	uint32_t corr, device;
	uint8_t kind;        /* FK_CAP_ALLOC, FK_CAP_FREE, FK_CAP_POOL */
	uint8_t async;       /* from a stream-ordered pool (cudaMallocAsync) */
	uint8_t pool_op;     /* FK_CAP_POOL: 1 created, 2 destroyed, 3 trimmed */
};

struct fk_cap_api { /* a CUDA API call with the host stack that made it */
	uint64_t t_ns;
	uint32_t corr, tid, node, cbid;
	uint8_t domain;      /* 1 runtime, 2 driver */
};

struct fk_cap_nvtx { /* an NVTX event of one thread */
	uint64_t t_ns, id;
	uint32_t tid;
	uint8_t op;          /* FK_CAP_NVTX_PUSH, ... */
	char *name;          /* NULL for pop and end */
};

struct fk_cap_sample { /* one sample, kept only when asked (NVTX paths need times) */
	uint64_t t_ns;
	uint32_t tid, node, weight;
};

struct fk_cap_window_edge { /* a WINDOWS record */
	uint64_t edge;       /* odd: the window opened; even: it closed */
	uint64_t t_ns;
	uint64_t step;       /* --schedule: the step it opened, + 1; else 0 */
};

struct fk_cap_window { /* a stretch the shim recorded */
	uint64_t start_ns, end_ns; /* CLOCK_MONOTONIC */
	uint64_t step;       /* as in the edge that opened it */
};

struct fk_cap_python_frame { /* a PYFRAMES record, kept by id */
	uint64_t id;
	char *file, *qualname, *name; /* co_filename, co_qualname, co_name */
	uint64_t first_line, line;    /* co_firstlineno; the line being run (0: unknown) */
	size_t order;                 /* read order: of an id defined twice, the first wins */
};

struct fk_capture {
	struct fk_cap_header hdr;
	struct fk_cap_status status;
	char *command;
	struct fk_cap_module *modules;
	size_t nmodules;
	/* prefix tree: node i has parent[i] (0: root) and ip[i]; 0 is unused */
	uint32_t *parent;
	uint64_t *ip;
	size_t nnodes;       /* highest node id + 1 */
	uint64_t missing_nodes; /* references to nodes no chunk defined */
	struct { uint32_t tid; char *name; } *threads;
	size_t nthreads;
	struct fk_cap_sample_sum *sums;
	size_t nsums, sums_cap; /* open hash on (tid, node) */
	uint64_t samples, sample_weight;
	uint64_t unsampled_weight; /* of sample_weight, what threads used unsampled */
	uint64_t first_t_ns, last_t_ns;
	struct fk_cap_alloc *allocs;
	size_t nallocs, allocs_cap;
	uint64_t dropped_samples, dropped_events;
	uint64_t end_untracked;   /* allocations on threads the shim did not follow */
	uint64_t alloc_waits;     /* times a full ring made a thread wait (lossless --alloc) */
	uint64_t bad_records;     /* payloads that did not decode */
	/* Allocations made before this CLOCK_MONOTONIC time may have been
	 * freed in what was lost (lost or damaged chunks, dropped events, an
	 * ALLOCS chunk that did not decode): 0 nothing lost, UINT64_MAX up to
	 * the end. */
	uint64_t loss_until_ns;
	uint64_t real_minus_mono; /* add to a monotonic time for epoch ns */
	/* CUDA */
	char *gpu_status;         /* "on (...)" or "off: why"; NULL: not recorded */
	bool gpu_monotonic;       /* GPU times are CLOCK_MONOTONIC, else realtime */
	struct fk_cap_api *apis;
	size_t napis, apis_cap;
	uint32_t (*links)[2];     /* driver corr -> runtime corr */
	size_t nlinks, links_cap;
	struct fk_cap_graph_node { uint64_t id, original; uint32_t tid, node; } *graph;
	size_t ngraph, graph_cap; /* nodes (original 0, a stack) and clones */
	struct fk_cap_gpu_op *ops;
	size_t nops, ops_cap;
	struct fk_cap_gpu_mem *gmem;
	size_t ngmem, gmem_cap;
	char **names;             /* kernel names by id */
	size_t nnames;
	uint64_t gpu_dropped, gpu_no_timestamp;
	uint64_t cuda_host_allocs, cuda_host_bytes; /* cudaMallocHost... (not in gmem) */
	/* NVTX */
	struct fk_cap_nvtx *nvtx;
	size_t nnvtx, nvtx_cap;
	struct fk_cap_sample *raw;   /* with fk_capture_load_samples */
	size_t nraw, raw_cap;
	bool keep_samples;
	/* Python: a stack address with FK_CAP_IP_PYTHON names one of pyframes */
	char *python_status;      /* META python ("CPython 3.11.2: frames on"); NULL: none */
	char *cwd;                /* META cwd: the working directory at start */
	char *unwinder;           /* META unwind: how samples were walked (eh_frame, libunwind, fp) */
	uint64_t unwind_fallbacks; /* META unwind_fallbacks: samples eh_frame left to libunwind */
	uint64_t python_faults;   /* META python_faults: walks a fault guard stopped */
	struct fk_cap_python_frame *pyframes; /* sorted by id, each id once */
	size_t npyframes, pyframes_cap;
	uint64_t missing_pyframes; /* stack nodes naming an id no chunk defined */
	/* Capture windows (analysis/capture/windows.h): NULL window_spec: the
	 * whole run was recorded. */
	char *window_spec;        /* META window: what was asked */
	struct fk_cap_window_edge *edges; /* as read; sorted by number once loaded */
	size_t nedges, edges_cap;
	struct fk_cap_window *windows;    /* what was recorded, in time order */
	size_t nwindows;
	uint64_t window_edges_lost; /* edge numbers no record had */
};

/* The Python frame with this id (an address's low 63 bits), or NULL when no
 * chunk read defined it. */
const struct fk_cap_python_frame *fk_capture_python_frame(const struct fk_capture *c,
							  uint64_t id);

/* A capture from an open input (formats/input.h); keep_samples as for
 * fk_capture_load_samples. */
struct fk_input;
bool fk_capture_load_input(struct fk_input *in, struct fk_capture *c, bool keep_samples,
			   struct fk_diag *d);
bool fk_capture_load(const char *path, const char *name, struct fk_capture *c,
		     struct fk_diag *d);
/* The same, also keeping every sample with its time (for --nvtx). */
bool fk_capture_load_samples(const char *path, const char *name, struct fk_capture *c,
			     struct fk_diag *d);
void fk_capture_free(struct fk_capture *c);

/* The directory of the Python script the capture's command ran
 * ("python3 dir/train.py ...": DIR made absolute with META cwd), malloc'd;
 * NULL when the command names no .py file. torch strips it from file names
 * (it is sys.path[0]). */
char *fk_capture_script_dir(const struct fk_capture *c);

/* What c lost, one line ("no END chunk (...); 2 damaged chunks skipped
 * (4096 bytes); 12 samples and 0 events dropped (rings full)"): false, and
 * buf empty, when nothing was. Loading reports it (an error under --strict). */
bool fk_capture_loss(const struct fk_capture *c, char *buf, size_t n);

enum fk_cap_metric {
	FK_METRIC_SELF_CPU, /* self_cpu_time_total: us, like torch */
	FK_METRIC_SAMPLES,
	FK_METRIC_ALLOC_BYTES,
	FK_METRIC_ALLOC_COUNT,
	FK_METRIC_SELF_CUDA,      /* self_cuda_time_total: us of GPU time per launching stack */
	FK_METRIC_GPU_ALLOC_BYTES,
};

/* "self_cpu_time_total", ...; false for an unknown name. */
bool fk_cap_metric_parse(const char *name, enum fk_cap_metric *m);
/* The name --metric takes for m. */
const char *fk_cap_metric_name(enum fk_cap_metric m);
/* What c lacks for metric m ("no allocations (...)"), or NULL when it has
 * the records m is made of. */
const char *fk_capture_lacks(const struct fk_capture *c, enum fk_cap_metric m);

struct fk_cap_fold_opts {
	enum fk_cap_metric metric;
	bool threads;  /* a "name-tid" root frame per thread */
	bool no_kernel_frames; /* GPU metrics: no kernel / [memcpy ...] leaf */
	bool nvtx;     /* the NVTX range path active on the thread at the root
			  (needs fk_capture_load_samples for CPU metrics) */
	unsigned sym_flags; /* FK_SYM_INLINE, FK_SYM_LINES */
	/* Python frames' names (analysis/capture/pynames.h); python.only:
	 * stacks holding a Python frame lose the native frames rootward of the
	 * outermost one and between Python frames (the interpreter's), and keep
	 * those leafward of the innermost one (aten, BLAS). */
	struct fk_py_opts python;
};

/* Adds the capture's stacks for a metric to into: symbolized frames,
 * outermost first. Symbolization warnings go through d. */
bool fk_capture_fold(const struct fk_capture *c, const struct fk_cap_fold_opts *o,
		     struct fk_stacks *into, struct fk_diag *d);

/* What fk_capture_fold names things, for other views of a capture (the
 * Chrome trace export): a node's stack text (frames ';'-joined, root
 * first: "[no host stack]" for UINT32_MAX), a GPU op's leaf frame (the
 * kernel demangled as host frames are, "[memcpy HtoD]", "[memset]"), and
 * the API call with the host stack that made an op or GPU allocation (a
 * driver call inside a runtime call: the runtime call). Texts live until
 * fk_cap_names_close. NULL from open when out of memory (reported). */
struct fk_cap_names;
struct fk_cap_names *fk_cap_names_open(const struct fk_capture *c,
				       const struct fk_cap_fold_opts *o, struct fk_diag *d);
const char *fk_cap_names_stack(struct fk_cap_names *n, uint32_t node, uint32_t *len);
const char *fk_cap_names_op(struct fk_cap_names *n, const struct fk_cap_gpu_op *op);
const struct fk_cap_api *fk_cap_names_api(const struct fk_cap_names *n, uint32_t corr);
/* True when a text could not be made (out of memory): the texts since
 * are "". */
bool fk_cap_names_failed(const struct fk_cap_names *n);
void fk_cap_names_close(struct fk_cap_names *n);

/* Each sample kept by fk_capture_load_samples, in (thread, time) order,
 * with its thread's name and the stack fk_capture_fold gives it under o
 * (o->threads and o->nvtx apply; o->metric does not). fn returns false to
 * stop: then so does this (with no message). */
typedef bool (*fk_cap_sample_fn)(void *ctx, const struct fk_cap_sample *s, const char *thread,
				 const char *stack, size_t len);
bool fk_capture_each_sample(const struct fk_capture *c, const struct fk_cap_fold_opts *o,
			    fk_cap_sample_fn fn, void *ctx, struct fk_diag *d);

/* The host heap as memory events (device cpu, category Unknown, addresses,
 * symbolized stacks), epoch-ns times; stacks named as o says (its metric,
 * threads, kernel and NVTX settings do not apply). */
bool fk_capture_memory_opts(const struct fk_capture *c, const struct fk_cap_fold_opts *o,
			    struct fk_mem_timeline *tl, struct fk_diag *d);
/* The same with sym_flags and default Python names. */
bool fk_capture_memory(const struct fk_capture *c, unsigned sym_flags,
		       struct fk_mem_timeline *tl, struct fk_diag *d);

/* The most GPU memory device reserved: pool sizes plus allocations made
 * outside pools; -1 when the capture saw no pool (then reserved is what
 * was allocated). */
int64_t fk_capture_max_reserved(const struct fk_capture *c, uint32_t device);

/* A moment on a thread, and the NVTX push/pop ranges open there then,
 * outermost first, ';'-joined ("" when none). */
struct fk_cap_when {
	uint64_t t_ns;
	uint32_t tid;
	const char *path; /* out, in the arena */
};

/* Fills every q[i].path; q is reordered (by thread, then time). */
bool fk_capture_nvtx_paths(const struct fk_capture *c, struct fk_cap_when *q, size_t n,
			   struct fk_arena *arena);

/* `stackcap info`: duration, threads, samples, allocation events, drops,
 * modules and how the capture ended. */
void fk_capture_info(FILE *out, const char *name, const struct fk_capture *c);

#endif
