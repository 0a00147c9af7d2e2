/* bsearch.h - binary search for a bound: the one binary search of every
 * stage (modules and symbols by address, DWARF ranges and lines, NVTX
 * paths by thread and time).
 *
 * Owns nothing, allocates nothing, thread-safe. Header-only (static
 * inline): the comparator is a constant at every call, so the compiler
 * inlines it on hot paths such as symbol lookup.
 *
 * fk_partition_point is the one loop; the bounds are it over an array.
 * Unlike bsearch(3) they return a position, not just a match: the first
 * element not below the key (lower) or above it (upper), n when none is,
 * which is where a range lookup or an insertion starts.
 */
#ifndef FK_BSEARCH_H
#define FK_BSEARCH_H

#include <stdbool.h>
#include <stddef.h>

/* The first i in [0, n) for which before(ctx, i) is false, n when there is
 * none. before must be true for a prefix of [0, n) and false after it. */
static inline size_t fk_partition_point(size_t n, const void *ctx,
					bool (*before)(const void *ctx, size_t i))
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (before(ctx, mid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* cmp(key, element) as for bsearch(3): < 0, 0 or > 0 when the key is
 * below, equal to or above the element. base[0..n) (elements of size
 * bytes) is sorted by it: all elements below the key, then the equal ones,
 * then those above. */
typedef int (*fk_bound_cmp)(const void *key, const void *element);

struct fk_bound_ {
	const char *base;
	size_t size;
	const void *key;
	fk_bound_cmp cmp;
};

static inline bool fk_bound_below_(const void *ctx, size_t i)
{
	const struct fk_bound_ *b = ctx;
	return b->cmp(b->key, b->base + i * b->size) > 0;
}

static inline bool fk_bound_not_above_(const void *ctx, size_t i)
{
	const struct fk_bound_ *b = ctx;
	return b->cmp(b->key, b->base + i * b->size) >= 0;
}

/* The index of the first element not below key (equal or above), n when
 * every element is below it. */
static inline size_t fk_lower_bound(const void *base, size_t n, size_t size, const void *key,
				    fk_bound_cmp cmp)
{
	struct fk_bound_ b = { base, size, key, cmp };
	return fk_partition_point(n, &b, fk_bound_below_);
}

/* The index of the first element above key, n when none is: the elements
 * before it are those below or equal to the key. */
static inline size_t fk_upper_bound(const void *base, size_t n, size_t size, const void *key,
				    fk_bound_cmp cmp)
{
	struct fk_bound_ b = { base, size, key, cmp };
	return fk_partition_point(n, &b, fk_bound_not_above_);
}

#endif
