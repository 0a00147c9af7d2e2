/* shim.c - libstackcap.so: start-up, per-thread CPU sampling, threads,
 * fork and exit.
 *
 * Each thread gets a POSIX timer on its own CPU-time clock delivering a
 * real-time signal to that thread (SIGEV_THREAD_ID), so samples follow
 * self CPU time exactly and the program's SIGPROF stays its own. The
 * handler unwinds the interrupted stack (libunwind from the signal context,
 * or frame pointers) into the thread's sample ring, weighted by the timer's
 * overruns. No malloc, locks or stdio in the handler; the writer thread
 * (writer.c) drains the rings.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "capture/shim.h"
#include "capture/stackbounds.h"
#include "capture/unwind.h"
#include "capture/window.h"

struct shim_config shim_cfg;
_Atomic int shim_ready;
SHIM_TLS struct thread_state *shim_thread;
SHIM_TLS volatile int shim_guard;
SHIM_TLS uint64_t shim_countdown;
static pid_t shim_pid; /* the process the capture belongs to (not a vfork child) */
_Atomic uint64_t shim_untracked;
_Atomic uint64_t shim_alloc_waits;
_Atomic uint64_t shim_unwind_fallbacks;

static _Atomic(struct thread_state *) registry;
static pthread_key_t thread_key;
static bool sampling;
/* The writer starts without a thread of its own (writer.c says when). */
static bool writer_single;

uint64_t shim_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static pid_t gettid_raw(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* ---- settings (environment; the stackcap launcher sets them) ---- */

static unsigned long env_ulong(const char *name, unsigned long fallback)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return fallback;
	char *end;
	unsigned long v = strtoul(s, &end, 10);
	return *end ? fallback : v;
}

static void read_config(void)
{
	shim_cfg.hz = (unsigned)env_ulong("STACKCAP_HZ", 999);
	if (shim_cfg.hz > 100000)
		shim_cfg.hz = 100000;
	const char *unwind = getenv("STACKCAP_UNWIND");
	shim_cfg.frame_pointers = unwind && strcmp(unwind, "fp") == 0;
	shim_cfg.libunwind_only = unwind && strcmp(unwind, "libunwind") == 0;
	shim_cfg.alloc = env_ulong("STACKCAP_ALLOC", 0) != 0;
	shim_cfg.alloc_sample = env_ulong("STACKCAP_ALLOC_SAMPLE", 0);
	shim_cfg.alloc_drop = env_ulong("STACKCAP_ALLOC_DROP", 0) != 0;
	/* STACKCAP_EVENT_RING: for tests of a ring that fills (a power of 2,
	 * 4 KiB to the default). */
	unsigned long ring = env_ulong("STACKCAP_EVENT_RING", EVENT_RING_BYTES);
	shim_cfg.event_ring = EVENT_RING_BYTES;
	if (ring >= 4096 && ring < EVENT_RING_BYTES && (ring & (ring - 1)) == 0)
		shim_cfg.event_ring = ring;
	shim_cfg.follow_exec = env_ulong("STACKCAP_FOLLOW", 1) != 0;
	const char *out = getenv("STACKCAP_OUTPUT");
	snprintf(shim_cfg.output, sizeof shim_cfg.output, "%s", out && *out ? out : "stackcap.%p.stackcap");
}

/* ---- thread state ---- */

static void stack_bounds(struct thread_state *ts)
{
	if (ts->tid == shim_pid &&
	    main_stack_bounds((uintptr_t)__builtin_frame_address(0), &ts->stack_lo, &ts->stack_hi))
		return;
	pthread_attr_t attr;
	void *addr;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
			ts->stack_lo = (uintptr_t)addr;
			ts->stack_hi = (uintptr_t)addr + size;
		}
		pthread_attr_destroy(&attr);
	}
}

/* One mapping holds the state and both rings: no malloc, and the writer
 * frees it whole. */
