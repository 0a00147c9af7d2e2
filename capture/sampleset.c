/* sampleset.c - sampled addresses (see sampleset.h). */
#include "capture/sampleset.h"

#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>

/* 2^18 slots (2 MiB): at a 512 KiB sampling mean, 196,608 sampled blocks
 * live at once is some 100 GB of heap. */
#define SLOTS_LOG2 18
#define SLOTS ((size_t)1 << SLOTS_LOG2)
#define MAX_PROBE 64        /* probes before the set counts as full */
#define EMPTY 0
#define FREED 1             /* was an address: probing goes on past it */

static _Atomic(uintptr_t) *slots;
static _Atomic int sampleset_full; /* frees that pass the filter are all recorded from now on */

/* The filter: how many live sampled addresses hash to each bucket. A
 * bucket at 255 stays there (it then always says "maybe"). */
#define FILTER_SATURATED 255
_Atomic(uint8_t) sampleset_filter[(size_t)1 << 16];

static _Atomic(uint8_t) *bucket(uintptr_t a)
{
	return &sampleset_filter[SAMPLESET_BUCKET(a)];
}

static void filter_add(uintptr_t a)
{
	_Atomic(uint8_t) *b = bucket(a);
	uint8_t v = atomic_load_explicit(b, memory_order_relaxed);
	while (v != FILTER_SATURATED &&
	       !atomic_compare_exchange_weak_explicit(b, &v, (uint8_t)(v + 1), memory_order_relaxed,
						      memory_order_relaxed)) {
	}
}

static void filter_remove(uintptr_t a)
{
	_Atomic(uint8_t) *b = bucket(a);
	uint8_t v = atomic_load_explicit(b, memory_order_relaxed);
	while (v != FILTER_SATURATED && v != 0 &&
	       !atomic_compare_exchange_weak_explicit(b, &v, (uint8_t)(v - 1), memory_order_relaxed,
						      memory_order_relaxed)) {
	}
}

void sampleset_watch_all(void)
{
	for (size_t i = 0; i < sizeof sampleset_filter; i++)
		atomic_store_explicit(&sampleset_filter[i], FILTER_SATURATED, memory_order_relaxed);
}

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

static size_t home(uintptr_t a)
{
	return (size_t)(((uint64_t)a >> 4) * 0x9E3779B97F4A7C15u >> (64 - SLOTS_LOG2));
}

void sampleset_add(uintptr_t a)
{
	if (a <= FREED)
		return;
	filter_add(a); /* first: a free racing the insertion must look */
	if (!slots || atomic_load_explicit(&sampleset_full, memory_order_relaxed))
		return;
	for (size_t i = 0, s = home(a); i < MAX_PROBE; i++, s = (s + 1) & (SLOTS - 1)) {
		uintptr_t cur = atomic_load_explicit(&slots[s], memory_order_relaxed);
		if ((cur == EMPTY || cur == FREED) &&
		    atomic_compare_exchange_strong(&slots[s], &cur, a))
			return;
	}
	atomic_store(&sampleset_full, 1); /* a free of a must not be missed */
}

bool sampleset_take(uintptr_t a)
{
	if (!slots || atomic_load_explicit(&sampleset_full, memory_order_relaxed))
		return true;
	for (size_t i = 0, s = home(a); i < MAX_PROBE; i++, s = (s + 1) & (SLOTS - 1)) {
		uintptr_t cur = atomic_load_explicit(&slots[s], memory_order_acquire);
		if (cur == EMPTY)
			return false;
		if (cur == a && atomic_compare_exchange_strong(&slots[s], &cur, FREED)) {
			filter_remove(a);
			return true;
		}
	}
	/* Not within the probe limit: present only if the set filled meanwhile. */
	return atomic_load(&sampleset_full);
}
