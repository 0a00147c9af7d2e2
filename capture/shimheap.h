/* shimheap.h - the shim's own heap, apart from the program's: what dlsym
 * allocates while the hooks find the real allocator, and what the writer's
 * cycles allocate when they run on a single-threaded program's own thread
 * (writer.c). Left to glibc, the latter would sit in the program's arena,
 * between its blocks and the top, and change how its malloc behaves: the
 * program's heap must look as it would without the shim.
 *
 * One reserved mapping of 256 MiB (NORESERVE: pages cost nothing until
 * touched),
 * power-of-two size classes from 32 bytes, a free list per class, a spin
 * lock (the shim allocates here rarely). A block is never returned to
 * the OS but its pages are, from 1 MiB up. Each live block is counted in
 * the free hook's filter (freefilter.h), so the hook looks further only
 * for blocks that may be the heap's.
 *
 * Owns: the mapping, for the process's lifetime.
 */
#ifndef STACKCAP_SHIMHEAP_H
#define STACKCAP_SHIMHEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Maps the heap; false when it cannot (allocations then fail). Safe to
 * call more than once, and before anything else in the process has run. */
bool shimheap_init(void);

/* malloc, calloc, realloc and free of the heap; NULL when it is full. */
void *shimheap_alloc(size_t n);
void *shimheap_calloc(size_t count, size_t n);
void *shimheap_realloc(void *p, size_t n);
void shimheap_free(void *p);
/* The bytes a block of the heap can hold. */
size_t shimheap_usable(const void *p);

/* Whether p is a block of this heap (false for NULL): one compare.
 * Hidden: no GOT on the way. */
extern __attribute__((visibility("hidden"))) uintptr_t shimheap_base;
extern __attribute__((visibility("hidden"))) size_t shimheap_size;
static inline bool shimheap_owns(const void *p)
{
	return (uintptr_t)p - shimheap_base < shimheap_size;
}

#endif