static struct thread_state *thread_state_new(void)
{
	size_t head = (sizeof(struct thread_state) + 63) & ~(size_t)63;
	/* The event ring's pages cost nothing until allocations or CUDA calls
	 * are recorded. */
	size_t bytes = head + SAMPLE_RING_BYTES + shim_cfg.event_ring;
	void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	struct thread_state *ts = m;
	ts->map_bytes = bytes;
	ts->tid = gettid_raw();
	ts->rng = (uint64_t)ts->tid * 0x9E3779B97F4A7C15u ^ shim_now_ns();
	ring_init(&ts->samples, (uint8_t *)m + head, SAMPLE_RING_BYTES);
	ring_init(&ts->events, (uint8_t *)m + head + SAMPLE_RING_BYTES, shim_cfg.event_ring);
	stack_bounds(ts);
	return ts;
}

static void registry_push(struct thread_state *ts)
{
	struct thread_state *head = atomic_load(&registry);
	do
		ts->next = head;
	while (!atomic_compare_exchange_weak(&registry, &head, ts));
}

struct thread_state *shim_threads(void)
{
	return atomic_load(&registry);
}

void shim_forget_threads_except(struct thread_state *keep)
{
	if (keep)
		keep->next = NULL;
	atomic_store(&registry, keep);
}

void shim_free_thread(struct thread_state *ts)
{
	munmap(ts, ts->map_bytes);
}

static void arm_timer(struct thread_state *ts)
{
	if (!sampling || shim_cfg.hz == 0)
		return;
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = shim_cfg.signal;
	sev._sigev_un._tid = ts->tid; /* glibc 2.36 has no sigev_notify_thread_id */
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &ts->timer) != 0)
		return;
	long period = 1000000000L / (long)shim_cfg.hz;
	struct itimerspec its = { { period / 1000000000L, period % 1000000000L },
				  { period / 1000000000L, period % 1000000000L } };
	ts->has_timer = true; /* before its first signal, which on_sample checks it for */
	if (timer_settime(ts->timer, 0, &its, NULL) != 0) {
		ts->has_timer = false;
		timer_delete(ts->timer);
	}
}

/* The calling thread starts being sampled and traced. */
static struct thread_state *attach_thread(void)
{
	shim_guard++;
	struct thread_state *ts = thread_state_new();
	if (ts) {
		arm_timer(ts);
		registry_push(ts);
		shim_thread = ts;
		shim_countdown = alloc_first_gap(&ts->rng);
		pthread_setspecific(thread_key, ts);
	}
	shim_guard--;
	return ts;
}

static void push_sample(struct thread_state *ts, const uint64_t *ips, uint32_t n, uint32_t weight);

/* The CPU time the thread used that no sample stands for (threads shorter
 * than a period, the last part of every thread's period), rounded to
 * periods, as one sample: "[unsampled]" under its last sampled stack. Run
 * on the thread itself once its timer is gone. */
uint32_t shim_unsampled_stack(struct thread_state *ts, uint64_t cpu_ns, uint64_t *ips,
			      uint32_t *weight)
{
	if (!sampling || !win_recording()) /* time outside windows is charged nowhere */
		return 0;
	uint64_t period = 1000000000u / shim_cfg.hz;
	uint64_t ticks = (cpu_ns + period / 2) / period;
	if (ticks <= ts->ticks)
		return 0;
	uint32_t n = ts->last_n < MAX_IPS - 1 ? ts->last_n : MAX_IPS - 1;
	ips[0] = SHIM_IP_UNSAMPLED;
	memcpy(ips + 1, ts->last_ips, n * sizeof *ips);
	uint64_t left = ticks - ts->ticks;
	*weight = left > UINT32_MAX ? UINT32_MAX : (uint32_t)left;
	ts->ticks = ticks;
	return n + 1;
}

static void charge_unsampled(struct thread_state *ts)
{
	struct timespec cpu;
	uint64_t ips[MAX_IPS];
	uint32_t n, weight;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0 &&
	    (n = shim_unsampled_stack(ts, (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec,
				      ips, &weight)) > 0)
		push_sample(ts, ips, n, weight);
}

