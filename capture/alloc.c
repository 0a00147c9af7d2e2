/* alloc.c - the shim's host allocator hooks (STACKCAP_ALLOC=1): malloc,
 * calloc, realloc, reallocarray, free, posix_memalign, aligned_alloc,
 * memalign, valloc and pvalloc, each recorded with its time, size, address
 * and stack into the calling thread's event ring.
 *
 * The real functions come from dlsym(RTLD_NEXT) (so jemalloc or tcmalloc
 * underneath keep working); dlsym itself may allocate, which the shim's
 * own heap serves (capture/shimheap.h), as it serves a writer cycle run on
 * the program's thread (alloc_use_own_heap). A thread-local guard keeps
 * the shim's own allocations (and the unwinder's) out of the capture. A free is recorded before the real
 * free, so the address cannot be handed out again before the record.
 * With STACKCAP_ALLOC_SAMPLE=BYTES only allocations hit by a Poisson
 * process over bytes (mean BYTES) are recorded, with their stacks, and
 * only their frees (capture/sampleset: the addresses sampled and live).
 * Capture windows (capture/window.h) do the same: allocations are recorded
 * inside windows only, and the frees of those, whenever they come.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture/expgap.h"
#include "capture/freefilter.h"
#include "capture/sampleset.h"
#include "capture/shim.h"
#include "capture/shimheap.h"
#include "capture/unwind.h"
#include "capture/window.h"

typedef void *(*malloc_fn)(size_t);
typedef void (*free_fn)(void *);
typedef void *(*calloc_fn)(size_t, size_t);
typedef void *(*realloc_fn)(void *, size_t);
typedef void *(*reallocarray_fn)(void *, size_t, size_t);
typedef int (*posix_memalign_fn)(void **, size_t, size_t);
typedef void *(*aligned_fn)(size_t, size_t);

static void first_free(void *p);

static malloc_fn real_malloc, real_valloc, real_pvalloc;
static free_fn real_free = first_free; /* never NULL: free() jumps to it */
static calloc_fn real_calloc;
static realloc_fn real_realloc;
static reallocarray_fn real_reallocarray;
static posix_memalign_fn real_posix_memalign;
static aligned_fn real_aligned_alloc, real_memalign;
typedef size_t (*usable_size_fn)(void *);
static usable_size_fn real_usable_size;
static _Atomic int resolving, resolved;

static void resolve(void)
{
	if (atomic_load_explicit(&resolved, memory_order_acquire) || atomic_load(&resolving))
		return; /* dlsym allocating: the shim's heap serves it */
	shimheap_init(); /* what dlsym allocates meanwhile comes from there */
	atomic_store(&resolving, 1);
	real_malloc = (malloc_fn)dlsym(RTLD_NEXT, "malloc");
	real_calloc = (calloc_fn)dlsym(RTLD_NEXT, "calloc");
	real_realloc = (realloc_fn)dlsym(RTLD_NEXT, "realloc");
	real_reallocarray = (reallocarray_fn)dlsym(RTLD_NEXT, "reallocarray");
	real_posix_memalign = (posix_memalign_fn)dlsym(RTLD_NEXT, "posix_memalign");
	real_aligned_alloc = (aligned_fn)dlsym(RTLD_NEXT, "aligned_alloc");
	real_memalign = (aligned_fn)dlsym(RTLD_NEXT, "memalign");
	real_valloc = (malloc_fn)dlsym(RTLD_NEXT, "valloc");
	real_pvalloc = (malloc_fn)dlsym(RTLD_NEXT, "pvalloc");
	real_free = (free_fn)dlsym(RTLD_NEXT, "free");
	real_usable_size = (usable_size_fn)dlsym(RTLD_NEXT, "malloc_usable_size");
	atomic_store(&resolving, 0);
	atomic_store_explicit(&resolved, 1, memory_order_release);
}

/* free() before resolve() has run. While dlsym runs, a block it frees is
 * one the shim's heap gave it, which free() took first. */
static void first_free(void *p)
{
	if (atomic_load(&resolving))
		return;
	resolve();
	if (real_free != first_free)
		real_free(p);
}

/* Which frees are looked at: none (no --alloc), all, or those of blocks in
 * the sampled set. Set once by alloc_init, before the program has threads;
 * a file-local copy of the settings, so the hooks read one byte without
 * going through the GOT. */
