/* sampleset.h - the addresses of the allocations sampled so far and not
 * yet freed (--alloc-sample): a free is recorded only when its address is
 * here, so a sampled run records its sampled allocations and their frees,
 * not every free of the program.
 *
 * An open-addressing table of addresses, lock-free (CAS on slots, plain
 * stores while the process has one thread: onethread.h; freed slots
 * marked and reused), whose reach widens with the live addresses.
 * Every address added is counted into the free hook's filter first
 * (freefilter.h), also one the table cannot hold, so the filter alone may
 * say "surely not". When the table fills, every free the filter lets
 * through is recorded from then on (the readers ignore frees of unsampled
 * blocks): a full set costs speed, never a free.
 *
 * Owns: one anonymous mapping, for the process's lifetime.
 */
#ifndef STACKCAP_SAMPLESET_H
#define STACKCAP_SAMPLESET_H

#include <stdbool.h>
#include <stdint.h>

/* Maps the table; false (and every free recorded) when it cannot. */
bool sampleset_init(void);
/* A sampled allocation at a. */
void sampleset_add(uintptr_t a);
/* Whether a free of a is to be recorded: it was sampled (and is taken
 * out), or the set is full or missing. */
bool sampleset_take(uintptr_t a);

#endif