/* pthread key destructor: the thread is exiting. */
static void detach_thread(void *arg)
{
	struct thread_state *ts = arg;
	/* Other keys' destructors may still allocate and free (a key made
	 * after ours runs after ours in a round; one that sets itself again
	 * runs in the next round too): the state is put back each round, and
	 * the thread let go in the last one (glibc goes on while keys are set,
	 * up to PTHREAD_DESTRUCTOR_ITERATIONS rounds). */
	if (ts->exit_rounds + 1 < PTHREAD_DESTRUCTOR_ITERATIONS) {
		ts->exit_rounds++;
		if (pthread_setspecific(thread_key, ts) == 0)
			return;
	}
	/* Read before it is gone: a thread the writer has not named yet would
	 * have no name once /proc/self/task/TID is. */
	if (prctl(PR_GET_NAME, ts->exit_name) != 0)
		ts->exit_name[0] = 0;
	if (atomic_exchange(&ts->has_timer, false)) /* shim_stop may be at it too */
		timer_delete(ts->timer);
	if (atomic_load(&shim_ready))
		charge_unsampled(ts);
	shim_thread = NULL; /* a late signal finds no state and returns */
	shim_countdown = 0;
	atomic_signal_fence(memory_order_seq_cst);
	atomic_store(&ts->dead, 1);
}

/* ---- unwinding ---- */

/* Frame pointers: rbp chain, checked against the thread's stack. */
static uint32_t walk_frame_pointers(const struct thread_state *ts, uintptr_t fp, uint64_t *ips,
				    uint32_t n, uint32_t max)
{
	while (n < max && fp >= ts->stack_lo && fp + 16 <= ts->stack_hi && !(fp & 7)) {
		uintptr_t next = ((const uintptr_t *)fp)[0], ret = ((const uintptr_t *)fp)[1];
		if (!ret)
			break;
		ips[n++] = ret - 1;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

/* The interrupted stack: by frame pointers when asked; else by the
 * hooks' cached .eh_frame rules, the stack itself not kept (a frame a few
 * loads, where libunwind
 * stepped at some 1,000 instructions a frame here), and by libunwind
 * where those give up (counted: shim_unwind_fallbacks): a signal frame
 * below, code without CFI, an alternate stack. Safe in the handler: the
 * walk takes no lock and allocates nothing, and the thread's cache is not
 * in use (a sample that interrupts the shim's own walk, in_tracer, skips
 * this, and the hooks stay out while it runs: on_sample raises the
 * guard). Both walks write the raw addresses into ips, then one pass
 * makes every return address a call's: the interrupted pc is exact. */
_Static_assert(sizeof(uintptr_t) == sizeof(uint64_t), "the fast walk writes into ips");

static uint32_t unwind_signal(struct thread_state *ts, ucontext_t *uc, uint64_t *ips)
{
	const greg_t *regs = uc->uc_mcontext.gregs;
	if (shim_cfg.frame_pointers) {
		ips[0] = (uint64_t)regs[REG_RIP];
		return walk_frame_pointers(ts, (uintptr_t)regs[REG_RBP], ips, 1, MAX_FRAMES);
	}
	int got = -1;
	if (ts->stack_hi && !shim_cfg.libunwind_only)
		got = cfi_backtrace_once(&ts->cfi, (uintptr_t)regs[REG_RIP],
					 (uintptr_t)regs[REG_RSP], (uintptr_t)regs[REG_RBP],
					 ts->stack_lo, ts->stack_hi, (uintptr_t *)ips, MAX_FRAMES);
	uint32_t n = got > 0 ? (uint32_t)got : 0;
	if (got <= 0) {
		if (!shim_cfg.libunwind_only)
			atomic_fetch_add_explicit(&shim_unwind_fallbacks, 1, memory_order_relaxed);
		unw_cursor_t cur;
		if (!shim_libunwind(true) ||
		    unw_init_local2(&cur, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) != 0)
			return 0;
		do {
			unw_word_t ip;
			if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0 || ip == 0)
				break;
			ips[n++] = ip;
		} while (n < MAX_FRAMES && unw_step(&cur) > 0);
	}
	for (uint32_t i = 1; i < n; i++)
		ips[i] -= 1;
	return n;
}

uintptr_t shim_self_lo, shim_self_hi;

/* 0: not set up, 1: being set up, 2: ready. Per-thread caches: no lock
 * and no signal mask taken a step (unw_step's global cache takes both). */
static _Atomic int libunwind_state;
static SHIM_TLS bool setting_up_libunwind; /* this thread is, under whatever interrupted it */

bool shim_libunwind(bool in_handler)
{
	int state = atomic_load_explicit(&libunwind_state, memory_order_acquire);
	while (state != 2) {
		if (state == 0 && atomic_compare_exchange_strong(&libunwind_state, &state, 1)) {
			setting_up_libunwind = true;
			unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
			setting_up_libunwind = false;
			atomic_store_explicit(&libunwind_state, 2, memory_order_release);
			return true;
		}
		/* Being set up: by another thread, which a hook waits for, or
		 * by the code a signal interrupted, which cannot go on until
		 * the handler returns: the shim's, or the program's that
		 * allocates (a hook then, on this very thread). */
		if (in_handler || setting_up_libunwind)
			return false;
		__builtin_ia32_pause();
		state = atomic_load_explicit(&libunwind_state, memory_order_acquire);
	}
	return true;
}

struct code_search {
	uintptr_t addr, lo, hi;
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	struct code_search *q = ctx;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && q->addr >= lo && q->addr < lo + ph->p_memsz) {
			q->lo = lo;
			q->hi = lo + ph->p_memsz;
			return 1;
		}
	}
	return 0;
}

