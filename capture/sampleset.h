/* sampleset.h - the addresses of the allocations sampled so far and not
 * yet freed (--alloc-sample): a free is recorded only when its address is
 * here, so a sampled run records its sampled allocations and their frees,
 * not every free of the program.
 *
 * An open-addressing table of addresses, lock-free (CAS on slots, freed
 * slots marked and reused), whose reach widens with the live addresses.
 * When it fills, every free the filter lets through is recorded from then
 * on (the readers ignore frees of unsampled blocks): a full set costs
 * speed, never a free.
 *
 * Owns: one anonymous mapping, for the process's lifetime.
 */
#ifndef STACKCAP_SAMPLESET_H
#define STACKCAP_SAMPLESET_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* Maps the table; false (and every free recorded) when it cannot. */
bool sampleset_init(void);
/* Every address "maybe" from now on, for good: exact tracking looks at
 * every free, and the hooks' free asks the filter only. */
void sampleset_watch_all(void);
/* A sampled allocation at a. */
void sampleset_add(uintptr_t a);
/* Whether a free of a is to be recorded: it was sampled (and is taken
 * out), or the set is full or missing. */
bool sampleset_take(uintptr_t a);

/* False only when a is surely not in the set: a counting filter of 64 KiB,
 * one byte per 16-byte address modulo 1 MiB, counting the live sampled
 * addresses there. Every address added counts here first, also one the
 * table cannot hold (full, or never mapped), so the filter alone may say
 * "surely not". Unhashed on purpose: a free's neighbours in the heap
 * are its neighbours in the filter, so the lines it reads stay in the
 * cache where the table's (hashed) do not; addresses 1 MiB apart share a
 * byte, which costs a look in the table, never a free. Hidden: the hooks
 * reach it without the GOT. */
#define SAMPLESET_BUCKET(a) (((uint64_t)(a) >> 4) & 0xFFFF)
extern __attribute__((visibility("hidden"))) _Atomic(uint8_t) sampleset_filter[];
static inline bool sampleset_maybe(uintptr_t a)
{
	return atomic_load_explicit(&sampleset_filter[SAMPLESET_BUCKET(a)], memory_order_relaxed) != 0;
}

#endif
