/* folded_write.c - folded text output (see folded_write.h).
 *
 * Big outputs are rendered into 1 MiB blocks that a second thread writes
 * while the next ones are rendered: a 110 MB fold spends about as long in
 * write(2), copying into the page cache, as in making its lines, so the
 * two overlap instead of taking turns. The bytes are the same either way.
 */
#include "analysis/core/folded_write.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK ((size_t)1 << 20)
#define NBLOCKS 4
/* How many lines ahead the entries they read are fetched. */
#define AHEAD 16
/* Below this many stacks the output is small: written as it is made. */
#define THREADED_MIN_STACKS 16384

struct blocks {
	FILE *out;
	/* NBLOCKS blocks of BLOCK bytes, each its own allocation (so a line
	 * written past its block's end is a heap overflow that ASan reports,
	 * not a quiet write into the block the other thread writes out);
	 * mem[0] NULL: none. */
	char *mem[NBLOCKS];
	size_t used;            /* bytes in the block being filled */
	bool threaded;
	/* Shared with the writing thread, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	size_t len[NBLOCKS];
	unsigned filled, written; /* blocks handed over, and written, so far */
	bool finished;
	int err;                /* errno of the first failed write */
	pthread_t thread;
};

static char *block_at(const struct blocks *b, unsigned n)
{
	return b->mem[n % NBLOCKS];
}

static void *write_blocks(void *arg)
{
	struct blocks *b = arg;
	pthread_mutex_lock(&b->lock);
	for (;;) {
		while (b->written == b->filled && !b->finished)
			pthread_cond_wait(&b->changed, &b->lock);
		if (b->written == b->filled)
			break;
		const char *p = block_at(b, b->written);
		size_t n = b->len[b->written % NBLOCKS];
		pthread_mutex_unlock(&b->lock);
		bool ok = fwrite_unlocked(p, 1, n, b->out) == n;
		int err = errno;
		pthread_mutex_lock(&b->lock);
		if (!ok && !b->err)
			b->err = err;
		b->written++;
		pthread_cond_broadcast(&b->changed);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

/* The block being filled goes to be written; the next one is free once
 * fewer than NBLOCKS wait. */
static void hand_over(struct blocks *b)
{
	if (!b->threaded) {
		fwrite_unlocked(block_at(b, b->filled), 1, b->used, b->out);
		b->used = 0;
		return;
	}
	pthread_mutex_lock(&b->lock);
	b->len[b->filled % NBLOCKS] = b->used;
	b->filled++;
	pthread_cond_broadcast(&b->changed);
	while (b->filled - b->written >= NBLOCKS)
		pthread_cond_wait(&b->changed, &b->lock);
	pthread_mutex_unlock(&b->lock);
	b->used = 0;
}

static void emit(struct blocks *b, const char *p, size_t n)
{
	if (!b->mem[0]) { /* a small output: through stdio's buffer */
		fwrite_unlocked(p, 1, n, b->out);
		return;
	}
	while (n > 0) {
		size_t k = BLOCK - b->used < n ? BLOCK - b->used : n;
		memcpy(block_at(b, b->filled) + b->used, p, k);
		b->used += k, p += k, n -= k;
		if (b->used == BLOCK)
			hand_over(b);
	}
}

static void blocks_open(struct blocks *b, FILE *out, uint32_t count)
{
	*b = (struct blocks){ .out = out };
	if (count < THREADED_MIN_STACKS)
		return;
	for (unsigned i = 0; i < NBLOCKS; i++)
		if (!(b->mem[i] = malloc(BLOCK))) {
			for (unsigned k = 0; k < i; k++) {
				free(b->mem[k]);
				b->mem[k] = NULL;
			}
			return;
		}
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->changed, NULL);
	b->threaded = pthread_create(&b->thread, NULL, write_blocks, b) == 0;
	if (!b->threaded) {
		pthread_mutex_destroy(&b->lock);
		pthread_cond_destroy(&b->changed);
	}
}

/* Writes what is left and waits for it; 0, or errno of a failed write. */
static int blocks_close(struct blocks *b)
{
	int err = 0;
	if (b->mem[0] && b->used)
		hand_over(b);
	if (b->threaded) {
		pthread_mutex_lock(&b->lock);
		b->finished = true;
		pthread_cond_broadcast(&b->changed);
		pthread_mutex_unlock(&b->lock);
		pthread_join(b->thread, NULL);
		err = b->err;
		pthread_mutex_destroy(&b->lock);
		pthread_cond_destroy(&b->changed);
	}
	for (unsigned i = 0; i < NBLOCKS; i++)
		free(b->mem[i]);
	return err;
}

/* What a line needs past its stack's text: the names' slack, two
 * numbers with their spaces, the newline. */
#define LINE_EXTRA (FK_STACKSET_TEXT_SLACK + 2 * (1 + FK_NUM_TEXT_MAX) + 1)

/* Stack id's line at p, which has room for its text and LINE_EXTRA; its
 * length. */
static size_t put_line(char *p, const struct fk_stacks *s, uint32_t id,
		       const struct fk_stack_sums *v)
{
	char *q = p + fk_stackset_put_text(&s->set, id, p);
	if (s->any_diff) {
		*q++ = ' ';
		q += fk_num_format(v->before, q);
	}
	*q++ = ' ';
	q += fk_num_format(v->value, q);
	*q++ = '\n';
	return (size_t)(q - p);
}

int fk_folded_write(FILE *out, const struct fk_stacks *s, const struct fk_folded_opts *o,
		    uint64_t *written)
{
	char num[FK_NUM_TEXT_MAX + 2]; /* ' ', the number, '\n' */
	uint64_t n = 0;
	struct blocks b;
	/* One writer, so the stream's lock is taken once, not per call. */
	flockfile(out);
	blocks_open(&b, out, o->count);
	for (uint32_t i = 0; i < o->count; i++) {
		/* The order is the text's, not the ids': fetch ahead what a
		 * later line reads (its entry, then its frames and sums). */
		if (i + AHEAD < o->count)
			__builtin_prefetch(fk_stackset_get(&s->set, o->order[i + AHEAD]));
		if (i + AHEAD / 2 < o->count) {
			uint32_t later = o->order[i + AHEAD / 2];
			__builtin_prefetch(fk_stackset_get(&s->set, later)->frames);
			__builtin_prefetch(&s->sums[later]);
		}
		uint32_t id = o->order[i];
		const struct fk_stack_sums *v = &s->sums[id];
		if (fk_num_cmp(v->value, o->min) < 0)
			continue;
		const struct fk_stack_entry *e = fk_stackset_get(&s->set, id);
		if (b.mem[0] && BLOCK - b.used >= (size_t)e->text_len + LINE_EXTRA) {
			/* A block is handed over only once full: never here. */
			b.used += put_line(block_at(&b, b.filled) + b.used, s, id, v);
			n++;
			continue;
		}
		for (uint32_t f = 0; f < e->nframes; f++) {
			const struct fk_str *name = fk_stackset_frame(&s->set, e->frames[f]);
			if (f)
				emit(&b, ";", 1);
			emit(&b, name->p, name->len);
		}
		num[0] = ' ';
		if (s->any_diff)
			emit(&b, num, 1 + fk_num_format(v->before, num + 1));
		size_t len = 1 + fk_num_format(v->value, num + 1);
		num[len++] = '\n';
		emit(&b, num, len);
		n++;
	}
	int err = blocks_close(&b);
	funlockfile(out);
	*written = n;
	if (err) {
		errno = err;
		return -1;
	}
	return ferror(out) ? -1 : 0;
}