bool shim_code_range(const void *addr, uintptr_t *lo, uintptr_t *hi)
{
	struct code_search q = { .addr = (uintptr_t)addr };
	if (!addr || !dl_iterate_phdr(find_segment, &q))
		return false;
	*lo = q.lo, *hi = q.hi;
	return true;
}

uint32_t shim_fp_stack_here(uint64_t *ips)
{
	const struct thread_state *ts = shim_thread;
	if (!ts || !shim_self_hi || !ts->stack_hi)
		return shim_stack_here(ips, 3);
	uint64_t raw[MAX_FRAMES + 16];
	uint32_t got = walk_frame_pointers(ts, (uintptr_t)__builtin_frame_address(0), raw, 0,
					   MAX_FRAMES + 16);
	uint32_t i = 0, n = 0;
	while (i < got && raw[i] >= shim_self_lo && raw[i] < shim_self_hi) /* the hook's frames */
		i++;
	for (; i < got && n < MAX_FRAMES; i++)
		ips[n++] = raw[i];
	return py_walk(ips, n, MAX_IPS);
}

/* libc's and the dynamic linker's code: what they run may be inside
 * malloc or dlopen. */
static uintptr_t libc_lo, libc_hi, ldso_lo, ldso_hi;

static bool in_code(uintptr_t pc, uintptr_t lo, uintptr_t hi)
{
	return pc >= lo && pc < hi;
}

bool shim_in_runtime(uintptr_t pc)
{
	return in_code(pc, libc_lo, libc_hi) || in_code(pc, ldso_lo, ldso_hi);
}

/* Whether this signal may start the writer's thread: what it interrupted
 * is the program's own code (not libc's, the dynamic linker's or the
 * shim's) and no handler of the program's runs over other code (no
 * sigreturn frame below), so the program could have started a thread
 * there itself. A stack the unwinder cannot finish says no. */
static bool may_start_writer(const struct thread_state *ts, ucontext_t *uc)
{
	uintptr_t pc = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	if (ts->in_tracer || shim_guard || in_code(pc, shim_self_lo, shim_self_hi) ||
	    shim_in_runtime(pc))
		return false;
	unw_cursor_t cur;
	if (!shim_libunwind(true) ||
	    unw_init_local2(&cur, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) != 0)
		return false;
	for (int i = 0; i < 4096; i++) {
		int step = unw_step(&cur);
		if (step <= 0)
			return step == 0; /* 0: the outermost frame */
		if (unw_is_signal_frame(&cur) > 0)
			return false;
	}
	return false;
}

static void push_sample(struct thread_state *ts, const uint64_t *ips, uint32_t n, uint32_t weight)
{
	uint32_t size = (uint32_t)(sizeof(struct rec_sample) + n * sizeof(uint64_t));
	uint64_t tail;
	struct rec_sample *r = (struct rec_sample *)ring_reserve(&ts->samples, size, &tail);
	if (!r) {
		atomic_fetch_add_explicit(&ts->dropped_samples, 1, memory_order_relaxed);
		return;
	}
	r->h.type = REC_SAMPLE;
	r->t_ns = shim_now_ns();
	r->weight = weight;
	r->nframes = n;
	memcpy(r->ips, ips, n * sizeof *ips);
	if (ring_commit(&ts->samples, tail))
		writer_kick();
}

