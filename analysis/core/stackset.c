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

static inline uint64_t load8(const char *p)
{
	uint64_t w;
	memcpy(&w, p, sizeof w);
	return w;
}

/* Whether text[0..n) is name[0..n): a word at a time, inline, where the
 * text has 8 bytes to spare after it (names are padded in their arena:
 * fk_arena_dup rounds n + 1 up to 8); memcmp near the text's end. A call
 * per frame would cost more than the compare. */
static inline bool same_name(const char *text, const char *end, const char *name, size_t n)
{
	if ((size_t)(end - text) < n + 8)
		return memcmp(text, name, n) == 0;
	size_t k = 0;
	for (; k + 8 <= n; k += 8)
		if (load8(text + k) != load8(name + k))
			return false;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t mask = ((uint64_t)1 << ((n - k) * 8)) - 1;
	return ((load8(text + k) ^ load8(name + k)) & mask) == 0;
#else
	return memcmp(text + k, name + k, n - k) == 0;
#endif
}

/* Sixteen bytes at a time through the compilers' vector extension (SSE2
 * on x86-64, NEON on arm64). */
typedef uint8_t bytes16 __attribute__((vector_size(16)));

static inline bytes16 load16(const void *p)
{
	bytes16 v;
	memcpy(&v, p, sizeof v);
	return v;
}

/* FAST_NAME bytes of 0xFF, then as many zeros: from FAST_NAME - n on, the
 * mask of a name of n bytes. */
#define FAST_NAME 64
static const uint8_t name_mask[2 * FAST_NAME] = { [0 ... FAST_NAME - 1] = 0xFF };

/* The bytes where text[0..n) and name[0..n) differ (n <= FAST_NAME), with
 * no branch on n: both sides are read FAST_NAME bytes long (the names'
 * arena has that much slack) and the bytes past n are masked out. */
static inline bytes16 name_diff(const char *text, const char *name, size_t n)
{
	const uint8_t *m = name_mask + FAST_NAME - n;
	bytes16 d = (load16(text) ^ load16(name)) & load16(m);
	d |= (load16(text + 16) ^ load16(name + 16)) & load16(m + 16);
	d |= (load16(text + 32) ^ load16(name + 32)) & load16(m + 32);
	d |= (load16(text + 48) ^ load16(name + 48)) & load16(m + 48);
	return d;
}

static inline bool all_zero(bytes16 v)
{
	uint64_t w[2];
	memcpy(w, &v, sizeof w);
	return (w[0] | w[1]) == 0;
}

/* Whether e's frames, joined by ';', are text[0..len). Names are not
 * compared one by one as they come: the differences of the names and of
 * their separators are gathered and looked at once, since a line whose
 * hash matched almost always is the stack, and a branch per name costs a
 * misprediction per name. From the first name longer than FAST_NAME, or
 * the first within FAST_NAME bytes of the text's end (a whole-vector read
 * would pass it), the rest go the careful way. */
static bool same_text(const struct fk_stackset *t, const struct fk_stack_entry *e,
		      const char *text, size_t len)
{
	if (e->text_len != len)
		return false;
	/* The names' addresses do not depend on each other: ask for them all
	 * first, so their cache misses overlap instead of coming one a frame. */
	for (uint32_t k = 0; k < e->nframes; k++)
		__builtin_prefetch(fk_strtab_get(&t->frames, e->frames[k])->p);
	const char *p = text, *end = text + len;
	bytes16 diff = { 0 };
	uint8_t sep = 0;
	uint32_t i = 0;
	for (; i < e->nframes; i++) {
		const struct fk_str *f = fk_strtab_get(&t->frames, e->frames[i]);
		/* Past the name there is a ';' and more: the last name ends the
		 * text, so it never takes this path. */
		if (f->len > FAST_NAME || (size_t)(end - p) <= FAST_NAME)
			break;
		diff |= name_diff(p, f->p, f->len);
		p += f->len;
		sep |= (uint8_t)(*p++ ^ ';');
	}
	if (!all_zero(diff) || sep)
		return false;
	for (; i < e->nframes; i++) {
		const struct fk_str *f = fk_strtab_get(&t->frames, e->frames[i]);
		if (!same_name(p, end, f->p, f->len))
			return false;
		p += f->len;
		/* The lengths add up to len, so only the separators are left. */
		if (i + 1 < e->nframes && *p++ != ';')
			return false;
	}
	return true;
}

