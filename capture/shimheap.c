/* shimheap.c - the shim's own heap (see shimheap.h). */
#include "capture/shimheap.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "capture/freefilter.h"

/* Address space, not memory (NORESERVE), but it counts against a ulimit -v:
 * what a writer cycle keeps (the compressor's context, the stack tables,
 * the buffers) fits many times over. Beyond it the shim's allocations go
 * to the program's heap (alloc.c). */
#define HEAP_BYTES ((size_t)256 << 20)
#define HEADER 16                /* before each block: its class; keeps 16-byte alignment */
#define MIN_CLASS 5              /* 32 bytes, header included */
#define MAX_CLASS 30
#define RELEASE_FROM ((size_t)1 << 20) /* freed blocks this big give their pages back */

uintptr_t shimheap_base;
size_t shimheap_size;

static size_t used;              /* bytes handed out from the start of the mapping */
static void *free_lists[MAX_CLASS + 1];
static atomic_flag lock = ATOMIC_FLAG_INIT;

static void take_lock(void)
{
	while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire)) {
	}
}

static void drop_lock(void)
{
	atomic_flag_clear_explicit(&lock, memory_order_release);
}

bool shimheap_init(void)
{
	take_lock();
	if (!shimheap_size) {
		void *m = mmap(NULL, HEAP_BYTES, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (m != MAP_FAILED) {
			shimheap_base = (uintptr_t)m;
			shimheap_size = HEAP_BYTES;
		}
	}
	bool ok = shimheap_size != 0;
	drop_lock();
	return ok;
}

/* The class of a block of n bytes: the smallest power of two that holds
 * it and its header; 0 when none does. */
static unsigned class_of(size_t n)
{
	if (n > ((size_t)1 << MAX_CLASS) - HEADER)
		return 0;
	unsigned k = MIN_CLASS;
	while (((size_t)1 << k) < n + HEADER)
		k++;
	return k;
}

static unsigned *header_of(const void *p)
{
	return (unsigned *)((uintptr_t)p - HEADER);
}

/* A block for n bytes, its header written: from its class's free list,
 * or fresh from the untouched end of the mapping (*fresh: still all zero,
 * its pages not yet faulted in). NULL when no class holds n or the heap
 * is full. */
static void *take_block(size_t n, bool *fresh)
{
	unsigned k = class_of(n);
	*fresh = false;
	if (!k || (!shimheap_size && !shimheap_init()))
		return NULL;
	size_t bytes = (size_t)1 << k;
	uint8_t *block = NULL;
	take_lock();
	if (free_lists[k]) {
		block = free_lists[k];
		free_lists[k] = *(void **)(block + HEADER);
	} else if (bytes <= shimheap_size - used) {
		block = (uint8_t *)shimheap_base + used;
		used += bytes;
		*fresh = true;
	}
	drop_lock();
	if (!block)
		return NULL;
	*(unsigned *)block = k;
	freefilter_add((uintptr_t)(block + HEADER));
	return block + HEADER;
}

void *shimheap_alloc(size_t n)
{
	bool fresh;
	return take_block(n, &fresh);
}

/* A fresh block is left as the mapping gave it: zeroing it would fault in
 * every page of a table (the writer's stack memo: half a MiB) of which a
 * run may use a few. */
void *shimheap_calloc(size_t count, size_t n)
{
	size_t total;
	bool fresh;
	if (__builtin_mul_overflow(count, n, &total))
		return NULL;
	void *p = take_block(total, &fresh);
	if (p && !fresh)
		memset(p, 0, total); /* a block from a free list holds old bytes */
	return p;
}

size_t shimheap_usable(const void *p)
{
	return ((size_t)1 << *header_of(p)) - HEADER;
}

void shimheap_free(void *p)
{
	if (!p)
		return;
	unsigned k = *header_of(p);
	size_t bytes = (size_t)1 << k;
	freefilter_remove((uintptr_t)p);
	if (bytes >= RELEASE_FROM) { /* whole pages inside the block */
		uintptr_t lo = ((uintptr_t)p + 4095 + sizeof(void *)) & ~(uintptr_t)4095;
		uintptr_t hi = ((uintptr_t)p - HEADER + bytes) & ~(uintptr_t)4095;
		if (hi > lo)
			madvise((void *)lo, hi - lo, MADV_DONTNEED);
	}
	take_lock();
	*(void **)p = free_lists[k];
	free_lists[k] = (uint8_t *)p - HEADER;
	drop_lock();
}

void *shimheap_realloc(void *p, size_t n)
{
	if (!p)
		return shimheap_alloc(n);
	size_t have = shimheap_usable(p);
	if (n <= have)
		return p;
	void *q = shimheap_alloc(n);
	if (!q)
		return NULL;
	memcpy(q, p, have);
	shimheap_free(p);
	return q;
}