static enum { FREES_NONE, FREES_ALL, FREES_SAMPLED } watching;

void alloc_init(void)
{
	resolve();
	if (!shim_cfg.alloc)
		return;
	if (shim_cfg.alloc_set)
		sampleset_init();
	else
		freefilter_saturate(); /* every free takes the slow way */
	watching = shim_cfg.alloc_set ? FREES_SAMPLED : FREES_ALL;
}

/* Whether the program's malloc is these hooks: not when the program (or a
 * library loaded before the shim) brings its own, and with it its own free.
 * Asked by calling it, since the address dlsym gives may be a non-PIE
 * program's PLT entry that leads here (python3.11's): ours answers from the
 * shim's heap. */
bool alloc_hooks_active(void)
{
	void *(*m)(size_t) = (void *(*)(size_t))dlsym(RTLD_DEFAULT, "malloc");
	void (*f)(void *) = (void (*)(void *))dlsym(RTLD_DEFAULT, "free");
	if (!m || !f)
		return false;
	alloc_use_own_heap(true);
	void *p = m(16);
	alloc_use_own_heap(false);
	bool ours = shimheap_owns(p);
	f(p);
	return ours;
}

/* ---- recording ---- */

static struct thread_state *recording(void)
{
	if (!shim_cfg.alloc || shim_guard || !atomic_load_explicit(&shim_ready, memory_order_relaxed))
		return NULL;
	struct thread_state *ts = shim_thread;
	if (!ts)
		atomic_fetch_add_explicit(&shim_untracked, 1, memory_order_relaxed);
	return ts;
}

/* Exponential gaps between sampled bytes (expgap.h). */
uint64_t alloc_next_gap(uint64_t *rng)
{
	return shim_cfg.alloc_sample ? expgap_next(rng, shim_cfg.alloc_sample) : 0;
}

static bool sampled(struct thread_state *ts, size_t n)
{
	if (!shim_cfg.alloc_sample)
		return true;
	if (n < shim_countdown) {
		shim_countdown -= n;
		return false;
	}
	shim_countdown = alloc_next_gap(&ts->rng);
	return true;
}

/* Exact tracking is lossless: a full ring makes the allocating thread wait
 * for the writer to drain it (a free whose allocation was dropped, or the
 * reverse, would corrupt the timeline). The wait is bounded, for a writer
 * that is gone (the process is exiting); past it, and with
 * STACKCAP_ALLOC_DROP=1, the event is dropped and counted. */
#define WAIT_STEP_NS 50000L
#define WAIT_MAX_NS 10000000000LL

static struct ring_record *reserve_waiting(struct thread_state *ts, uint32_t size, uint32_t type,
					   uint64_t *tail)
{
	struct ring_record *r = ring_reserve(&ts->events, size, tail);
	if (!r && !shim_cfg.alloc_drop && size <= ts->events.size / 2) {
		atomic_fetch_add_explicit(&shim_alloc_waits, 1, memory_order_relaxed);
		for (long long waited = 0; !r && waited < WAIT_MAX_NS && atomic_load(&shim_ready);
		     waited += WAIT_STEP_NS) {
			writer_kick();
			struct timespec step = { 0, WAIT_STEP_NS };
			nanosleep(&step, NULL);
			r = ring_reserve(&ts->events, size, tail);
		}
	}
	if (!r) {
		atomic_fetch_add_explicit(&ts->dropped_events, 1, memory_order_relaxed);
		return NULL;
	}
	r->type = type;
	return r;
}

