/* strtab.c - string interning with XXH3 and linear probing (see strtab.h). */
#include "analysis/core/strtab.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"
#define XXH_INLINE_ALL
#include <xxhash.h>

static uint64_t slot_value(uint64_t hash, uint32_t id)
{
	return (hash & 0xFFFFFFFF00000000ull) | ((uint64_t)id + 1);
}

/* Tables start small and double: a table of a few names (a small input, a
 * fuzzing run) costs a few hundred bytes, a big one a few more rehashes. */
#define FIRST_SLOTS 64
#define FIRST_STRS 16

static bool grow_index(struct fk_strtab *t)
{
	size_t nslots = t->slots ? (t->mask + 1) * 2 : FIRST_SLOTS;
	while (nslots < ((size_t)t->count + 1) * 2) /* an index dropped, built again */
		nslots *= 2;
	uint64_t *slots = calloc(nslots, sizeof *slots);
	if (!slots)
		return false;
	size_t mask = nslots - 1;
	for (uint32_t id = 0; id < t->count; id++) {
		size_t i = (size_t)t->strs[id].hash & mask;
		while (slots[i])
			i = (i + 1) & mask;
		slots[i] = slot_value(t->strs[id].hash, id);
	}
	free(t->slots);
	t->slots = slots;
	t->mask = mask;
	return true;
}

static uint32_t lookup(const struct fk_strtab *t, const char *p, size_t len,
		       uint64_t h, size_t *slot)
{
	size_t i = (size_t)h & t->mask;
	uint64_t high = h & 0xFFFFFFFF00000000ull;
	for (;;) {
		uint64_t v = t->slots[i];
		if (v == 0) {
			*slot = i;
			return FK_STRTAB_NONE;
		}
		if ((v & 0xFFFFFFFF00000000ull) == high) {
			uint32_t id = (uint32_t)v - 1;
			const struct fk_str *s = &t->strs[id];
			if (s->hash == h && s->len == len && memcmp(s->p, p, len) == 0)
				return id;
		}
		i = (i + 1) & t->mask;
	}
}

uint32_t fk_strtab_find(const struct fk_strtab *t, const char *p, size_t len)
{
	if (!t->slots)
		return FK_STRTAB_NONE;
	size_t slot;
	return lookup(t, p, len, XXH3_64bits(p, len), &slot);
}

static uint32_t insert(struct fk_strtab *t, const char *p, size_t len, uint64_t h, bool copy,
		       bool *added)
{
	if (added)
		*added = false;
	if (!t->slots && !grow_index(t))
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
	t->slots[slot] = slot_value(h, id);
	/* Keep the load under one half so probes stay short. */
	if ((size_t)t->count * 2 > t->mask + 1 && !grow_index(t)) {
		t->slots[slot] = 0;
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
	if (t->slots)
		__builtin_prefetch(&t->slots[(size_t)hash & t->mask]);
}

uint32_t fk_strtab_prefetch_entry(const struct fk_strtab *t, uint64_t hash)
{
	if (!t->slots)
		return FK_STRTAB_NONE;
	uint64_t v = t->slots[(size_t)hash & t->mask];
	if (v == 0 || (v & 0xFFFFFFFF00000000ull) != (hash & 0xFFFFFFFF00000000ull))
		return FK_STRTAB_NONE;
	const struct fk_str *s = &t->strs[(uint32_t)v - 1];
	__builtin_prefetch(s);
	return (uint32_t)v - 1;
}

void fk_strtab_drop_index(struct fk_strtab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->mask = 0;
}

void fk_strtab_free(struct fk_strtab *t)
{
	fk_arena_free(&t->arena);
	free(t->strs);
	free(t->slots);
	*t = (struct fk_strtab){ 0 };
}

size_t fk_strtab_memory(const struct fk_strtab *t)
{
	return t->arena.bytes + t->cap * sizeof *t->strs +
	       (t->slots ? (t->mask + 1) * sizeof *t->slots : 0);
}
