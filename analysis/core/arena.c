/* arena.c - chunked bump allocator (see arena.h). */
#include "analysis/core/arena.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Chunks grow from small to large: a small input (and every fuzzing run)
 * costs little, a large one makes few chunks. */
#define FIRST_CHUNK ((size_t)1 << 10)
#define CHUNK_SIZE ((size_t)1 << 20)
#define ALIGN 8

struct fk_arena_chunk {
	struct fk_arena_chunk *next;
	char data[];
};

void *fk_arena_alloc(struct fk_arena *a, size_t n)
{
	n = n ? (n + ALIGN - 1) & ~(size_t)(ALIGN - 1) : ALIGN; /* never NULL for 0 */
	if (n > a->left) {
		size_t chunk = a->next_chunk ? a->next_chunk : FIRST_CHUNK;
		/* Big requests get a chunk of their own so the current one is kept. */
		bool own = n > chunk / 4;
		size_t size = own ? n : chunk;
		struct fk_arena_chunk *c = malloc(sizeof *c + size + FK_ARENA_SLACK);
		if (!c)
			return NULL;
		memset(c->data + size, 0, FK_ARENA_SLACK);
		c->next = a->chunks;
		a->chunks = c;
		if (own) {
			a->bytes += n;
			return c->data;
		}
		a->cur = c->data;
		a->left = size;
		a->next_chunk = chunk < CHUNK_SIZE ? chunk * 2 : CHUNK_SIZE;
	}
	void *p = a->cur;
	a->cur += n;
	a->left -= n;
	a->bytes += n;
	return p;
}

char *fk_arena_dup(struct fk_arena *a, const void *p, size_t n)
{
	char *d = fk_arena_alloc(a, n + 1);
	if (d) {
		if (n)
			memcpy(d, p, n);
		d[n] = '\0';
	}
	return d;
}

void fk_arena_free(struct fk_arena *a)
{
	struct fk_arena_chunk *c = a->chunks;
	while (c) {
		struct fk_arena_chunk *next = c->next;
		free(c);
		c = next;
	}
	*a = (struct fk_arena){ 0 };
}


void fk_arena_adopt(struct fk_arena *a, struct fk_arena *from)
{
	if (!from->chunks)
		return;
	struct fk_arena_chunk *last = from->chunks;
	while (last->next)
		last = last->next;
	/* Behind a's first chunk, so a keeps allocating where it was. */
	if (a->chunks) {
		last->next = a->chunks->next;
		a->chunks->next = from->chunks;
	} else {
		a->chunks = from->chunks;
	}
	a->bytes += from->bytes;
	*from = (struct fk_arena){ 0 };
}
