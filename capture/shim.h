/* shim.h - what the parts of libstackcap.so share: settings, per-thread
 * state, the record layouts in the rings, and the entry points between the
 * sampler (shim.c), the allocation hooks (alloc.c) and the writer thread
 * (writer.c). Nothing here is public API; the shim exports only the
 * interposed allocator functions and pthread_create.
 */
#ifndef STACKCAP_SHIM_H
#define STACKCAP_SHIM_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "formats/capture.h"
#include "capture/cfiunwind.h"
#include "capture/python.h"
#include "capture/ring.h"

#define SHIM_TLS __thread __attribute__((tls_model("initial-exec")))
#define MAX_FRAMES 128 /* native frames */
/* Native frames, then Python frames (capture/python.h), in one record. */
#define MAX_IPS (MAX_FRAMES + PY_MAX_FRAMES)
#define SAMPLE_RING_BYTES ((uint64_t)512 << 10)
#define EVENT_RING_BYTES ((uint64_t)8 << 20)

/* Ring record types. */
enum { REC_SAMPLE = 1, REC_ALLOC = 2, REC_FREE = 3, REC_GPU_API = 4, REC_GPU_LINK = 5,
       REC_NVTX = 6, REC_GPU_GRAPH = 7, REC_WINDOW = 8 };

/* A capture window opened or closed on this thread (capture/window.h):
 * its edge number (odd: opened), and its schedule step + 1 (0: none). */
struct rec_window {
	struct ring_record h;
	uint64_t t_ns;
	uint64_t edge;
	uint64_t step;
};

#define NVTX_NAME_MAX 256 /* longer range names are cut */

/* An NVTX event (op: FK_CAP_NVTX_*): range id for start/end, name for
 * push, mark and start. */
struct rec_nvtx {
	struct ring_record h;
	uint64_t t_ns;
	uint64_t id;
	uint32_t op;
	uint32_t len;
	char name[];
};

struct rec_sample {
	struct ring_record h;
	uint64_t t_ns;    /* CLOCK_MONOTONIC */
	uint32_t weight;  /* timer expirations it stands for (1 + overruns) */
	uint32_t nframes; /* 0: the thread was inside the shim itself */
	uint64_t ips[];   /* leaf first; return addresses already minus 1 */
};

struct rec_alloc {
	struct ring_record h;
	uint64_t t_ns;
	uint64_t addr;
	uint64_t size;    /* REC_ALLOC only */
	uint32_t nframes;
	uint32_t pad;
	uint64_t ips[];
};

/* A CUDA API call's host stack (REC_GPU_API), or a driver call inside a
 * runtime call (REC_GPU_LINK: corr = driver id, cbid = runtime id), or a
 * CUDA graph node (REC_GPU_GRAPH: node id = cbid << 32 | corr; t_ns = the
 * original node when it is a clone, else 0 and the stack that made it). */
struct rec_gpu_api {
	struct ring_record h;
	uint64_t t_ns;
	uint32_t corr;
	uint32_t cbid;
	uint32_t domain;  /* 1 runtime, 2 driver */
	uint32_t nframes;
	uint64_t ips[];
};

struct thread_state {
	struct thread_state *next; /* the registry: pushed at the head only */
	pid_t tid;
	_Atomic int dead;          /* exited: the writer drains and frees it */
	timer_t timer;
	_Atomic bool has_timer;
	volatile sig_atomic_t in_tracer; /* inside the shim: a sample skips unwinding */
	_Atomic uint64_t dropped_samples, dropped_events;
	uint64_t kept_countdown;   /* shim_countdown while own_heap is set */
	bool own_heap;             /* a writer cycle runs here: allocate from the shim's heap */
	uint64_t rng;
	uintptr_t stack_lo, stack_hi; /* for the frame-pointer walk */
	bool named;                /* the writer has recorded its name */
	uint64_t ticks;            /* timer expirations its samples stand for */
	/* Calls of the program that left the sampling signal blocked, and
	 * their count at its last sample (sigmask.c). */
	volatile uint32_t mask_blocks;
	uint32_t mask_blocks_seen;
	uint32_t last_n;           /* its last sampled stack, leaf first */
	uint64_t last_ips[MAX_IPS];
	char exit_name[16];        /* its name as it exited (/proc forgets it then) */
	int exit_rounds;           /* rounds of its key's destructor put off (detach_thread) */
	struct cfi_cache cfi;      /* the hooks' unwinder's rules (cfiunwind.h) */
	struct ring samples, events; /* events: allocations and CUDA API calls */
	size_t map_bytes;          /* this struct and its rings, one mapping */
};

