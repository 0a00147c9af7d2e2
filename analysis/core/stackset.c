/* stackset.c - stacks as frame id sequences (see stackset.h). */
#include "analysis/core/stackset.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

#define FIRST_STACKS 16

static bool rebuild_index(struct fk_stackset *t)
{
	return fk_hashindex_rebuild(&t->index, t->stacks, t->count, sizeof *t->stacks,
				    offsetof(struct fk_stack_entry, hash));
}

/* A whole name is copied as one FAST_NAME-byte move when it fits: the
 * names' arena has that much slack after every name (FK_ARENA_SLACK). */
#define FAST_NAME FK_ARENA_SLACK

/* What a probe looks for: the rest of a text's identity (fk_text_hash). */
struct key {
	uint64_t check;
	size_t len;
};

static inline bool matches(const struct fk_stack_entry *e, const struct key *k)
{
	return e->check == k->check && e->text_len == k->len;
}

/* The id of the stack with hash h that matches k, or FK_STACKSET_NONE;
 * *slot is then the empty slot where it would go. */
static inline uint32_t probe(const struct fk_stackset *t, uint64_t h, const struct key *k,
			     size_t *slot)
{
	*slot = fk_hashindex_home(&t->index, h);
	for (uint32_t id; (id = fk_hashindex_next(&t->index, h, slot)) != FK_HASHINDEX_END;) {
		const struct fk_stack_entry *e = &t->stacks[id];
		if (e->hash == h && matches(e, k))
			return id;
	}
	return FK_STACKSET_NONE;
}

/* Records a new stack at the empty slot; its sequence lives as long as t
 * (in t->seqs, or in an arena t adopts). */
static uint32_t add_entry(struct fk_stackset *t, size_t slot, struct fk_stack_entry e)
{
	if (t->count >= UINT32_MAX - 1 ||
	    !FK_GROW(t->stacks, t->cap, (size_t)t->count + 1, FIRST_STACKS))
		return FK_STACKSET_NONE;
	uint32_t id = t->count++;
	t->stacks[id] = e;
	fk_hashindex_put(&t->index, slot, e.hash, id);
	if (fk_hashindex_crowded(&t->index, t->count) && !rebuild_index(t)) {
		fk_hashindex_unput(&t->index, slot);
		t->count--;
		return FK_STACKSET_NONE;
	}
	return id;
}

static const uint32_t *copy_frames(struct fk_stackset *t, const uint32_t *frames, uint32_t n)
{
	uint32_t *to = fk_arena_alloc(&t->seqs, (size_t)n * sizeof *to);
	if (to)
		memcpy(to, frames, (size_t)n * sizeof *to);
	return to;
}

/* Whether p (before end) starts with frame f's name, then a ';' or the end. */
static bool starts_with_frame(const struct fk_stackset *t, uint32_t f, const char *p,
			      const char *end)
{
	const struct fk_str *name = fk_strtab_get(&t->frames, f);
	size_t left = (size_t)(end - p);
	return name->len <= left && (name->len == left || p[name->len] == ';') &&
	       memcmp(p, name->p, name->len) == 0;
}

/* text's frame ids into t->scratch, their count returned (0: out of
 * memory). New stacks come in runs that share their outer frames, so the
 * ids the last split left there are taken as they are while their names
 * match the text, without hashing a name. The other names are all found
 * and hashed first and their slots fetched, so the lookups' cache misses
 * overlap instead of coming one a name. */
static uint32_t split(struct fk_stackset *t, const char *text, size_t len)
{
	uint32_t n = 0, reusable = t->scratch_split;
	const char *p = text, *end = text + len;
	t->scratch_split = 0;
	for (; n < reusable && starts_with_frame(t, t->scratch[n], p, end); n++) {
		p += fk_strtab_get(&t->frames, t->scratch[n])->len;
		if (p == end) {
			t->scratch_split = n + 1;
			return n + 1;
		}
		p++; /* the ';' */
	}
	uint32_t first = n;
	for (;;) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		size_t name_len = (size_t)((semi ? semi : end) - p);
		if (!FK_GROW(t->names, t->names_cap, (size_t)n + 1, 64))
			return 0;
		uint64_t h = fk_strtab_hash(p, name_len);
		fk_strtab_prefetch_slot(&t->frames, h);
		t->names[n++] = (struct fk_str){ .p = p, .len = (uint32_t)name_len, .hash = h };
		if (!semi)
			break;
		p = semi + 1;
	}
	if (!FK_GROW(t->scratch, t->scratch_cap, n, 64))
		return 0;
	for (uint32_t i = first; i < n; i++) {
		const struct fk_str *name = &t->names[i];
		t->scratch[i] = fk_strtab_intern_hashed(&t->frames, name->p, name->len, name->hash, NULL);
		if (t->scratch[i] == FK_STRTAB_NONE)
			return 0;
	}
	t->scratch_split = n;
	return n;
}

