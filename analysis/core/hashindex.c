/* hashindex.c - building and freeing the interning tables' index (see
 * hashindex.h). */
#include "analysis/core/hashindex.h"

#include <stdlib.h>
#include <string.h>

/* Indexes start small and double: a table of a few entries (a small input,
 * a fuzzing run) costs a few hundred bytes, a big one a few more rebuilds. */
#define FIRST_SLOTS 64

/* Files entries 0..count-1 into x's empty slots. */
static void file_all(struct fk_hashindex *x, const void *entries, uint32_t count, size_t stride,
		     size_t hash_offset)
{
	const unsigned char *entry = entries;
	for (uint32_t id = 0; id < count; id++, entry += stride) {
		uint64_t h;
		memcpy(&h, entry + hash_offset, sizeof h);
		size_t at = fk_hashindex_home(x, h);
		while (x->slots[at])
			at = (at + 1) & x->mask;
		fk_hashindex_put(x, at, h, id);
	}
}

/* A fresh page read before it is written is mapped to the shared zero
 * page, and the copy on the later write flushes the TLB of every core the
 * process runs on (an interrupt to each; 3 % of a two-thread fold went to
 * that, in filing, which reads a slot before it writes one). So each page
 * of fresh slots is written first. (calloc, not malloc and memset: that is
 * a calloc to the compiler too, and a large one is never written.) */
static void write_each_page(uint64_t *slots, size_t n)
{
	volatile uint64_t *v = slots;
	for (size_t i = 0; i < n; i += 4096 / sizeof *slots)
		v[i] = 0;
}

bool fk_hashindex_rebuild(struct fk_hashindex *x, const void *entries, uint32_t count,
			  size_t stride, size_t hash_offset)
{
	size_t nslots = x->slots ? (x->mask + 1) * 2 : FIRST_SLOTS;
	while (nslots < ((size_t)count + 1) * 2) /* a dropped index, built again */
		nslots *= 2;
	uint64_t *slots = calloc(nslots, sizeof *slots);
	if (!slots)
		return false;
	write_each_page(slots, nslots);
	struct fk_hashindex built = { slots, nslots - 1 };
	file_all(&built, entries, count, stride, hash_offset);
	free(x->slots);
	*x = built;
	return true;
}

void fk_hashindex_refill(struct fk_hashindex *x, const void *entries, uint32_t count,
			 size_t stride, size_t hash_offset)
{
	if (!x->slots)
		return;
	memset(x->slots, 0, (x->mask + 1) * sizeof *x->slots);
	file_all(x, entries, count, stride, hash_offset);
}

void fk_hashindex_free(struct fk_hashindex *x)
{
	free(x->slots);
	*x = (struct fk_hashindex){ 0 };
}

size_t fk_hashindex_memory(const struct fk_hashindex *x)
{
	return x->slots ? (x->mask + 1) * sizeof *x->slots : 0;
}
