/* hashindex.c - building and freeing the interning tables' index (see
 * hashindex.h). */
#include "analysis/core/hashindex.h"

#include <stdlib.h>
#include <string.h>

/* Indexes start small and double: a table of a few entries (a small input,
 * a fuzzing run) costs a few hundred bytes, a big one a few more rebuilds. */
#define FIRST_SLOTS 64

bool fk_hashindex_rebuild(struct fk_hashindex *x, const void *entries, uint32_t count,
			  size_t stride, size_t hash_offset)
{
	size_t nslots = x->slots ? (x->mask + 1) * 2 : FIRST_SLOTS;
	while (nslots < ((size_t)count + 1) * 2) /* a dropped index, built again */
		nslots *= 2;
	uint64_t *slots = calloc(nslots, sizeof *slots);
	if (!slots)
		return false;
	struct fk_hashindex built = { slots, nslots - 1 };
	const unsigned char *entry = entries;
	for (uint32_t id = 0; id < count; id++, entry += stride) {
		uint64_t h;
		memcpy(&h, entry + hash_offset, sizeof h);
		size_t at = fk_hashindex_home(&built, h);
		while (slots[at])
			at = (at + 1) & built.mask;
		fk_hashindex_put(&built, at, h, id);
	}
	free(x->slots);
	*x = built;
	return true;
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