/* Inlined into the hooks: the unwinder starts in the hook (unwind.h). */
static inline __attribute__((always_inline)) void record(struct thread_state *ts, uint32_t type,
							 void *p, size_t n)
{
	shim_guard++;
	ts->in_tracer = 1;
	uint64_t ips[MAX_IPS];
	/* Skipped: the hook's own frames. */
	uint32_t nframes = type != REC_ALLOC	      ? 0
			   : shim_cfg.frame_pointers ? shim_fp_stack_here(ips)
						     : shim_stack_here(ips, 3);
	uint32_t size = (uint32_t)(sizeof(struct rec_alloc) + nframes * sizeof(uint64_t));
	uint64_t tail;
	struct rec_alloc *r = (struct rec_alloc *)reserve_waiting(ts, size, type, &tail);
	uint64_t t_ns = 0;
	if (r) {
		r->t_ns = t_ns = shim_now_ns();
		r->addr = (uint64_t)(uintptr_t)p;
		r->size = n;
		r->nframes = nframes;
		r->pad = 0;
		memcpy(r->ips, ips, nframes * sizeof *ips);
		if (ring_commit(&ts->events, tail))
			writer_kick();
	}
	/* A single-threaded program's cycles. */
	writer_poll(nframes > 0 ? (uintptr_t)ips[0] : 0, t_ns);
	ts->in_tracer = 0;
	shim_guard--;
}

/* Whether the calling thread's allocations go to the shim's heap: a
 * writer cycle runs on it (its countdown is 0 meanwhile, so they all come
 * past skipped()). */
static bool own_heap_unattached; /* the same for the constructor's thread, before its state */

static bool own_heap(void)
{
	const struct thread_state *ts = shim_thread;
	return ts ? ts->own_heap : own_heap_unattached;
}

void alloc_use_own_heap(bool on)
{
	struct thread_state *ts = shim_thread;
	if (!ts) { /* no countdown: skipped() lets every allocation past */
		own_heap_unattached = on;
		return;
	}
	if (on == ts->own_heap)
		return;
	if (on) {
		ts->kept_countdown = shim_countdown;
		shim_countdown = 0;
		ts->own_heap = true;
	} else {
		ts->own_heap = false;
		shim_countdown = ts->kept_countdown;
	}
}

/* Bytes until a new thread's first sampled byte: with no --alloc, a
 * countdown that never ends (the hooks then go straight to the real
 * allocator); exact tracking: 0, every allocation. */
uint64_t alloc_first_gap(uint64_t *rng)
{
	return watching == FREES_NONE ? UINT64_MAX : alloc_next_gap(rng);
}

/* Whether an allocation of n bytes is surely not recorded, decided in a
 * few instructions before the real allocator runs, so the hook can jump to
 * it: a thread of the program far from its next sampled byte (or with no
 * --alloc, whose countdown never ends), which only counts down. The rest
 * (exact tracking, a sampled byte reached, threads without state, the
 * first calls) takes the slow way. The shim's own allocations count down
 * too: gaps are memoryless, so bytes the program did not allocate take
 * nothing from its own bytes' chances. */
static inline bool counted_down(size_t n)
{
	if (n < shim_countdown) {
		shim_countdown -= n;
		return true;
	}
	return false;
}

static inline bool skipped(size_t n)
{
	return watching == FREES_NONE || counted_down(n);
}

/* An allocation not skipped: recorded when its thread records, a window
 * is open and the sampling (sampled()) says so. One that reached its
 * thread's sampled byte but is not kept (the shim's own, a failed one,
 * one outside the windows) draws the next gap: left as it was, the sample
 * would go to the program's next allocation, however small, weighed as
 * if drawn. */
static inline __attribute__((always_inline)) void *noted(void *p, size_t n)
{
	struct thread_state *ts;
	if (p && win_recording() && (ts = recording()) && sampled(ts, n)) {
		if (watching == FREES_SAMPLED) /* before the record: its free may race it */
			sampleset_add((uintptr_t)p);
		record(ts, REC_ALLOC, p, n);
	} else if (shim_cfg.alloc_sample && (ts = shim_thread) && n >= shim_countdown) {
		shim_countdown = alloc_next_gap(&ts->rng);
	}
	return p;
}

/* A block whose free was recorded but did not happen, recorded again
 * whatever the sampling says (it had been kept). */
static void kept_again(void *p, size_t n)
{
	struct thread_state *ts = recording();
	if (!ts)
		return;
	if (watching == FREES_SAMPLED)
		sampleset_add((uintptr_t)p);
	record(ts, REC_ALLOC, p, n);
}

static void *allocated(void *p, size_t n)
{
	return skipped(n) ? p : noted(p, n);
}

/* Whether a free of p may be recorded. Most frees are of blocks never
 * sampled: the filter says so from memory the cache keeps (exact
 * tracking saturates it). */
