/* unwind.h - the stack of the code that calls into the shim (a hook, a
 * CUDA callback), by libunwind: always inlined, so the hook that asks is
 * the unwinder's first frame. libunwind's fast path costs about 8.5 ns a
 * frame here, and every frame of the shim between the hook and the
 * unwinder was one more step per recorded allocation.
 */
#ifndef STACKCAP_UNWIND_H
#define STACKCAP_UNWIND_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "capture/cfiunwind.h"
#include "capture/shim.h"

/* Whether libunwind may be called: set up on its first use, wherever that
 * is, a signal handler included (its set-up is the one unw_init_local
 * runs lazily, signal-safe, and nothing of it is in use before). Outside
 * a handler it waits for a set-up under way in another thread; in one,
 * false while any is under way (the code it interrupted may be doing it),
 * as in a hook called by a program's handler that interrupted its own
 * thread's set-up: that one stack goes without. Left to its first use, its set-up (0.3-0.9
 * ms and a dozen page faults on a VM) is paid only by captures that need
 * it, now that the .eh_frame rules take nearly every stack. */
bool shim_libunwind(bool in_handler);

/* The shim's own code (its loaded text; 0, 0 until found): its frames are
 * dropped from a hook's stack whatever the compiler inlined. */
extern __attribute__((visibility("hidden"))) uintptr_t shim_self_lo, shim_self_hi;

/* Leaf-first return addresses of the caller (at most max, up to
 * SHIM_MAX_UNWIND), stored minus 1: the shim's own frames dropped, or
 * (before the shim's code is known) skip frames. */
static inline __attribute__((always_inline)) uint32_t shim_unwind_here(uint64_t *ips, uint32_t max,
								      uint32_t skip)
{
	void *buf[SHIM_MAX_UNWIND + 16];
	int want = (int)(max < SHIM_MAX_UNWIND ? max : SHIM_MAX_UNWIND) + 16;
	int got = -1;
#if defined(__x86_64__)
	struct thread_state *ts = shim_thread;
	if (ts && ts->stack_hi && !shim_cfg.libunwind_only) {
		/* This frame's registers: the walk starts here, in the hook. */
		uintptr_t pc, sp, bp;
		__asm__ volatile("mov %%rbp, %2\n\tlea 0(%%rip), %0\n\tmov %%rsp, %1"
				 : "=&r"(pc), "=&r"(sp), "=&r"(bp));
		got = cfi_backtrace(&ts->cfi, pc, sp, bp, ts->stack_lo, ts->stack_hi,
				    (uintptr_t *)buf, want);
	}
#endif
	if (got < 0)
		got = shim_libunwind(false) ? unw_backtrace(buf, want) : 0;
	int i = 0;
	if (shim_self_hi) {
		while (i < got && (uintptr_t)buf[i] >= shim_self_lo && (uintptr_t)buf[i] < shim_self_hi)
			i++;
	} else {
		i = (int)skip;
	}
	uint32_t n = 0;
	for (; i < got && n < max; i++)
		ips[n++] = (uint64_t)(uintptr_t)buf[i] - 1;
	return n;
}

/* The same (at most MAX_FRAMES), then the thread's Python frames: room
 * for MAX_IPS. */
static inline __attribute__((always_inline)) uint32_t shim_stack_here(uint64_t *ips, uint32_t skip)
{
	return py_walk(ips, shim_unwind_here(ips, MAX_FRAMES, skip), MAX_IPS);
}

#endif
