/* cfiunwind.h - a stack walked by .eh_frame rules (cfi.h), each code
 * address's rule kept in a per-thread cache, for the allocation hooks.
 *
 * libunwind's unw_backtrace, which caches rules too, cost the exact
 * --alloc run about 8.5 ns a frame on every allocation (a third of the
 * program's time). Here a frame is one hash probe and two loads. A frame
 * whose rule is not a register plus an offset (a signal frame, a realigned
 * stack, code without CFI) makes the whole walk fail, and the caller asks
 * libunwind: this is a fast path, never a second opinion.
 *
 * Owns: nothing; the cache is the caller's (zeroed memory is an empty
 * cache). A cache is one thread's: not thread-safe, and not for a signal
 * handler that may interrupt a walk on the same cache.
 */
#ifndef STACKCAP_CFIUNWIND_H
#define STACKCAP_CFIUNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/cfi.h"

#define CFI_CACHE_SLOTS 1024 /* 16 KiB; an interpreter's loop meets a few hundred */
#define CFI_STACKS 16        /* whole stacks kept */
#define CFI_STACK_MAX 128    /* frames of a stack kept: a torch op's, under Python's */

/* A stack walked before, and the memory its walk read: while the innermost
 * frame's registers are the same and those words still hold what they
 * held, a walk would read the same rules and the same words again, so it
 * would give the same frames (or fail the same way). The words are
 * independent loads, not a chain of them: a program that allocates from
 * one place in a loop pays a compare a frame. About 5 KiB each, in pages
 * touched only when used. */
struct cfi_stack {
	uintptr_t pc, sp, bp; /* the innermost frame's; pc 0: empty */
	uintptr_t hi;         /* the stack's top it was walked under */
	bool bp_used;         /* whether a rule read bp before a frame restored it */
	int32_t max;          /* the walk's max, which its result depends on */
	int32_t n;            /* its result: frames, or -1 */
	uint32_t nchecks;
	uintptr_t out[CFI_STACK_MAX];
	struct cfi_check {
		uintptr_t at, was;
	} checks[2 * (CFI_STACK_MAX + 1)]; /* a return address and bp a step */
};

struct cfi_cache {
	uint32_t generation; /* cfi_forget_all()'s count when it was filled */
	struct cfi_cache_slot {
		uintptr_t pc; /* 0: empty */
		struct cfi_rule rule;
	} slots[CFI_CACHE_SLOTS];
	struct cfi_stack stacks[CFI_STACKS];
};

/* The return addresses of the frames from the one at (pc, sp, bp) out,
 * leaf first as unw_backtrace gives them (out[0] is pc), at most max.
 * [lo, hi) is the thread's stack: memory is read only between sp and hi,
 * its live part, and an sp outside it (a signal's alternate stack, a
 * fiber's) is left to libunwind. -1 when a frame cannot be stepped by its
 * rule here. */
int cfi_backtrace(struct cfi_cache *c, uintptr_t pc, uintptr_t sp, uintptr_t bp, uintptr_t lo,
		  uintptr_t hi, uintptr_t *out, int max);

/* Every cache forgets its rules (lazily, at its next walk): code was
 * unloaded, and another object may be loaded at its addresses. */
void cfi_forget_all(void);

#endif
