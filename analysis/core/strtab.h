/* strtab.h - interning byte strings (frame names, whole stacks) to dense ids.
 *
 * Owns: copies of the interned bytes (in its arena, NUL-terminated) and the
 * hash index (xxHash XXH3, hashindex.h). Ids are 0..count-1 in insertion
 * order and never change. Not thread-safe.
 */
#ifndef FK_STRTAB_H
#define FK_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/core/arena.h"
#include "analysis/core/hashindex.h"

#define FK_STRTAB_NONE UINT32_MAX

struct fk_str {
	const char *p;
	uint32_t len;
	uint64_t hash;
};

struct fk_strtab {
	struct fk_arena arena;
	struct fk_str *strs;
	uint32_t count;
	size_t cap;
	struct fk_hashindex index;
};

/* Id of p[0..len), added when new (*added set when given). FK_STRTAB_NONE
 * when out of memory or when the table is full (2^32 - 2 strings). */
uint32_t fk_strtab_intern(struct fk_strtab *t, const char *p, size_t len, bool *added);
/* The hash fk_strtab_intern uses, for callers that hash ahead. */
uint64_t fk_strtab_hash(const char *p, size_t len);
/* fk_strtab_intern with the hash already computed. */
uint32_t fk_strtab_intern_hashed(struct fk_strtab *t, const char *p, size_t len, uint64_t hash,
				 bool *added);
/* fk_strtab_intern_hashed for bytes that already live as long as t (in an
 * arena t adopts): a string new to t is not copied. */
uint32_t fk_strtab_add_owned(struct fk_strtab *t, const char *p, size_t len, uint64_t hash);
/* Cache hints for a later lookup of this hash: its index slot, then (once the
 * slot is in cache) the entry and first bytes it points to. Never fail. */
void fk_strtab_prefetch_slot(const struct fk_strtab *t, uint64_t hash);
/* The id the slot for hash points at (a guess: FK_STRTAB_NONE when empty). */
uint32_t fk_strtab_prefetch_entry(const struct fk_strtab *t, uint64_t hash);
/* Id or FK_STRTAB_NONE. */
uint32_t fk_strtab_find(const struct fk_strtab *t, const char *p, size_t len);
static inline const struct fk_str *fk_strtab_get(const struct fk_strtab *t, uint32_t id)
{
	return &t->strs[id];
}
/* Frees the hash index of a table read only by id from now on (a table
 * being merged away); an intern after it builds the index again. */
void fk_strtab_drop_index(struct fk_strtab *t);
void fk_strtab_free(struct fk_strtab *t);
/* Bytes held (strings, entries, index), for memory reports. */
size_t fk_strtab_memory(const struct fk_strtab *t);

#endif
