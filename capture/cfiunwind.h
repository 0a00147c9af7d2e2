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
 * cache, whose pages are touched as it fills). A cache is one thread's:
 * not thread-safe, and not for a signal handler that may interrupt a walk
 * on the same cache.
 */
#ifndef STACKCAP_CFIUNWIND_H
#define STACKCAP_CFIUNWIND_H

#include <stdbool.h>
#include <stdint.h>

#include "capture/cfi.h"

#define CFI_CACHE_SLOTS 1024 /* 16 KiB; an interpreter's loop meets a few hundred */
#define CFI_STACKS 16        /* whole stacks kept */
#define CFI_STACK_MAX 128    /* frames of a stack kept: a torch op's, under Python's */
/* The words a kept stack may need: a return address and bp checked a
 * step, then its frames. */
#define CFI_STACK_WORDS (2 * 2 * (CFI_STACK_MAX + 1) + CFI_STACK_MAX)
#define CFI_POOL_WORDS (16 * CFI_STACK_WORDS) /* 80 KiB */

/* A stack walked before, and the memory its walk read: while the innermost
 * frame's registers are the same and those words still hold what they
 * held, a walk would read the same rules and the same words again, so it
 * would give the same frames (or fail the same way). The words are
 * independent loads, not a chain of them: a program that allocates from
 * one place in a loop pays a compare a frame. */
struct cfi_stack {
	uintptr_t pc, sp, bp; /* the innermost frame's; pc 0: empty */
	uintptr_t hi;         /* the stack's top it was walked under */
	bool bp_used;         /* whether a rule read bp before a frame restored it */
	int32_t max;          /* the walk's max, which its result depends on */
	int32_t n;            /* its result: frames, or -1 */
	uint32_t nchecks;
	uint32_t at;          /* in the pool: nchecks (address, value) pairs, then n frames */
};

/* Kept stacks take what they need from the pool, one after another: a
 * malloc loop's few short stacks sit in one page, where slots of the
 * largest size (5 KiB each) had a page fault each, 10 us on a VM. A pool
 * too full for the deepest stack starts over, forgetting the stacks kept. */
struct cfi_cache {
	uint32_t generation; /* cfi_forget_all()'s count when it was filled */
	uint32_t pool_used;  /* words of the pool taken since it started over */
	struct cfi_cache_slot {
		uintptr_t pc; /* 0: empty */
		struct cfi_rule rule;
	} slots[CFI_CACHE_SLOTS];
	struct cfi_stack stacks[CFI_STACKS];
	uintptr_t pool[CFI_POOL_WORDS];
};

/* The return addresses of the frames from the one at (pc, sp, bp) out,
 * leaf first as unw_backtrace gives them (out[0] is pc), at most max.
 * [lo, hi) is the thread's stack: memory is read only between sp and hi,
 * its live part, and an sp outside it (a signal's alternate stack, a
 * fiber's) is left to libunwind. -1 when a frame cannot be stepped by its
 * rule here. The stack is kept for the next walk from the same place. */
int cfi_backtrace(struct cfi_cache *c, uintptr_t pc, uintptr_t sp, uintptr_t bp, uintptr_t lo,
		  uintptr_t hi, uintptr_t *out, int max);

/* The same for a stack interrupted anywhere (the CPU sampler's): its rules
 * are kept, the stack is not. A signal's pc and sp are rarely seen twice,
 * and keeping them would push out the hooks' stacks. */
int cfi_backtrace_once(struct cfi_cache *c, uintptr_t pc, uintptr_t sp, uintptr_t bp,
		       uintptr_t lo, uintptr_t hi, uintptr_t *out, int max);

/* Every cache forgets its rules (lazily, at its next walk): code was
 * unloaded, and another object may be loaded at its addresses. */
void cfi_forget_all(void);

#endif
