/* strtab.c - string interning with XXH3 and linear probing (see strtab.h). */
#include "analysis/core/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

/* Tables start small and double: a table of a few names (a small input, a
 * fuzzing run) costs a few hundred bytes, a big one a few more rehashes. */
#define FIRST_STRS 16

static bool rebuild_index(struct fk_strtab *t)
{
	return fk_hashindex_rebuild(&t->index, t->strs, t->count, sizeof *t->strs,
				    offsetof(struct fk_str, hash));
}

static inline uint64_t load8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof w);
	return w;
}

/* Whether a[0..n) is b[0..n), inline: a candidate whose full hash matched
 * almost always is the string, and names are short, where a call to
 * memcmp costs more than the compare. The last word overlaps the one
 * before it, so no byte past n is read. */
static inline bool same_bytes(const char *a, const char *b, size_t n)
{
	if (n < 8)
		return memcmp(a, b, n) == 0;
	for (size_t k = 0; k + 8 < n; k += 8)
		if (load8(a + k) != load8(b + k))
			return false;
	return load8(a + n - 8) == load8(b + n - 8);
}

/* The id of p[0..len) (hash h) or FK_STRTAB_NONE; *slot is then the empty
 * slot where it would go. */
static uint32_t lookup(const struct fk_strtab *t, const char *p, size_t len, uint64_t h,
		       size_t *slot)
{
	*slot = fk_hashindex_home(&t->index, h);
	for (uint32_t id; (id = fk_hashindex_next(&t->index, h, slot)) != FK_HASHINDEX_END;) {
		const struct fk_str *s = &t->strs[id];
		if (s->hash == h && s->len == len && same_bytes(s->p, p, len))
			return id;
	}
	return FK_STRTAB_NONE;
}

uint32_t fk_strtab_find(const struct fk_strtab *t, const char *p, size_t len)
{
	if (!t->index.slots)
		return FK_STRTAB_NONE;
	size_t slot;
	return lookup(t, p, len, XXH3_64bits(p, len), &slot);
}

static uint32_t insert(struct fk_strtab *t, const char *p, size_t len, uint64_t h, bool copy,
		       bool *added)
{
	if (added)
		*added = false;
	if (!t->index.slots && !rebuild_index(t))
		return FK_STRTAB_NONE;
	size_t slot;
	uint32_t id = lookup(t, p, len, h, &slot);
	if (id != FK_STRTAB_NONE)
		return id;
	if (len > UINT32_MAX || t->count >= UINT32_MAX - 1)
		return FK_STRTAB_NONE;
	if (!FK_GROW(t->strs, t->cap, (size_t)t->count + 1, FIRST_STRS))
		return FK_STRTAB_NONE;
	const char *bytes = copy ? fk_arena_dup(&t->arena, p, len) : p;
	if (!bytes)
		return FK_STRTAB_NONE;
	id = t->count++;
	t->strs[id] = (struct fk_str){ .p = bytes, .len = (uint32_t)len, .hash = h };
	fk_hashindex_put(&t->index, slot, h, id);
	if (fk_hashindex_crowded(&t->index, t->count) && !rebuild_index(t)) {
		fk_hashindex_unput(&t->index, slot);
		t->count--;
		return FK_STRTAB_NONE;
	}
	if (added)
		*added = true;
	return id;
}

uint64_t fk_strtab_hash(const char *p, size_t len)
{
	return XXH3_64bits(p, len);
}

uint32_t fk_strtab_intern(struct fk_strtab *t, const char *p, size_t len, bool *added)
{
	return insert(t, p, len, XXH3_64bits(p, len), true, added);
}

uint32_t fk_strtab_intern_hashed(struct fk_strtab *t, const char *p, size_t len, uint64_t hash,
				 bool *added)
{
	return insert(t, p, len, hash, true, added);
}

uint32_t fk_strtab_add_owned(struct fk_strtab *t, const char *p, size_t len, uint64_t hash)
{
	return insert(t, p, len, hash, false, NULL);
}

void fk_strtab_prefetch_slot(const struct fk_strtab *t, uint64_t hash)
{
	fk_hashindex_prefetch(&t->index, hash);
}

uint32_t fk_strtab_prefetch_entry(const struct fk_strtab *t, uint64_t hash)
{
	uint32_t id = fk_hashindex_guess(&t->index, hash);
	if (id == FK_HASHINDEX_END)
		return FK_STRTAB_NONE;
	__builtin_prefetch(&t->strs[id]);
	return id;
}

void fk_strtab_drop_index(struct fk_strtab *t)
{
	fk_hashindex_free(&t->index);
}

void fk_strtab_free(struct fk_strtab *t)
{
	fk_arena_free(&t->arena);
	free(t->strs);
	fk_hashindex_free(&t->index);
	*t = (struct fk_strtab){ 0 };
}

size_t fk_strtab_memory(const struct fk_strtab *t)
{
	return t->arena.bytes + t->cap * sizeof *t->strs + fk_hashindex_memory(&t->index);
}