struct shim_config {
	unsigned hz;
	bool frame_pointers;
	bool libunwind_only;   /* stacks by libunwind alone, not cfiunwind.h's fast walk */
	bool alloc;
	bool alloc_drop;       /* a full ring drops allocation events instead of waiting */
	uint64_t event_ring;   /* bytes of each thread's event ring (a power of 2) */
	uint64_t alloc_sample; /* mean bytes between samples; 0: every allocation */
	/* Frees are recorded only of the blocks recorded (capture/sampleset):
	 * allocations sampled, or made inside capture windows. */
	bool alloc_set;
	bool follow_exec;
	int signal;
	char output[4096];
};

extern struct shim_config shim_cfg;
extern _Atomic int shim_ready; /* the constructor finished: hooks may record */
extern SHIM_TLS struct thread_state *shim_thread;
/* Nonzero: our own code, do not trace. volatile: the compiler must not move
 * an increment past a call it believes reads no memory (malloc). */
extern SHIM_TLS volatile int shim_guard;
/* The calling thread's bytes until its next sampled allocation (alloc.c):
 * 0 while it has no state, so its allocations take the slow way. Apart
 * from the state so malloc's hook reads it in one load less. */
extern SHIM_TLS __attribute__((visibility("hidden"))) uint64_t shim_countdown;
extern _Atomic uint64_t shim_untracked; /* allocations on threads without state */
extern _Atomic uint64_t shim_alloc_waits; /* times a full ring made a thread wait */
extern _Atomic uint64_t shim_unwind_fallbacks; /* samples the .eh_frame rules left to libunwind */

uint64_t shim_now_ns(void);

/* Room for an event record in the thread's event ring, or NULL with the
 * drop counted; then shim_event_commit() after filling it. In between,
 * the thread's guard is up: an allocation by a signal handler landing
 * there is not recorded, as it would be into the same ring, in the middle
 * of this record (and a cycle it ran could find the ring empty). */
static inline struct ring_record *shim_event_reserve(struct thread_state *ts, uint32_t size,
						     uint32_t type, uint64_t *tail)
{
	shim_guard++;
	struct ring_record *r = ring_reserve(&ts->events, size, tail);
	if (!r) {
		atomic_fetch_add_explicit(&ts->dropped_events, 1, memory_order_relaxed);
		shim_guard--;
		return NULL;
	}
	r->type = type;
	return r;
}

/* Publishes a record shim_event_reserve() gave. */
static inline void shim_event_commit(struct thread_state *ts, uint64_t tail)
{
	ring_commit(&ts->events, tail);
	shim_guard--;
}

/* The most frames a stack is unwound to (capture/unwind.h). */
#define SHIM_MAX_UNWIND (MAX_FRAMES + 32)
/* The loaded segment of whatever object holds addr (code: its text): false
 * when none does. */
bool shim_code_range(const void *addr, uintptr_t *lo, uintptr_t *hi);

/* The CPU time (cpu_ns, the thread's clock) that ts's samples do not stand
 * for, rounded to periods, as a stack: "[unsampled]" (SHIM_IP_UNSAMPLED)
 * under its last sampled stack, into ips (room for MAX_IPS); its weight in
 * periods goes to *weight and counts as sampled from then on. Returns the
 * frame count, 0 when there is nothing to charge (or no sampling). */