static inline bool free_watched(const void *p)
{
	return watching != FREES_NONE && freefilter_maybe((uintptr_t)p);
}

/* A free that free_watched() let through: recorded when its thread
 * records and (sampling) its block was sampled; whether it was recorded.
 * A sampled block leaves the set also when its free cannot be recorded (a
 * thread the shim has already let go), or its address would stay there
 * for good. */
__attribute__((noinline)) static bool freeing(void *p)
{
	struct thread_state *ts = recording();
	bool kept = watching == FREES_ALL || sampleset_take((uintptr_t)p);
	if (!ts || !kept)
		return false;
	record(ts, REC_FREE, p, 0);
	return true;
}

/* ---- the interposed functions ---- */

__attribute__((noinline)) static void *malloc_slow(size_t n)
{
	if (!atomic_load_explicit(&resolved, memory_order_acquire)) {
		if (atomic_load(&resolving))
			return shimheap_alloc(n);
		resolve();
	}
	void *p;
	if (own_heap() && (p = shimheap_alloc(n))) /* full: the program's heap then */
		return p;
	p = real_malloc(n);
	return watching == FREES_NONE ? p : noted(p, n);
}

void *malloc(size_t n)
{
	if (counted_down(n))
		return real_malloc(n);
	return malloc_slow(n);
}

__attribute__((noinline)) static void *calloc_slow(size_t count, size_t n)
{
	if (!atomic_load_explicit(&resolved, memory_order_acquire)) {
		if (atomic_load(&resolving))
			return shimheap_calloc(count, n);
		resolve();
	}
	void *p;
	if (own_heap() && (p = shimheap_calloc(count, n)))
		return p;
	p = real_calloc(count, n);
	return watching == FREES_NONE ? p : noted(p, count * n);
}

void *calloc(size_t count, size_t n)
{
	if (counted_down(count * n))
		return real_calloc(count, n);
	return calloc_slow(count, n);
}

/* A free the filter let through: a block of the shim's heap, or one that
 * may have been sampled. */
__attribute__((noinline)) static void free_slow(void *p)
{
	if (shimheap_owns(p)) {
		shimheap_free(p);
		return;
	}
	if (p && watching != FREES_NONE)
		freeing(p);
	real_free(p);
}

/* The filter says "nothing to do" of most blocks (of all the program's
 * with no --alloc, of none with exact tracking): then the real free at
 * once. */
void free(void *p)
{
	if (freefilter_maybe((uintptr_t)p)) {
		free_slow(p);
		return;
	}
	real_free(p);
}

size_t malloc_usable_size(void *p)
{
	if (shimheap_owns(p))
		return shimheap_usable(p);
	resolve();
	return real_usable_size(p);
}

void *realloc(void *p, size_t n)
{
	resolve();
	if (shimheap_owns(p) || (!p && (own_heap() || atomic_load(&resolving)))) {
		void *q = shimheap_realloc(p, n);
		if (q || !n || atomic_load(&resolving))
			return q;
		/* The shim's heap is full: on to the program's. */
		if ((q = real_malloc(n)) && p) {
			size_t have = shimheap_usable(p);
			memcpy(q, p, have < n ? have : n);
			shimheap_free(p);
		}
		return q;
	}
	size_t old = p ? malloc_usable_size(p) : 0;
	bool freed = p && free_watched(p) && freeing(p);
	void *q = real_realloc(p, n);
	if (q)
		return allocated(q, n);
	if (freed && n) /* failed: the old block lives on, recorded as it was */
		kept_again(p, old);
	return q;
}

void *reallocarray(void *p, size_t count, size_t n)
{
	size_t total;
	if (__builtin_mul_overflow(count, n, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	resolve();
	int rc = real_posix_memalign(out, align, n);
	if (rc == 0)
		allocated(*out, n);
	return rc;
}

void *aligned_alloc(size_t align, size_t n)
{
	resolve();
	return allocated(real_aligned_alloc(align, n), n);
}

void *memalign(size_t align, size_t n)
{
	resolve();
	return allocated(real_memalign(align, n), n);
}

void *valloc(size_t n)
{
	resolve();
	return allocated(real_valloc(n), n);
}

void *pvalloc(size_t n)
{
	resolve();
	return allocated(real_pvalloc(n), n);
}
