/* freefilter.h - which frees the hooks must look at: a counting filter of
 * the addresses that need more than glibc's free, the blocks sampled and
 * not yet freed (sampleset.c) and the blocks of the shim's own heap
 * (shimheap.c). The hooks' free reads one byte of it and, for most
 * blocks, jumps straight to the real free.
 *
 * 64 KiB, one byte per 16-byte address modulo 1 MiB, counting the live
 * addresses there; a byte at 255 stays there (it says "maybe" for good).
 * Unhashed on purpose: a free's neighbours in the heap are its neighbours
 * in the filter, so the lines it reads stay in the cache; addresses 1 MiB
 * apart share a byte, which costs a look further on, never a free.
 *
 * Owns: the filter, a static array (there before any constructor runs).
 */
#ifndef STACKCAP_FREEFILTER_H
#define STACKCAP_FREEFILTER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Counts a live address in, and out again. */
void freefilter_add(uintptr_t a);
void freefilter_remove(uintptr_t a);
/* Every address "maybe" from now on, for good (exact tracking looks at
 * every free). */
void freefilter_saturate(void);

/* False only when no live address counted in shares a's byte. Hidden:
 * the hooks reach it without the GOT. */
#define FREEFILTER_BUCKET(a) (((uint64_t)(a) >> 4) & 0xFFFF)
extern __attribute__((visibility("hidden"))) _Atomic(uint8_t) freefilter_counts[];
static inline bool freefilter_maybe(uintptr_t a)
{
	return atomic_load_explicit(&freefilter_counts[FREEFILTER_BUCKET(a)], memory_order_relaxed) != 0;
}

#endif
