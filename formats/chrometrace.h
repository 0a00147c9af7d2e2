/* chrometrace.h - torch.profiler's Chrome / Kineto trace JSON (spec:
 * formats/CHROMETRACE.md), read streaming into plain event records.
 *
 * Owns: nothing past a call. Each event is handed to the caller's function
 * and its strings live only until that function returns. Memory is one
 * event (its name) and the parser's state, whatever the file's size.
 * Times are exact ns integers parsed from the decimal text (never through
 * a double), relative to the trace's baseTimeNanoseconds when it has one
 * (given in struct fk_trace_info once the whole file is read: kineto may
 * write it after the events). Bad JSON is an error "name: byte N: what";
 * events without what their kind needs are skipped and counted.
 */
#ifndef FK_CHROMETRACE_H
#define FK_CHROMETRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/input.h"

/* What an event's "cat" says, current and legacy (2021) names alike. */
enum fk_trace_cat {
	FK_TCAT_OTHER = 0,
	FK_TCAT_CPU_OP,          /* cpu_op, Operator */
	FK_TCAT_USER_ANNOTATION, /* user_annotation (record_function, ProfilerStep#N) */
	FK_TCAT_PYTHON,          /* python_function */
	FK_TCAT_RUNTIME,         /* cuda_runtime, Runtime */
	FK_TCAT_DRIVER,          /* cuda_driver */
	FK_TCAT_SYNC,            /* cuda_sync */
	FK_TCAT_KERNEL,          /* kernel, Kernel */
	FK_TCAT_MEMCPY,          /* gpu_memcpy, Memcpy */
	FK_TCAT_MEMSET,          /* gpu_memset, Memset */
	FK_TCAT_GPU_ANNOTATION,  /* gpu_user_annotation */
	FK_TCAT_TRACE_SPAN,      /* Trace: the span of the whole trace, not a frame */
	FK_TCAT_INSTANT,         /* cpu_instant_event ([memory], [OutOfMemory]) */
	FK_TCAT_AC2G,            /* flows launch -> GPU op (legacy: async) */
	FK_TCAT_FWDBWD,          /* flows forward op -> backward op */
};

/* The numeric args flamekit uses (the others are skipped). */
enum fk_trace_arg {
	FK_TARG_CORRELATION,     /* "correlation": CUPTI id of a launch */
	FK_TARG_EXTERNAL_ID,     /* "External id" */
	FK_TARG_PYTHON_ID,       /* "Python id" */
	FK_TARG_PYTHON_PARENT,   /* "Python parent id" */
	FK_TARG_DEVICE,          /* "device" */
	FK_TARG_STREAM,          /* "stream" */
	FK_TARG_ADDR,            /* "Addr" (as a uint64 bit pattern) */
	FK_TARG_BYTES,           /* "Bytes" (negative: a free) */
	FK_TARG_TOTAL_ALLOCATED, /* "Total Allocated" */
	FK_TARG_TOTAL_RESERVED,  /* "Total Reserved" */
	FK_TARG_DEVICE_TYPE,     /* "Device Type" (c10::DeviceType: 0 CPU, 1 CUDA) */
	FK_TARG_DEVICE_ID,       /* "Device Id" */
	FK_TARG_COUNT
};

struct fk_trace_event {
	char ph;                 /* 'X', 's', 'f', 'i', 'M', ...; 0 when absent */
	enum fk_trace_cat cat;
	const char *name;        /* NUL-terminated; "" when absent */
	size_t name_len;
	const char *meta_name;   /* ph 'M': args.name ("python", "stream 7 "); else "" */
	int64_t pid, tid;        /* a string pid/tid ("Spans") is hashed: *_text set */
	bool pid_text, tid_text;
	bool has_ts, has_dur, has_id;
	int64_t ts_ns, dur_ns;   /* ns; dur clamped to >= 0 */
	uint64_t id;             /* flows: "id" */
	bool bp_enclosing;       /* flows: "bp":"e" */
	uint32_t has_arg;        /* bit i: args[i] was given as an integer */
	int64_t args[FK_TARG_COUNT];
	uint64_t byte;           /* where the event ends in the input, for messages */
};

static inline bool fk_trace_has(const struct fk_trace_event *e, enum fk_trace_arg a)
{
	return e->has_arg >> a & 1;
}

/* What the trace says about itself, and what was skipped. */
struct fk_trace_info {
	bool bare_array;         /* the legacy form: [event, ...] */
	bool has_base;
	int64_t base_ns;         /* baseTimeNanoseconds */
	bool has_rank;
	int64_t rank;            /* distributedInfo.rank */
	uint64_t events;         /* event objects read */
	uint64_t skipped;        /* events without what their kind needs */
	uint64_t control_chars;  /* raw control characters in strings, read as spaces */
	uint64_t huge_numbers;   /* integers past 64 bits in fields used (ignored) */
};

/* Return false to stop (the read then fails: report why yourself). */
typedef bool (*fk_trace_event_fn)(void *ctx, const struct fk_trace_event *ev);

/* Reads the open input (any compression, file or pipe) from its first
 * byte, calling fn for every event in file order. false on bad JSON
 * (reported "name: byte N: what"), a read error, or fn asking to stop. */
bool fk_chrometrace_read(struct fk_input *in, fk_trace_event_fn fn, void *ctx,
			 struct fk_trace_info *info, struct fk_diag *d);

/* A decimal count of microseconds ("12", "63.813", "1712195495519689.0",
 * "-1.5", "1.2e3") as exact ns, rounded half away from zero past the third
 * decimal. false when it is not a number or does not fit in int64. */
bool fk_trace_us_to_ns(const char *s, size_t len, int64_t *ns);

#endif