static void on_sample(int sig, siginfo_t *si, void *uctx)
{
	(void)sig;
	int saved_errno = errno;
	struct thread_state *ts = shim_thread;
	/* A signal its deleted timer left queued: the thread's time from here
	 * on is charged from its CPU clock (charge_unsampled), which may be
	 * pushing to this ring right now, so nothing is pushed. */
	if (ts && !atomic_load_explicit(&ts->has_timer, memory_order_relaxed))
		ts = NULL;
	if (ts && si->si_code == SI_TIMER && !win_recording()) {
		/* Outside the capture windows: the time counts as seen, so no
		 * "[unsampled]" charge claims it later, and no stack from
		 * before the window stands for what follows. */
		ts->ticks += 1 + (uint32_t)(si->si_overrun > 0 ? si->si_overrun : 0);
		ts->last_n = 0;
	} else if (ts && si->si_code == SI_TIMER) {
		uint64_t ips[MAX_IPS];
		uint32_t n = 0;
		if (!ts->in_tracer) {
			ts->in_tracer = 1;
			shim_guard++; /* a nested SIGSEGV's handler that allocates is not recorded */
			n = py_walk(ips, unwind_signal(ts, uctx, ips), MAX_IPS);
			shim_guard--;
			ts->in_tracer = 0;
		}
		/* The kernel checks CPU timers at its tick (100-1000 Hz), so a
		 * signal stands for up to hz/100 periods. When the thread blocked
		 * the signal since its last sample (sigmask.c), more than that
		 * were counted while it was blocked: that time goes to a
		 * "[signal blocked]" stack, not to whatever runs now. Otherwise
		 * the signal only came late, and its weight is this stack's. */
		uint32_t weight = 1 + (uint32_t)(si->si_overrun > 0 ? si->si_overrun : 0);
		uint32_t mask_blocks = ts->mask_blocks;
		bool was_blocked = mask_blocks != ts->mask_blocks_seen;
		ts->mask_blocks_seen = mask_blocks;
		ts->ticks += weight;
		if (n > 0) { /* where the time not sampled will be charged */
			memcpy(ts->last_ips, ips, n * sizeof *ips);
			ts->last_n = n;
		}
		uint32_t coalesced = 2 + shim_cfg.hz / 100;
		if (was_blocked && weight > coalesced) {
			uint64_t blocked = SHIM_IP_BLOCKED;
			push_sample(ts, &blocked, 1, weight - coalesced);
			weight = coalesced;
		}
		push_sample(ts, ips, n, weight);
		/* A single-threaded program that has stopped allocating no
		 * longer runs the writer's cycles: it gets its thread. */
		if (writer_overdue() && may_start_writer(ts, uctx))
			writer_go_threaded();
	}
	errno = saved_errno;
}

/* A real-time signal nobody handles: the program keeps SIGPROF and its
 * own real-time signals (STACKCAP_SIGNAL picks one), and the toggle
 * signal is not one of them. */
