/* grow.h - growable arrays: the one "make room for need elements" of every
 * stage, the capture shim included.
 *
 * Owns nothing: the caller owns the array (it frees it) and its capacity.
 * Contract: a capacity doubles, starting from the caller's first capacity
 * (min) when there is none yet, until it holds need elements, so appending
 * one element at a time costs amortized O(1). Sizes are checked: when
 * need * elem_size would exceed FK_GROW_MAX_BYTES, or realloc fails, the
 * call returns false and leaves the array and its capacity as they were
 * (the caller still owns and may use what it had). Doubling never wraps:
 * it stops at the largest count whose bytes fit.
 *
 * Header-only (static inline) so that libstackcap.so uses it without the
 * library. It calls realloc: never from a signal handler.
 *
 *     struct item *items = NULL;
 *     size_t n = 0, cap = 0;
 *     if (!FK_GROW(items, cap, n + 1, 64))
 *             return false;          (items and cap unchanged)
 *     items[n++] = x;
 */
#ifndef FK_GROW_H
#define FK_GROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* The most bytes an array may hold: PTRDIFF_MAX, as for any C object
 * (pointer differences must fit; malloc refuses more). */
#define FK_GROW_MAX_BYTES ((size_t)PTRDIFF_MAX)

/* Sets *out to the capacity that holds need elements of elem_size bytes:
 * cap when it already does, else cap (min when cap is 0) doubled until it
 * does. False when need elements would exceed FK_GROW_MAX_BYTES. */
static inline bool fk_grow_cap(size_t cap, size_t need, size_t min, size_t elem_size,
			       size_t *out)
{
	if (need <= cap) {
		*out = cap;
		return true;
	}
	if (elem_size == 0 || need > FK_GROW_MAX_BYTES / elem_size)
		return false;
	size_t max = FK_GROW_MAX_BYTES / elem_size;
	size_t n = cap ? cap : min ? min : 1;
	if (n > max)
		n = max;
	while (n < need)
		n = n > max / 2 ? max : n * 2;
	*out = n;
	return true;
}

/* Arrays from this size on ask for transparent huge pages. */
#define FK_HUGE_MIN_BYTES ((size_t)4 << 20)

/* Asks the kernel to back [p, p + n) with transparent huge pages when n is
 * at least FK_HUGE_MIN_BYTES (a hint: nothing where THP is off). Call it
 * before the pages are first written. Each 4 KiB page's first touch is a
 * fault, dear on virtual machines that shadow the page tables (10-14 us
 * measured on one); a 2 MiB page is one fault for 512. Whole pages are
 * advised, as glibc's own hugetlb tunable does: large allocations are
 * mappings of their own, and advising part of one would split it, after
 * which realloc can no longer move it with mremap (it copies instead). */
static inline void fk_advise_huge(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
	if (n < FK_HUGE_MIN_BYTES)
		return;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t from = (uintptr_t)p & ~(page - 1);
	uintptr_t to = ((uintptr_t)p + n + page - 1) & ~(page - 1);
	(void)madvise((void *)from, to - from, MADV_HUGEPAGE);
#else
	(void)p;
	(void)n;
#endif
}

/* Resizes the array *pp (pp: the address of any T *) to n elements of
 * elem_size bytes. False, *pp untouched, when out of memory or when the
 * size exceeds FK_GROW_MAX_BYTES. The pointer is read and written with memcpy so that a
 * T ** can come in as void * without breaking the aliasing rules. */
static inline bool fk_resize(void *pp, size_t n, size_t elem_size)
{
	if (elem_size == 0 || n > FK_GROW_MAX_BYTES / elem_size)
		return false;
	void *p;
	memcpy(&p, pp, sizeof p);
	/* Never realloc(p, 0): it may free p and return NULL. */
	void *q = realloc(p, n ? n * elem_size : 1);
	if (!q)
		return false;
	fk_advise_huge(q, n * elem_size);
	memcpy(pp, &q, sizeof q);
	return true;
}

/* Makes the array *pp (capacity *cap elements) hold at least need
 * elements: see fk_grow_cap. On false, *pp and *cap are unchanged. */
static inline bool fk_grow(void *pp, size_t *cap, size_t need, size_t min, size_t elem_size)
{
	if (need <= *cap)
		return true;
	size_t n;
	if (!fk_grow_cap(*cap, need, min, elem_size, &n) || !fk_resize(pp, n, elem_size))
		return false;
	*cap = n;
	return true;
}

/* The typed forms: ptr is a T * lvalue (the element size comes from it),
 * cap a size_t lvalue. */
#define FK_GROW(ptr, cap, need, min) fk_grow(&(ptr), &(cap), (need), (min), sizeof *(ptr))
#define FK_RESIZE(ptr, n) fk_resize(&(ptr), (n), sizeof *(ptr))

#endif