static bool same_frames(const struct fk_stack_entry *e, const uint32_t *frames, uint32_t n)
{
	return e->nframes == n && memcmp(e->frames, frames, n * sizeof *frames) == 0;
}

/* What a probe looks for: a stack's text, or its frames (in t's ids). */
struct key {
	const char *text;
	size_t len;
	const uint32_t *frames;
	uint32_t nframes;
};

static inline bool matches(const struct fk_stackset *t, const struct fk_stack_entry *e,
			   const struct key *k)
{
	if (k->frames)
		return same_frames(e, k->frames, k->nframes);
	return same_text(t, e, k->text, k->len);
}

/* The id of the stack with hash h that matches k, or FK_STACKSET_NONE;
 * *slot is then the empty slot where it would go. */
static inline uint32_t probe(const struct fk_stackset *t, uint64_t h, const struct key *k,
			     size_t *slot)
{
	*slot = fk_hashindex_home(&t->index, h);
	for (uint32_t id; (id = fk_hashindex_next(&t->index, h, slot)) != FK_HASHINDEX_END;) {
		const struct fk_stack_entry *e = &t->stacks[id];
		if (e->hash == h && matches(t, e, k))
			return id;
	}
	return FK_STACKSET_NONE;
}

/* Records a new stack at the empty slot; its sequence lives as long as t
 * (in t->seqs, or in an arena t adopts). */
static uint32_t add_entry(struct fk_stackset *t, size_t slot, const uint32_t *frames,
			  uint32_t n, uint32_t text_len, uint64_t hash)
{
	if (t->count >= UINT32_MAX - 1 ||
	    !FK_GROW(t->stacks, t->cap, (size_t)t->count + 1, FIRST_STACKS))
		return FK_STACKSET_NONE;
	uint32_t id = t->count++;
	t->stacks[id] = (struct fk_stack_entry){ frames, n, text_len, hash };
	fk_hashindex_put(&t->index, slot, hash, id);
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
 * match, without hashing a name. Each is checked against the text, so ids
 * a merge wrote over them since cost a miss, never a wrong frame. The
 * other names are all found and hashed first and their slots fetched, so
 * the lookups' cache misses overlap instead of coming one a name. */
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

uint32_t fk_stackset_intern(struct fk_stackset *t, const char *text, size_t len, uint64_t hash,
			    bool *added)
{
	if (added)
		*added = false;
	if (len > UINT32_MAX || (!t->index.slots && !rebuild_index(t)))
		return FK_STACKSET_NONE;
	size_t slot = 0;
	struct key k = { .text = text, .len = len };
	uint32_t id = probe(t, hash, &k, &slot);
	if (id != FK_STACKSET_NONE)
		return id;
	uint32_t n = split(t, text, len);
	const uint32_t *frames = n ? copy_frames(t, t->scratch, n) : NULL;
	if (!frames)
		return FK_STACKSET_NONE;
	id = add_entry(t, slot, frames, n, (uint32_t)len, hash);
	if (added && id != FK_STACKSET_NONE)
		*added = true;
	return id;
}

uint32_t fk_stackset_find(const struct fk_stackset *t, const char *text, size_t len,
			  uint64_t hash)
{
	if (!t->index.slots)
		return FK_STACKSET_NONE;
	size_t slot = 0;
	struct key k = { .text = text, .len = len };
	return probe(t, hash, &k, &slot);
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

/* Adds from's stacks to t. take: from's sequences are rewritten in t's
 * frame ids where they are, and those of stacks new to t are kept there
 * (t adopts the arena); otherwise they are rewritten into scratch, looked
 * up, copied when new, and from is left as it was. */
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
		uint32_t *frames = (uint32_t *)e->frames;
		if (!take) {
			if (!FK_GROW(t->scratch, t->scratch_cap, e->nframes, 64)) {
				ok = false;
				break;
			}
			frames = t->scratch;
		}
		for (uint32_t k = 0; k < e->nframes; k++)
			frames[k] = fmap[e->frames[k]];
		size_t slot = 0;
		struct key k = { .frames = frames, .nframes = e->nframes };
		uint32_t id = probe(t, e->hash, &k, &slot);
		if (id == FK_STACKSET_NONE && !take &&
		    !(frames = (uint32_t *)copy_frames(t, frames, e->nframes)))
			ok = false;
		if (ok && id == FK_STACKSET_NONE)
			id = add_entry(t, slot, frames, e->nframes, e->text_len, e->hash);
		map[i] = id;
		ok = ok && id != FK_STACKSET_NONE;
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
