/* hashindex.h - the hash index of the interning tables (strtab: names,
 * stackset: stacks): open addressing with linear probing over 64-bit
 * slots, kept under half full.
 *
 * A slot holds the high 32 bits of an entry's hash beside its id + 1 (0 is
 * empty), so probes pass over other entries without touching them (a cache
 * miss each). The owner keeps the entries and their full hashes, and
 * confirms each candidate the index offers.
 *
 * Owns: the slots.
 */
#ifndef FK_HASHINDEX_H
#define FK_HASHINDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FK_HASHINDEX_END UINT32_MAX

struct fk_hashindex {
	uint64_t *slots; /* NULL until built, and once dropped */
	size_t mask;
};

#define FK_HASHINDEX_HIGH 0xFFFFFFFF00000000ull

/* Builds the index again, big enough for count + 1 entries at under half
 * load (and at least twice its size before, or 64 slots): entries is an
 * array of count records of stride bytes, each with its 64-bit hash at
 * hash_offset. False when out of memory (the index is left as it was). */
bool fk_hashindex_rebuild(struct fk_hashindex *x, const void *entries, uint32_t count,
			  size_t stride, size_t hash_offset);

/* Files entries 0..count-1 (fewer than it held) again in its own slots,
 * which needs no memory: for a table that dropped its last entries. */
void fk_hashindex_refill(struct fk_hashindex *x, const void *entries, uint32_t count,
			 size_t stride, size_t hash_offset);

/* Where the probe for hash h starts. */
static inline size_t fk_hashindex_home(const struct fk_hashindex *x, uint64_t h)
{
	return (size_t)h & x->mask;
}

/* The next candidate id for h from slot *at on (ids whose high hash bits
 * match), *at moved past it; FK_HASHINDEX_END at an empty slot, *at then
 * the slot where an entry with hash h goes. */
static inline uint32_t fk_hashindex_next(const struct fk_hashindex *x, uint64_t h, size_t *at)
{
	for (;;) {
		uint64_t v = x->slots[*at];
		if (v == 0)
			return FK_HASHINDEX_END;
		*at = (*at + 1) & x->mask;
		if ((v & FK_HASHINDEX_HIGH) == (h & FK_HASHINDEX_HIGH))
			return (uint32_t)v - 1;
	}
}

/* Files id under hash h at the empty slot the probe ended at. */
static inline void fk_hashindex_put(struct fk_hashindex *x, size_t at, uint64_t h, uint32_t id)
{
	x->slots[at] = (h & FK_HASHINDEX_HIGH) | ((uint64_t)id + 1);
}

/* Undoes the last put (its entry could not be kept): nothing was filed
 * after it, so no probe passes over that slot yet. */
static inline void fk_hashindex_unput(struct fk_hashindex *x, size_t at)
{
	x->slots[at] = 0;
}

/* Whether count entries fill it past half (time to rebuild). */
static inline bool fk_hashindex_crowded(const struct fk_hashindex *x, uint32_t count)
{
	return (size_t)count * 2 > x->mask + 1;
}

/* Cache hints for a later probe of h: its home slot; then (once that is
 * in cache) the id a probe would offer first, a guess, for the owner to
 * prefetch the entry: looked for in the first FK_HASHINDEX_GUESS_SLOTS
 * slots (an entry is often filed past its home), FK_HASHINDEX_END when
 * none there has h's high bits. */
#define FK_HASHINDEX_GUESS_SLOTS 4
static inline void fk_hashindex_prefetch(const struct fk_hashindex *x, uint64_t h)
{
	if (x->slots)
		__builtin_prefetch(&x->slots[fk_hashindex_home(x, h)]);
}

static inline uint32_t fk_hashindex_guess(const struct fk_hashindex *x, uint64_t h)
{
	if (!x->slots)
		return FK_HASHINDEX_END;
	size_t at = fk_hashindex_home(x, h);
	for (int i = 0; i < FK_HASHINDEX_GUESS_SLOTS; i++, at = (at + 1) & x->mask) {
		uint64_t v = x->slots[at];
		if (v == 0)
			break;
		if ((v & FK_HASHINDEX_HIGH) == (h & FK_HASHINDEX_HIGH))
			return (uint32_t)v - 1;
	}
	return FK_HASHINDEX_END;
}

/* Frees the slots; a rebuild makes them again. */
void fk_hashindex_free(struct fk_hashindex *x);
/* Bytes held. */
size_t fk_hashindex_memory(const struct fk_hashindex *x);

#endif
