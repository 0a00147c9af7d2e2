/* arena.h - bump allocation in large chunks for interned strings.
 *
 * Owns: every byte handed out until fk_arena_free(). Pointers stay valid for
 * the arena's life (chunks never move). Not thread-safe.
 *
 * Every chunk ends in FK_ARENA_SLACK zero bytes, so a fixed-size read of up
 * to that many bytes from anything handed out stays in the chunk: compares
 * of short names can load whole vectors and mask, without a branch on the
 * name's length.
 */
#ifndef FK_ARENA_H
#define FK_ARENA_H

#include <stddef.h>

#define FK_ARENA_SLACK 64

struct fk_arena_chunk;

struct fk_arena {
	struct fk_arena_chunk *chunks;
	char *cur;
	size_t left;
	size_t bytes; /* handed out, for memory reports */
	size_t next_chunk; /* the size of the next chunk (0: the first) */
};

/* NULL when out of memory. n may be 0. */
void *fk_arena_alloc(struct fk_arena *a, size_t n);
/* Copy of p[0..n) followed by a NUL. */
char *fk_arena_dup(struct fk_arena *a, const void *p, size_t n);
void fk_arena_free(struct fk_arena *a);
/* Moves every chunk of from into a (pointers into them stay valid); from is
 * left empty. */
void fk_arena_adopt(struct fk_arena *a, struct fk_arena *from);


#endif