/* The stack's id, or FK_STACKSET_NONE with *slot where a new one goes
 * (*fail: nothing can go, out of memory or too long). */
static uint32_t find_slot(struct fk_stackset *t, size_t len, struct fk_text_hash h, size_t *slot,
			  bool *fail)
{
	*fail = len > UINT32_MAX || (!t->index.slots && !rebuild_index(t));
	if (*fail)
		return FK_STACKSET_NONE;
	struct key k = { .check = h.check, .len = len };
	return probe(t, h.hash, &k, slot);
}

/* e's text, read at text, split into frames (it stays e's text when out
 * of memory). */
static bool split_entry(struct fk_stackset *t, struct fk_stack_entry *e, const char *text)
{
	uint32_t n = split(t, text, e->text_len);
	const uint32_t *frames = n ? copy_frames(t, t->scratch, n) : NULL;
	if (!frames)
		return false;
	e->frames = frames;
	e->nframes = n;
	return true;
}

static uint32_t intern(struct fk_stackset *t, const char *text, size_t len,
		       struct fk_text_hash h, bool lazy, bool *added)
{
	if (added)
		*added = false;
	size_t slot = 0;
	bool fail;
	uint32_t id = find_slot(t, len, h, &slot, &fail);
	if (id != FK_STACKSET_NONE || fail)
		return id;
	struct fk_stack_entry e = { .text = text, .text_len = (uint32_t)len, .hash = h.hash,
				    .check = h.check };
	if (!lazy && !split_entry(t, &e, text))
		return FK_STACKSET_NONE;
	id = add_entry(t, slot, e);
	if (added && id != FK_STACKSET_NONE)
		*added = true;
	return id;
}

uint32_t fk_stackset_intern(struct fk_stackset *t, const char *text, size_t len,
			    struct fk_text_hash h, bool *added)
{
	return intern(t, text, len, h, false, added);
}

uint32_t fk_stackset_intern_lazy(struct fk_stackset *t, const char *text, size_t len,
				 struct fk_text_hash h, bool *added)
{
	return intern(t, text, len, h, true, added);
}

bool fk_stackset_split_lazy(struct fk_stackset *t, uint32_t id)
{
	return t->stacks[id].nframes || split_entry(t, &t->stacks[id], t->stacks[id].text);
}

bool fk_stackset_split_lazy_from(struct fk_stackset *t, uint32_t id, const char *text)
{
	return t->stacks[id].nframes || split_entry(t, &t->stacks[id], text);
}

void fk_stackset_truncate(struct fk_stackset *t, uint32_t id)
{
	if (id >= t->count)
		return;
	t->count = id;
	fk_hashindex_refill(&t->index, t->stacks, t->count, sizeof *t->stacks,
			    offsetof(struct fk_stack_entry, hash));
}

uint32_t fk_stackset_find(const struct fk_stackset *t, size_t len, struct fk_text_hash h)
{
	if (!t->index.slots)
		return FK_STACKSET_NONE;
	size_t slot = 0;
	struct key k = { .check = h.check, .len = len };
	return probe(t, h.hash, &k, &slot);
}

/* from's frame ids as t's: the names from has that t lacks are added,
 * copied, or (take) pointing into from's arena, which t then adopts. */
static uint32_t *frame_map(struct fk_stackset *t, struct fk_stackset *from, bool take)
{
	uint32_t *map = malloc(((size_t)from->frames.count + 1) * sizeof *map);
	/* Adopted first: names t points at stay t's also when an add fails. */
	if (map && take)
		fk_arena_adopt(&t->frames.arena, &from->frames.arena);
	for (uint32_t f = 0; map && f < from->frames.count; f++) {
		const struct fk_str *s = fk_strtab_get(&from->frames, f);
		map[f] = take ? fk_strtab_add_owned(&t->frames, s->p, s->len, s->hash)
			      : fk_strtab_intern_hashed(&t->frames, s->p, s->len, s->hash, NULL);
		if (map[f] == FK_STRTAB_NONE) {
			free(map);
			return NULL;
		}
	}
	return map;
}

/* from's stack e in t, where a probe found it at id or ended at slot. Its
 * frames are rewritten in t's ids where t lacks them: take: where they
 * are (t adopts from's arena); otherwise into a copy in t's. */