static int choose_signal(void)
{
	unsigned long want = env_ulong("STACKCAP_SIGNAL", 0);
	for (int sig = want ? (int)want : SIGRTMIN + 4; sig <= SIGRTMAX; sig++) {
		struct sigaction old;
		bool toggle = win_spec.trigger == FK_WIN_TOGGLE && sig == win_spec.signal;
		if (!toggle && sigaction(sig, NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			return sig;
		if (want)
			break;
	}
	return -1;
}

/* ---- threads the program creates ---- */

struct start {
	void *(*fn)(void *);
	void *arg;
};

static void *thread_trampoline(void *p)
{
	struct start s = *(struct start *)p;
	shim_guard++;
	free(p);
	shim_guard--;
	if (atomic_load(&shim_ready))
		attach_thread();
	return s.fn(s.arg);
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static pthread_create_fn real;
	if (!real)
		real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
	if (!atomic_load(&shim_ready) || shim_guard)
		return real(thread, attr, fn, arg);
	shim_guard++;
	writer_go_threaded(); /* the program is no longer single-threaded */
	struct start *s = malloc(sizeof *s);
	shim_guard--;
	if (!s)
		return real(thread, attr, fn, arg);
	s->fn = fn, s->arg = arg;
	int rc = real(thread, attr, thread_trampoline, s);
	if (rc != 0) {
		shim_guard++;
		free(s);
		shim_guard--;
	}
	return rc;
}

/* ---- fork ---- */

/* The writer is held between cycles, so the child inherits whole tables. */
static void before_fork(void)
{
	shim_guard++;
	writer_pause();
}

static void after_fork_parent(void)
{
	writer_resume();
	shim_guard--;
}

/* The child has one thread and no writer; timers are not inherited. It
 * captures into its own file from here on. */
static void after_fork_child(void)
{
	struct thread_state *self = shim_thread;
	shim_pid = getpid();
	shim_forget_threads_except(self); /* the other threads' states are leaked, not touched */
	if (self) {
		self->tid = gettid_raw();
		/* Its own sampling: forked siblings would keep the same bytes. */
		self->rng ^= (uint64_t)self->tid * 0x9E3779B97F4A7C15u ^ shim_now_ns();
		shim_countdown = alloc_first_gap(&self->rng);
		self->has_timer = false;
		ring_init(&self->samples, self->samples.data, self->samples.size);
		ring_init(&self->events, self->events.data, self->events.size);
		arm_timer(self);
	}
	cupti_after_fork_child();
	writer_after_fork_child();
	shim_guard--;
}

/* ---- start and stop ---- */

__attribute__((constructor)) static void shim_start(void)
{
	shim_guard++;
	shim_pid = getpid();
	read_config();
	if (!win_init()) { /* a bad window setting: said why */
		shim_guard--;
		return;
	}
	win_take_signal();
	shim_cfg.alloc_set = shim_cfg.alloc_sample || win_windowed;
	shim_code_range((const void *)&find_segment, &shim_self_lo, &shim_self_hi);
	if (!shim_cfg.follow_exec)
		unsetenv("LD_PRELOAD"); /* children run untraced */
	if (pthread_key_create(&thread_key, detach_thread) != 0) {
		shim_guard--;
		return;
	}
	shim_cfg.signal = choose_signal();
	sampling = shim_cfg.signal > 0 && shim_cfg.hz > 0;
	if (sampling) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_sigaction = on_sample;
		sa.sa_flags = SA_SIGINFO | SA_RESTART;
		sigfillset(&sa.sa_mask);
		/* A fault while blocked kills the process: the Python walk's
		 * guard (pyguard.c) must receive its faults here too. */
		sigdelset(&sa.sa_mask, SIGSEGV);
		sigdelset(&sa.sa_mask, SIGBUS);
		sampling = sigaction(shim_cfg.signal, &sa, NULL) == 0;
	}
	alloc_init();
	shim_code_range(dlsym(RTLD_NEXT, "clock_gettime"), &libc_lo, &libc_hi);
	shim_code_range(dlsym(RTLD_NEXT, "__tls_get_addr"), &ldso_lo, &ldso_hi);
	/* Sampled allocations in a program that is single-threaded so far:
	 * the hooks run the writer's cycles, so glibc's malloc stays lock-free
	 * (writer.c). Windows need the writer's timed wake-ups. */
	writer_single = shim_cfg.alloc && shim_cfg.alloc_sample && !win_windowed &&
			alloc_hooks_active();
	py_detect(); /* again from the writer whenever objects are loaded */
	cupti_prepare();
	nvtx_prepare();
	if (!writer_start(writer_single)) {
		shim_guard--;
		return;
	}
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	atomic_store(&shim_ready, 1);
	shim_guard--;
	attach_thread();
}

__attribute__((destructor)) static void shim_stop(void)
{
	/* A vfork child shares our memory: it must not touch the capture. */
	if (getpid() != shim_pid || !atomic_exchange(&shim_ready, 0))
		return;
	shim_guard++;
	for (struct thread_state *ts = shim_threads(); ts; ts = ts->next)
		if (!atomic_load(&ts->dead) && atomic_exchange(&ts->has_timer, false))
			timer_delete(ts->timer);
	/* This thread's unsampled time; other live threads' are charged by
	 * the writer's last cycle (their rings are their own). */
	if (shim_thread)
		charge_unsampled(shim_thread);
	cupti_stop();
	writer_stop();
	shim_guard--;
}

/* ---- leaving without destructors: _exit, and exec ---- */

/* _exit and _Exit run no destructors (shells leave this way): finish the
 * capture first. A vfork child's _exit is passed straight on. */
typedef void (*exit_fn)(int);

__attribute__((noreturn)) void _exit(int status)
{
	shim_stop();
	((exit_fn)dlsym(RTLD_NEXT, "_exit"))(status);
	__builtin_unreachable();
}

__attribute__((noreturn)) void _Exit(int status)
{
	shim_stop();
	((exit_fn)dlsym(RTLD_NEXT, "_Exit"))(status);
	__builtin_unreachable();
}

/* Code unloaded: the hooks' unwinder forgets the rules it read, for
 * another object may come to the same addresses. */
int dlclose(void *handle)
{
	typedef int (*dlclose_fn)(void *);
	static dlclose_fn real;
	if (!real)
		real = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
	int rc = real(handle);
	cfi_forget_all();
	return rc;
}

/* An exec ends this image's capture cleanly; if the exec fails the
 * process goes on, captured into a new file. */
static void before_exec(void)
{
	shim_stop();
}

static void after_failed_exec(void)
{
	if (getpid() != shim_pid || atomic_load(&shim_ready))
		return;
	shim_guard++;
	bool ok = writer_start(false); /* its other threads may live on */
	shim_guard--;
	if (ok) {
		atomic_store(&shim_ready, 1);
		if (shim_thread) /* the other threads' timers are gone: this one goes on */
			arm_timer(shim_thread);
	}
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);

int execve(const char *path, char *const argv[], char *const envp[])
{
	before_exec();
	int rc = ((execve_fn)dlsym(RTLD_NEXT, "execve"))(path, argv, envp);
	int e = errno;
	after_failed_exec();
	errno = e;
	return rc;
}

int execv(const char *path, char *const argv[])
{
	before_exec();
	int rc = ((execv_fn)dlsym(RTLD_NEXT, "execv"))(path, argv);
	int e = errno;
	after_failed_exec();
	errno = e;
	return rc;
}

int execvp(const char *file, char *const argv[])
{
	before_exec();
	int rc = ((execv_fn)dlsym(RTLD_NEXT, "execvp"))(file, argv);
	int e = errno;
	after_failed_exec();
	errno = e;
	return rc;
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
	before_exec();
	int rc = ((execve_fn)dlsym(RTLD_NEXT, "execvpe"))(file, argv, envp);
	int e = errno;
	after_failed_exec();
	errno = e;
	return rc;
}

/* execl, execlp and execle reach execve inside libc, past the hooks above:
 * their lists become vectors here and go through the vector hooks. */
static char **list_to_vector(const char *arg0, va_list ap)
{
	va_list count;
	va_copy(count, ap);
	size_t n = 0;
	if (arg0)
		for (n = 1; va_arg(count, char *); n++)
			;
	va_end(count);
	char **argv = malloc((n + 1) * sizeof *argv);
	if (!argv)
		return NULL;
	argv[0] = (char *)arg0;
	for (size_t i = 1; i <= n; i++) /* the rest, and the NULL that ends them */
		argv[i] = va_arg(ap, char *);
	return argv;
}

/* Runs the vector through exec (one of the hooks above); the vector is
 * ours to free when the exec fails. */
static int exec_vector(int (*exec)(const char *, char *const[], char *const[]), const char *file,
		       char **argv, char *const envp[])
{
	if (!argv) {
		errno = ENOMEM;
		return -1;
	}
	int rc = exec(file, argv, envp);
	int e = errno;
	free(argv);
	errno = e;
	return rc;
}

int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	char **argv = list_to_vector(arg, ap);
	va_end(ap);
	return exec_vector(execve, path, argv, environ);
}

int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	char **argv = list_to_vector(arg, ap);
	va_end(ap);
	return exec_vector(execvpe, file, argv, environ);
}

int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	va_start(ap, arg);
	char **argv = list_to_vector(arg, ap);
	char *const *envp = va_arg(ap, char *const *); /* after the NULL */
	va_end(ap);
	return exec_vector(execve, path, argv, envp);
}
