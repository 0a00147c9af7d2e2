/* freefilter.c - the free hook's filter (see freefilter.h). */
#include "capture/freefilter.h"

#include <stddef.h>

#include "capture/onethread.h"

#define SATURATED 255

_Atomic(uint8_t) freefilter_counts[(size_t)1 << 16];

static _Atomic(uint8_t) *bucket(uintptr_t a)
{
	return &freefilter_counts[FREEFILTER_BUCKET(a)];
}

void freefilter_add(uintptr_t a)
{
	_Atomic(uint8_t) *b = bucket(a);
	uint8_t v = atomic_load_explicit(b, memory_order_relaxed);
	if (one_thread()) {
		if (v != SATURATED)
			atomic_store_explicit(b, (uint8_t)(v + 1), memory_order_relaxed);
		return;
	}
	while (v != SATURATED &&
	       !atomic_compare_exchange_weak_explicit(b, &v, (uint8_t)(v + 1), memory_order_relaxed,
						      memory_order_relaxed)) {
	}
}

void freefilter_remove(uintptr_t a)
{
	_Atomic(uint8_t) *b = bucket(a);
	uint8_t v = atomic_load_explicit(b, memory_order_relaxed);
	if (one_thread()) {
		if (v != SATURATED && v != 0)
			atomic_store_explicit(b, (uint8_t)(v - 1), memory_order_relaxed);
		return;
	}
	while (v != SATURATED && v != 0 &&
	       !atomic_compare_exchange_weak_explicit(b, &v, (uint8_t)(v - 1), memory_order_relaxed,
						      memory_order_relaxed)) {
	}
}

void freefilter_saturate(void)
{
	for (size_t i = 0; i < sizeof freefilter_counts; i++)
		atomic_store_explicit(&freefilter_counts[i], SATURATED, memory_order_relaxed);
}