static uint32_t merge_one(struct fk_stackset *t, const struct fk_stack_entry *e, uint32_t id,
			  size_t slot, const uint32_t *fmap, bool take)
{
	bool lazy_in_t = id != FK_STACKSET_NONE && t->stacks[id].nframes == 0;
	if (id != FK_STACKSET_NONE && !(lazy_in_t && e->nframes))
		return id;
	if (e->nframes == 0) /* new to t and not split yet: its text goes along */
		return add_entry(t, slot, *e);
	uint32_t *frames = take ? (uint32_t *)e->frames
				: fk_arena_alloc(&t->seqs, (size_t)e->nframes * sizeof *frames);
	if (!frames)
		return FK_STACKSET_NONE;
	for (uint32_t f = 0; f < e->nframes; f++)
		frames[f] = fmap[e->frames[f]];
	if (lazy_in_t) { /* t's copy, not split yet, takes from's frames */
		t->stacks[id].frames = frames;
		t->stacks[id].nframes = e->nframes;
		return id;
	}
	struct fk_stack_entry copy = *e;
	copy.frames = frames;
	return add_entry(t, slot, copy);
}

/* Adds from's stacks to t. A stack new to t gets its frames in t's ids:
 * take: rewritten where they are (t adopts from's arena); otherwise into
 * a copy in t's, and from is left as it was. */
static bool merge(struct fk_stackset *t, struct fk_stackset *from, bool take, uint32_t *map)
{
	if (!t->index.slots && !rebuild_index(t))
		return false;
	if (take) { /* from is read by id only: its indexes go before t's grow */
		fk_strtab_drop_index(&from->frames);
		fk_hashindex_free(&from->index);
	}
	uint32_t *fmap = frame_map(t, from, take);
	if (!fmap)
		return false;
	bool ok = true;
	for (uint32_t i = 0; i < from->count && ok; i++) {
		/* Stacks come in from's order, slots are anywhere: fetch ahead. */
		if (i + 16 < from->count)
			fk_hashindex_prefetch(&t->index, from->stacks[i + 16].hash);
		const struct fk_stack_entry *e = &from->stacks[i];
		/* Both sets know a stack by its text's identity. */
		size_t slot = 0;
		struct key k = { .check = e->check, .len = e->text_len };
		uint32_t id = probe(t, e->hash, &k, &slot);
		map[i] = merge_one(t, e, id, slot, fmap, take);
		ok = map[i] != FK_STACKSET_NONE;
	}
	if (take)
		fk_arena_adopt(&t->seqs, &from->seqs);
	free(fmap);
	return ok;
}

bool fk_stackset_merge(struct fk_stackset *t, const struct fk_stackset *from, uint32_t *map)
{
	/* Not taken: from is only read. */
	return merge(t, (struct fk_stackset *)from, false, map);
}

bool fk_stackset_take(struct fk_stackset *t, struct fk_stackset *from, uint32_t *map)
{
	return merge(t, from, true, map);
}

void fk_stackset_prefetch_slot(const struct fk_stackset *t, uint64_t hash)
{
	fk_hashindex_prefetch(&t->index, hash);
}

uint32_t fk_stackset_prefetch_entry(const struct fk_stackset *t, uint64_t hash)
{
	uint32_t id = fk_hashindex_guess(&t->index, hash);
	if (id == FK_HASHINDEX_END)
		return FK_STACKSET_NONE;
	__builtin_prefetch(&t->stacks[id]);
	return id;
}

size_t fk_stackset_text(const struct fk_stackset *t, uint32_t id, char *buf)
{
	const struct fk_stack_entry *e = &t->stacks[id];
	char *p = buf;
	for (uint32_t i = 0; i < e->nframes; i++) {
		const struct fk_str *f = fk_strtab_get(&t->frames, e->frames[i]);
		if (i)
			*p++ = ';';
		memcpy(p, f->p, f->len);
		p += f->len;
	}
	*p = '\0';
	return (size_t)(p - buf);
}

size_t fk_stackset_put_text(const struct fk_stackset *t, uint32_t id, char *buf)
{
	const struct fk_stack_entry *e = &t->stacks[id];
	char *p = buf;
	for (uint32_t i = 0; i < e->nframes; i++) {
		const struct fk_str *f = fk_strtab_get(&t->frames, e->frames[i]);
		/* A fixed size: no branch on the length (the arena has slack). */
		if (f->len <= FAST_NAME)
			memcpy(p, f->p, FAST_NAME);
		else
			memcpy(p, f->p, f->len);
		p += f->len;
		*p++ = ';';
	}
	return (size_t)(p - 1 - buf);
}

void fk_stackset_free(struct fk_stackset *t)
{
	fk_strtab_free(&t->frames);
	fk_arena_free(&t->seqs);
	free(t->stacks);
	fk_hashindex_free(&t->index);
	free(t->scratch);
	free(t->names);
	*t = (struct fk_stackset){ 0 };
}

size_t fk_stackset_memory(const struct fk_stackset *t)
{
	return fk_strtab_memory(&t->frames) + t->seqs.bytes + t->cap * sizeof *t->stacks +
	       fk_hashindex_memory(&t->index) + t->scratch_cap * sizeof *t->scratch +
	       t->names_cap * sizeof *t->names;
}