struct thread_state;
uint32_t shim_unsampled_stack(struct thread_state *ts, uint64_t cpu_ns, uint64_t *ips,
			      uint32_t *weight);
/* A hook's stack by frame pointers, with the thread's Python frames, for
 * --fp's allocation hooks: the program keeps them (its promise) and so
 * does the shim (built with them); frames of code without them are lost,
 * as in --fp's samples. Not for callbacks from libraries that keep none
 * (CUDA's): shim_stack_here (capture/unwind.h). */
uint32_t shim_fp_stack_here(uint64_t *ips);

/* Whether pc is libc's or the dynamic linker's code. */
bool shim_in_runtime(uintptr_t pc);

/* The pseudo-address of a sample's "[signal blocked]" stack: CPU time the
 * timer counted while the thread blocked the sampling signal. */
#define SHIM_IP_BLOCKED FK_CAP_IP_SIGNAL_BLOCKED
#define SHIM_IP_UNSAMPLED FK_CAP_IP_UNSAMPLED

/* writer.c */
/* Opens the file and starts the thread; single_threaded: no thread until
 * writer_go_threaded, the hooks run the cycles (writer_poll). */
bool writer_start(bool single_threaded);
void writer_stop(void);           /* final drain, END, close */
void writer_kick(void);           /* a ring is filling: drain soon (signal-safe) */
/* Without a writer thread: a cycle, when one is due, on the calling
 * thread (inside the shim, guard set), after an allocation by the code at
 * caller (0: none known) recorded at now_ns (0: not read yet). Not after
 * libc's or the dynamic linker's, which may be in the middle of something
 * (dlopen's lists) the cycle reads. */
void writer_poll(uintptr_t caller, uint64_t now_ns);
/* Without a writer thread: the last cycle is long past (signal-safe). */
bool writer_overdue(void);
/* The writer becomes a thread (now, if it was not). */
void writer_go_threaded(void);
void writer_pause(void);           /* around fork: no cycle in progress */
void writer_resume(void);
void writer_after_fork_child(void);
struct thread_state *shim_threads(void);
void shim_forget_threads_except(struct thread_state *keep);
void shim_free_thread(struct thread_state *ts);

/* cupti.c (nocuda.c when built without the CUDA headers) */
void cupti_prepare(void);          /* constructor: CUDA_INJECTION64_PATH */
void cupti_stop(void);             /* flush what CUPTI holds (not in a forked child) */
void cupti_after_fork_child(void);
/* The GPU payloads completed since the last call. */
void cupti_take(struct fk_cap_buf *kernels, struct fk_cap_buf *memory);
/* "on (...)" or "off: why", and its version, which changes with the text;
 * buf and *monotonic (GPU times are CLOCK_MONOTONIC, else CUPTI's
 * realtime) are set only when the version is not seen, the caller's last
 * (a cycle's call, not a snprintf). */
unsigned cupti_status(unsigned seen, char *buf, size_t n, bool *monotonic);

/* nvtx.c (nothing without the CUDA headers) */
void nvtx_prepare(void);           /* constructor: NVTX_INJECTION64_PATH */

/* alloc.c */
void alloc_init(void);            /* constructor: finds the real allocator */
/* The program's malloc and free are the shim's (after alloc_init). */
bool alloc_hooks_active(void);
/* The calling thread's allocations go to the shim's heap from now (on),
 * or to the program's again (off): around a writer cycle run there. */
void alloc_use_own_heap(bool on);
/* Bytes to a thread's next sampled byte with --alloc-sample (0 without):
 * drawn at its start too, or its first allocation would always be kept,
 * and weighed as if it had been drawn. */
uint64_t alloc_next_gap(uint64_t *rng);
/* A new thread's countdown (alloc_next_gap's, or one that never ends
 * without --alloc): after alloc_init. */
uint64_t alloc_first_gap(uint64_t *rng);

#endif
