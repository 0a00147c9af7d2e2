/* stackset.h - unique stacks, each kept as the ids of its frames.
 *
 * A stack "a;b;c" is stored as the ids of the frames a, b and c, whose names
 * are interned once. A million distinct 20-frame stacks drawn from a few
 * thousand names cost 80 MB of ids instead of their text. A stack is known
 * by 128 bits of its whole text's hash (fk_text_hash), so a line is looked
 * up with one hash of its bytes and never compared with the names; the
 * text is rebuilt on demand.
 *
 * A stack's frames are its text split at every ';', so any text round-trips
 * byte for byte ("" is one empty frame, "a;" is "a" and ""). Frame and stack
 * ids are 0..count-1 in insertion order and never change.
 *
 * Owns: the frame names (an fk_strtab), the id sequences (an arena), the
 * entries and the hash index. Not thread-safe.
 */
#ifndef FK_STACKSET_H
#define FK_STACKSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/core/arena.h"
#include "analysis/core/strtab.h"

#define FK_STACKSET_NONE UINT32_MAX

struct fk_stack_entry {
	union {
		const uint32_t *frames; /* root first, ids into the set's frames */
		const char *text;       /* nframes 0: not split yet (its text) */
	};
	uint32_t nframes;       /* at least 1 once split */
	uint32_t text_len;      /* bytes of the text: names and the ';'s */
	uint64_t hash, check;   /* fk_text_hash of the text */
};

/* A stack text's identity (strhash.c): a text with the same hash, check
 * and length as a stack is that stack. Both come from a universal hash
 * under a key drawn once per process: two different texts share them with
 * a chance of about 2^-64, whatever they hold (polyhash.h). */
struct fk_text_hash {
	uint64_t hash;
	uint64_t check;
};
struct fk_text_hash fk_text_hash(const char *p, size_t len);

struct fk_stackset {
	struct fk_strtab frames;   /* frame names; id = index */
	struct fk_arena seqs;      /* the frame id sequences */
	struct fk_stack_entry *stacks;
	uint32_t count;
	size_t cap;
	struct fk_hashindex index; /* of the stacks, by text hash */
	uint32_t *scratch;         /* one stack's frame ids while it is split */
	size_t scratch_cap;
	uint32_t scratch_split;    /* how many ids there the last split left */
	struct fk_str *names;      /* one stack's names while it is split */
	size_t names_cap;
};

/* Id of the stack text[0..len) whose fk_text_hash is h, added when new
 * (*added set when given). FK_STACKSET_NONE when out of memory, or when the
 * text passes 4 GiB or the set is full (2^32 - 2 stacks). */
uint32_t fk_stackset_intern(struct fk_stackset *t, const char *text, size_t len,
			    struct fk_text_hash h, bool *added);

/* fk_stackset_intern, but a stack new to t is not split yet: it keeps
 * pointing at text, which must stay readable and unchanged until
 * fk_stackset_split_lazy splits it. Readers of a big file meet most stacks
 * many times and most of its unique stacks in each part: they split none,
 * and each unique stack is split once after they are done. */
uint32_t fk_stackset_intern_lazy(struct fk_stackset *t, const char *text, size_t len,
				 struct fk_text_hash h, bool *added);
/* Splits stack id if it is not split yet. false when out of memory. */
bool fk_stackset_split_lazy(struct fk_stackset *t, uint32_t id);
/* The same, its text's bytes read from text (a copy of them, where the
 * stack's own text pointer only says where they lie). */
bool fk_stackset_split_lazy_from(struct fk_stackset *t, uint32_t id, const char *text);
/* Forgets the stacks from id on (after a failure: stacks that could not
 * be split), with no memory needed. Theirs stays t's until it is freed. */
void fk_stackset_truncate(struct fk_stackset *t, uint32_t id);

/* Id of the stack or FK_STACKSET_NONE. */
uint32_t fk_stackset_find(const struct fk_stackset *t, size_t len, struct fk_text_hash h);

/* Adds every stack of from to t, map[i] receiving the id in t of from's
 * stack i. false when out of memory (map is then filled up to the stack
 * that failed). A stack not split yet in from stays so in t, with the same
 * text; one not split yet in t takes from's frames when from has them. */
bool fk_stackset_merge(struct fk_stackset *t, const struct fk_stackset *from, uint32_t *map);
/* The same for a set that is done with (hash partitions or pieces of one
 * input): what from holds that t lacks, names and sequences, is taken over,
 * not copied, and from is left for the caller to free. */
bool fk_stackset_take(struct fk_stackset *t, struct fk_stackset *from, uint32_t *map);

/* Cache hints for a later intern of this hash (see fk_strtab_prefetch_*). */
void fk_stackset_prefetch_slot(const struct fk_stackset *t, uint64_t hash);
uint32_t fk_stackset_prefetch_entry(const struct fk_stackset *t, uint64_t hash);

static inline const struct fk_stack_entry *fk_stackset_get(const struct fk_stackset *t,
							   uint32_t id)
{
	return &t->stacks[id];
}

/* Whether stack id is not split yet (fk_stackset_intern_lazy). */
static inline bool fk_stackset_is_lazy(const struct fk_stackset *t, uint32_t id)
{
	return t->stacks[id].nframes == 0;
}

static inline const struct fk_str *fk_stackset_frame(const struct fk_stackset *t, uint32_t frame)
{
	return fk_strtab_get(&t->frames, frame);
}

/* Writes stack id's text to buf (room for text_len + 1 bytes: it ends in a
 * NUL) and returns its length. */
size_t fk_stackset_text(const struct fk_stackset *t, uint32_t id, char *buf);
/* The same without the NUL, for output made in bulk: buf has room for
 * text_len + FK_STACKSET_TEXT_SLACK bytes, which short names are copied in
 * whole vectors into (the bytes past the text are left undefined). */
#define FK_STACKSET_TEXT_SLACK FK_ARENA_SLACK
size_t fk_stackset_put_text(const struct fk_stackset *t, uint32_t id, char *buf);

void fk_stackset_free(struct fk_stackset *t);
/* Bytes held, for memory reports. */
size_t fk_stackset_memory(const struct fk_stackset *t);

#endif
