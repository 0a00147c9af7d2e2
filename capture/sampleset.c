/* sampleset.c - sampled addresses (see sampleset.h). */
#include "capture/sampleset.h"

#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>

#include "capture/freefilter.h"
#include "capture/onethread.h"

/* The table grows in reaches: reach k is 2^k slots of its own, at slot
 * 2^k. New addresses go to the widest reach so far, and one that needed
 * more than WIDEN_AFTER probes to place opens the next, twice as wide (no
 * count of the live addresses: one more locked instruction in each add
 * and take, the dearest thing they did). The first is 512 slots (4 KiB,
 * one page): a program with few sampled blocks live at once never needs
 * more, and a sampled allocation's add and take then touch lines the
 * cache keeps, not a random line of megabytes (and, the first time, a
 * page fault each: 4,096 slots first cost a malloc loop 8 of them, 10 us
 * each on a VM). The widest, 2^18 slots: at a 512 KiB sampling mean,
 * 196,608 sampled blocks live at once is some 100 GB of heap. Entries
 * never move: a take looks in every reach opened, widest first, ten at
 * most. */
#define FIRST_REACH 9
#define LAST_REACH 18
#define SLOTS ((size_t)2 << LAST_REACH) /* reach k at [2^k, 2^(k+1)) */
#define MAX_PROBE 64        /* probes before a reach counts as full */
#define WIDEN_AFTER 16      /* probes that say a reach is crowded */
#define EMPTY 0
#define FREED 1             /* was an address: probing goes on past it */

static _Atomic(uintptr_t) *slots;
static _Atomic int sampleset_full; /* frees that pass the filter are all recorded from now on */
static _Atomic unsigned widest = FIRST_REACH;

bool sampleset_init(void)
{
	void *m = mmap(NULL, SLOTS * sizeof *slots, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (m == MAP_FAILED) {
		atomic_store(&sampleset_full, 1);
		return false;
	}
	slots = m;
	return true;
}

/* The slot of reach k where a's probing starts, and the next one. */
static size_t home(uintptr_t a, unsigned k)
{
	return ((size_t)1 << k) + (size_t)(((uint64_t)a >> 4) * 0x9E3779B97F4A7C15u >> (64 - k));
}

static size_t next_slot(size_t s, unsigned k)
{
	return ((s + 1) & (((size_t)1 << k) - 1)) | ((size_t)1 << k);
}

/* Sets a slot that held cur to v; false when another thread changed it
 * first. */
static bool claim(_Atomic(uintptr_t) *slot, uintptr_t cur, uintptr_t v)
{
	if (one_thread()) {
		atomic_store_explicit(slot, v, memory_order_relaxed);
		return true;
	}
	return atomic_compare_exchange_strong(slot, &cur, v);
}

/* Opens the reach after k, unless another thread did (then it is open);
 * false when k is the last. */
static bool widen(unsigned k)
{
	if (k >= LAST_REACH)
		return false;
	atomic_compare_exchange_strong(&widest, &k, k + 1);
	return true;
}

void sampleset_add(uintptr_t a)
{
	if (a <= FREED)
		return;
	freefilter_add(a); /* first: a free racing the insertion must look */
	if (!slots || atomic_load_explicit(&sampleset_full, memory_order_relaxed))
		return;
	unsigned k;
	do {
		k = atomic_load(&widest);
		for (size_t i = 0, s = home(a, k); i < MAX_PROBE; i++, s = next_slot(s, k)) {
			uintptr_t cur = atomic_load_explicit(&slots[s], memory_order_relaxed);
			if ((cur == EMPTY || cur == FREED) && claim(&slots[s], cur, a)) {
				if (i >= WIDEN_AFTER)
					widen(k);
				return;
			}
		}
	} while (widen(k)); /* crowded here: in the next reach */
	atomic_store(&sampleset_full, 1); /* a free of a must not be missed */
}

/* Takes a out of reach k; whether it was there. */
static bool take_from(uintptr_t a, unsigned k)
{
	for (size_t i = 0, s = home(a, k); i < MAX_PROBE; i++, s = next_slot(s, k)) {
		uintptr_t cur = atomic_load_explicit(&slots[s], memory_order_acquire);
		if (cur == EMPTY)
			return false;
		if (cur == a && claim(&slots[s], cur, FREED)) {
			freefilter_remove(a);
			return true;
		}
	}
	return false;
}

bool sampleset_take(uintptr_t a)
{
	if (!slots || atomic_load_explicit(&sampleset_full, memory_order_relaxed))
		return true;
	/* a went into a reach opened before its free: its add came first. */
	for (unsigned k = atomic_load(&widest); k >= FIRST_REACH; k--)
		if (take_from(a, k))
			return true;
	/* Not within the probe limit: present only if the set filled meanwhile. */
	return atomic_load(&sampleset_full);
}
