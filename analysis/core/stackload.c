/* stackload.c - stack text files into a stacks table (see stackload.h).
 *
 * Large plain files are read by one thread per core, each taking a piece of
 * the file (cut at line ends) into a table of its own; the tables are then
 * merged in input order, so stacks get the ids one reader would give them.
 * Readers read with pread() into a buffer, not through the file's mapping
 * (on a VM a mapped page's first touch costs several times reading it). The
 * first piece's stacks are all new to the load, so its reader splits each
 * new one into frames at once, from the buffer. A stack new to a later
 * reader may be an earlier piece's, so it keeps only where its text lies in
 * the mapping (its home), and the stacks new to the load are split after
 * the merge, their texts read again then. Splitting makes the first reader
 * the slowest, so a reader done with its piece takes the second half of
 * what the first has left as a piece of its own (take_from_first), while
 * that is worth a table. The mapping's pages are never touched. Stacks are
 * compact (frame ids), so a stack kept by two readers until the merge costs
 * little. Bad lines are held per reader and reported in input order with
 * their line numbers. Sums are exact, so the result does not depend on the
 * number of threads.
 */
#include "analysis/core/stackload.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/grow.h"
#include "formats/stacktext.h"

/* Below this, threads cost more than they save. */
#define PARALLEL_MIN_BYTES ((size_t)32 << 20)
#define MAX_WORKERS FK_INPUT_MAX_THREADS
/* Every reader walks the whole file, so more than a few cost more than they
 * save by default; FLAMEKIT_THREADS may still ask for up to MAX_WORKERS. */
#define DEFAULT_MAX_WORKERS 8

/* Lines of a mapped file stay readable for a while (at their homes, or in
 * the read buffer until it is reused), so they are added in batches whose
 * cache misses overlap (fk_stacks_add_batch); streamed lines go one by
 * one. */
#define BATCH 16
#define ENTRY_LAG 4

struct load_ctx {
	struct fk_stacks *stacks;
	struct fk_seq *seq;
	struct fk_diag *d;
	const char *name;
	uint64_t fail_line; /* a sum passed 128 bits, or memory ran out, here */
	enum fk_stacks_status fail;
	/* Mapped: lines are added in batches, and (unless eager) the stacks
	 * new to a reader keep their homes and are split after all readers are
	 * done (split_new_stacks). */
	bool batched;
	/* Mapped, and every stack new to this reader is new to the load (the
	 * first piece): new stacks are split as they come, from the buffer. */
	bool eager;
	/* Shared by the readers: where the first piece whose reader failed or
	 * stopped at a bad line (strict) starts. The readers of later pieces
	 * stop too; earlier ones go on, since a bad line of theirs comes first. */
	atomic_size_t *stop_from;
	size_t piece; /* where this reader's piece starts */
	const char *base;   /* the mapping, for progress on a terminal, or NULL */
	size_t size;
	unsigned shown_pct;
	struct fk_stacks_pending pending[BATCH];
	uint64_t pending_line[BATCH];
	size_t npending;
};

static bool seq_push(struct fk_seq *s, const struct fk_seq_item *it)
{
	if (!FK_GROW(s->items, s->cap, s->count + 1, 1024))
		return false;
	s->items[s->count++] = *it;
	return true;
}

static bool stopped(const struct load_ctx *c)
{
	return c->stop_from && atomic_load_explicit(c->stop_from, memory_order_relaxed) < c->piece;
}

static void set_stop(struct load_ctx *c)
{
	if (!c->stop_from)
		return;
	size_t first = atomic_load_explicit(c->stop_from, memory_order_relaxed);
	while (c->piece < first &&
	       !atomic_compare_exchange_weak_explicit(c->stop_from, &first, c->piece,
						      memory_order_relaxed, memory_order_relaxed))
		;
}

static bool flush(struct load_ctx *c)
{
	size_t done;
	enum fk_stacks_status st = fk_stacks_add_batch(c->stacks, c->pending, c->npending,
						       c->batched && !c->eager, &done);
	for (size_t i = 0; i < done && c->seq && st == FK_STACKS_OK; i++) {
		struct fk_seq_item it = {
			.stack = c->pending[i].id, .nvalues = (uint8_t)c->pending[i].nvalues,
			.before = c->pending[i].before, .value = c->pending[i].value,
		};
		if (!seq_push(c->seq, &it)) {
			st = FK_STACKS_NOMEM;
			done = i;
		}
	}
	if (st != FK_STACKS_OK) {
		c->fail = st;
		c->fail_line = c->pending_line[done];
		set_stop(c);
	}
	c->npending = 0;
	return st == FK_STACKS_OK;
}

/* Large files on a terminal: "NAME: 42%" on stderr, now and then. */
#define PROGRESS_MIN_BYTES ((size_t)256 << 20)

static void progress(struct load_ctx *c, const char *line, uint64_t lineno)
{
	if (!c->base || (lineno & 0xFFFF) != 0)
		return;
	unsigned pct = (unsigned)((size_t)(line - c->base) * 100 / c->size);
	if (pct >= c->shown_pct + 5) {
		c->shown_pct = pct;
		fk_diag_progress(c->d, c->name, pct);
	}
}

static void progress_done(const struct load_ctx *c)
{
	if (c->base && c->shown_pct)
		fk_diag_progress_end(c->d);
}

/* A line whose bytes are read at line, and stay readable at home (the
 * same bytes in the mapped file, or line itself) for a stack kept lazily. */
static bool add_line(struct load_ctx *c, const char *line, size_t len, const char *home,
		     uint64_t lineno)
{
	struct fk_stackline sl;
	const char *why = NULL;
	progress(c, home, lineno);
	switch (fk_stackline_parse(line, len, &sl, &why)) {
	case FK_STACKLINE_SKIP:
		return true;
	case FK_STACKLINE_INVALID:
		/* Lines before it are added first, so errors come in input order. */
		if (c->npending && !flush(c))
			return false;
		if (fk_diag_line(c->d, c->name, lineno, "%s", why))
			return true;
		set_stop(c);
		return false;
	case FK_STACKLINE_STACK:
		break;
	}
	if (stopped(c))
		return false;
	struct fk_text_hash h = fk_text_hash(sl.stack, sl.stack_len);
	fk_stackset_prefetch_slot(&c->stacks->set, h.hash);
	/* Field by field: a compound literal would clear the whole entry
	 * first (a rep stos per line). */
	struct fk_stacks_pending *p = &c->pending[c->npending];
	p->stack = c->eager ? sl.stack : home + (sl.stack - line);
	p->len = sl.stack_len;
	p->hash = h;
	p->before = sl.before;
	p->value = sl.value;
	p->nvalues = sl.nvalues;
	c->pending_line[c->npending++] = lineno;
	if (!c->batched || c->npending == BATCH)
		return flush(c);
	/* A line hashed ENTRY_LAG lines ago has its slot in cache by now: the
	 * entry it points at is fetched too, well before the batch needs it. */
	if (c->npending > ENTRY_LAG)
		fk_stackset_prefetch_entry(&c->stacks->set,
					   c->pending[c->npending - 1 - ENTRY_LAG].hash.hash);
	return true;
}

static bool on_line(void *arg, const char *line, size_t len, uint64_t lineno)
{
	return add_line(arg, line, len, line, lineno);
}

static void report_failure(struct fk_diag *d, const char *name, enum fk_stacks_status st,
			   uint64_t line)
{
	if (st == FK_STACKS_OVERFLOW)
		fk_diag_error(d, "%s:%llu: sum of values passes 128 bits", name, (unsigned long long)line);
	else
		fk_diag_error(d, "%s:%llu: out of memory", name, (unsigned long long)line);
}

/* Where the first line that starts at or after off starts (the end when
 * none does), found by reading, as the pieces are read. */
static size_t line_start_from(const struct fk_input *in, size_t off)
{
	size_t len = in->map_len;
	if (off == 0)
		return 0;
	/* Most lines end within the first 4 KiB; a line of megabytes at a cut
	 * is then read 64 KiB a call, not 4. */
	char buf[64 << 10];
	size_t want = 4096;
	for (off--; off < len; want = sizeof buf) {
		ssize_t got = fk_input_pread(in, buf, want, off);
		if (got <= 0)
			break; /* the reader before reads to the end and says why */
		const char *nl = memchr(buf, '\n', (size_t)got);
		if (nl)
			return off + (size_t)(nl - buf) + 1;
		off += (size_t)got;
	}
	return len;
}

/* A piece of the file and what its reader made of it. */
struct worker {
	struct pieces *all;
	size_t off, n; /* its piece of the file (the first one's may end sooner) */
	struct fk_stacks own; /* pieces after the first aggregate here */
	struct fk_diag diag;
	struct load_ctx ctx;
	uint64_t lines;
	enum fk_input_result res;
};

/* The pieces being read: the first n are the file's cut into as many, and
 * those taken from the first piece's end come after them. */
struct pieces {
	const struct fk_input *in;
	struct fk_stacks *into; /* the first piece's table, and the load's */
	struct fk_diag *d;
	atomic_size_t stop_from;
	pthread_mutex_t lock;  /* guards what follows */
	size_t first_end;      /* where the first piece ends now */
	size_t first_claimed;  /* how far its reader has read, or is reading */
	struct worker *w;
	unsigned count, cap;
};

/* A piece is taken from the first one's end while that leaves both at
 * least this much: a table to merge costs a few milliseconds. (Smaller in
 * a unit test, which takes many.) */
#ifndef FK_STACKLOAD_TAKE_MIN
#define FK_STACKLOAD_TAKE_MIN ((size_t)8 << 20)
#endif
#define TAKE_MIN FK_STACKLOAD_TAKE_MIN
/* Takes after the first n pieces: each halves what the first has left. */
#define MAX_TAKES 32

static void start_piece(struct pieces *p, struct worker *w, size_t off, size_t n)
{
	*w = (struct worker){ .all = p, .off = off, .n = n };
	fk_diag_defer(&w->diag, p->d);
	w->ctx = (struct load_ctx){
		.stacks = w == p->w ? p->into : &w->own, .d = &w->diag, .name = p->in->name,
		.batched = true, .eager = w == p->w, .stop_from = &p->stop_from, .piece = off,
	};
}

/* How much of want bytes from pos the first piece's reader may read. */
static size_t claim_first(void *arg, size_t pos, size_t want)
{
	struct pieces *p = ((struct worker *)arg)->all;
	pthread_mutex_lock(&p->lock);
	size_t left = p->first_end > pos ? p->first_end - pos : 0;
	size_t n = want < left ? want : left;
	p->first_claimed = pos + n;
	pthread_mutex_unlock(&p->lock);
	return n;
}

/* The second half of what the first piece's reader has not reached, as a
 * piece of its own; NULL when too little is left. */
static struct worker *take_from_first(struct pieces *p)
{
	struct worker *got = NULL;
	pthread_mutex_lock(&p->lock);
	size_t from = p->first_claimed, end = p->first_end;
	if (p->count < p->cap && end - from >= 2 * TAKE_MIN) {
		size_t cut = line_start_from(p->in, from + (end - from) / 2);
		if (cut < end) {
			got = &p->w[p->count++];
			start_piece(p, got, cut, end - cut);
			p->first_end = cut;
		}
	}
	pthread_mutex_unlock(&p->lock);
	return got;
}

static bool on_piece_line(void *arg, const char *line, size_t len, const char *home,
			  uint64_t lineno)
{
	return add_line(&((struct worker *)arg)->ctx, line, len, home, lineno);
}

/* The read buffer is about to be reused: the lines the first piece's
 * reader holds by their place in it are added now. */
static bool on_piece_read(void *arg)
{
	struct load_ctx *c = &((struct worker *)arg)->ctx;
	return !c->npending || flush(c);
}

static void read_piece(struct worker *w)
{
	/* Read, not mapped: a new stack's home says where its text is read
	 * again when it is split (split_new_stacks). The first piece's reader
	 * holds lines in its buffer, and its piece may end sooner. */
	const struct fk_piece_reader r = {
		.line = on_piece_line, .ctx = w,
		.lines_read = w->ctx.eager ? on_piece_read : NULL,
		.claim = w->ctx.eager ? claim_first : NULL,
	};
	w->res = fk_input_pread_piece(w->all->in, w->off, w->n, w->ctx.name, 0, &r, &w->diag,
				      &w->lines);
	if (w->ctx.npending && !flush(&w->ctx) && w->res == FK_INPUT_OK)
		w->res = FK_INPUT_STOPPED;
}

/* A later piece's reader: its piece, then pieces taken from the first. */
static void *work(void *arg)
{
	struct worker *w = arg;
	read_piece(w);
	while ((w = take_from_first(w->all)) != NULL)
		read_piece(w);
	return NULL;
}

static unsigned worker_count(size_t bytes)
{
	return fk_input_threads(bytes, PARALLEL_MIN_BYTES, DEFAULT_MAX_WORKERS);
}

/* Running totals for finding the line where they pass 128 bits. */
struct totals_ctx {
	struct fk_num total, total_before;
	uint64_t overflow_line;
};

static bool add_to_totals(void *arg, const char *line, size_t len, const char *home,
			  uint64_t lineno)
{
	struct totals_ctx *c = arg;
	struct fk_stackline sl;
	const char *why;
	if (fk_stackline_parse(line, len, &sl, &why) != FK_STACKLINE_STACK)
		return true;
	if (!fk_num_add(&c->total, sl.value) || !fk_num_add(&c->total_before, sl.before)) {
		c->overflow_line = lineno;
		return false;
	}
	return true;
}

/* The totals passed 128 bits, maybe only when the readers' shares were
 * combined, so no reader knows the line: sum the file again, from the
 * totals the table had before it, to find the first line that does it, 0
 * when none does alone. (A stack's sums never exceed the totals, so the
 * totals alone decide.) */
static uint64_t overflow_line(const struct fk_input *in, const struct fk_stacks *start,
			      const struct fk_diag *d)
{
	struct totals_ctx c = { .total = start->total, .total_before = start->total_before };
	struct fk_diag quiet;
	fk_diag_defer(&quiet, d);
	quiet.quiet = true;
	uint64_t lines;
	fk_input_pread_lines(in, 0, in->map_len, in->name, 0, add_to_totals, &c, &quiet, &lines);
	return c.overflow_line;
}

/* From this many stacks to split, the upper half is split on a thread of
 * its own. */
#define PARALLEL_SPLIT_MIN 8192

/* Splits stacks [lo, hi) of t that are not split yet, in id order, which
 * is the order of their texts in the file. Into t itself, or (part) into a
 * set of its own. The texts are read from the file into a window, as the
 * readers read it (fk_input_pread_lines): their homes in the mapping are
 * only where they lie. */
struct split_range {
	const struct fk_input *in;
	struct fk_stackset *t, *part;
	uint32_t lo, hi;
	int err; /* 0, ENOMEM, or why a text could not be read */
};

/* The texts of new stacks are dense early in a file and sparse later: a
 * read takes the texts that follow while the gaps between them stay under
 * SPLIT_GAP, up to SPLIT_WINDOW, so neither the gaps nor the calls (about
 * 2 us each on a VM) cost much. */
#define SPLIT_GAP ((size_t)16 << 10)
#define SPLIT_WINDOW ((size_t)1 << 20)

struct text_window {
	char *buf;
	size_t cap;
	size_t from, to; /* the file's bytes in buf */
};

static size_t text_offset(const struct split_range *r, uint32_t id)
{
	return (size_t)(fk_stackset_get(r->t, id)->text - r->in->map);
}

/* Where a read for stack id's text should end: past the texts of the lazy
 * stacks after it that lie close behind. */
static size_t window_end(const struct split_range *r, uint32_t id)
{
	size_t from = text_offset(r, id), end = from + fk_stackset_get(r->t, id)->text_len;
	for (uint32_t next = id + 1; next < r->hi; next++) {
		if (!fk_stackset_is_lazy(r->t, next))
			continue;
		size_t off = text_offset(r, next), to = off + fk_stackset_get(r->t, next)->text_len;
		if (off < from || off > end + SPLIT_GAP || to - from > SPLIT_WINDOW)
			break;
		if (to > end)
			end = to;
	}
	return end;
}

/* Stack id's text, through the window; NULL with r->err set when it cannot
 * be read. */
static const char *window_text(struct text_window *w, struct split_range *r, uint32_t id)
{
	size_t off = text_offset(r, id), len = fk_stackset_get(r->t, id)->text_len;
	if (w->buf && off >= w->from && off + len <= w->to)
		return w->buf + (off - w->from);
	size_t want = window_end(r, id) - off;
	/* A buffer even for an empty text (the stack ""): never a null text. */
	if (!FK_GROW(w->buf, w->cap, want ? want : 1, SPLIT_WINDOW)) {
		r->err = ENOMEM;
		return NULL;
	}
	ssize_t got = fk_input_pread(r->in, w->buf, want, off);
	if (got < (ssize_t)want) { /* the file shrank under us */
		r->err = got < 0 ? errno : EIO;
		w->to = w->from;
		return NULL;
	}
	w->from = off;
	w->to = off + want;
	return w->buf;
}

static void *split_range(void *arg)
{
	struct split_range *r = arg;
	struct text_window w = { 0 };
	r->err = 0;
	for (uint32_t id = r->lo; id < r->hi && !r->err; id++) {
		if (!fk_stackset_is_lazy(r->t, id))
			continue;
		const struct fk_stack_entry *e = fk_stackset_get(r->t, id);
		const char *text = window_text(&w, r, id);
		if (!text)
			break;
		bool ok = !r->part ? fk_stackset_split_lazy_from(r->t, id, text)
				   : fk_stackset_intern(r->part, text, e->text_len,
							(struct fk_text_hash){ e->hash, e->check },
							NULL) != FK_STACKSET_NONE;
		if (!ok)
			r->err = ENOMEM;
	}
	free(w.buf);
	return NULL;
}

/* What splitting lazy stack id costs, in bytes read: its text, and the
 * gap before it read with it (a gap too long to read is a new call,
 * counted as SPLIT_GAP). *last_end: where the text before it ends. */
static size_t split_cost(const struct split_range *r, uint32_t id, size_t *last_end)
{
	size_t off = text_offset(r, id), len = fk_stackset_get(r->t, id)->text_len;
	size_t gap = off >= *last_end && off - *last_end < SPLIT_GAP ? off - *last_end : SPLIT_GAP;
	*last_end = off + len;
	return len + gap;
}

/* Where the stacks of r left unsplit are cut into two halves of about
 * the same cost; r->hi when they are too few for two threads. The first
 * reader split the early stacks, so halving the ids would leave one half
 * little to do. */
static uint32_t split_middle(const struct split_range *r)
{
	uint64_t total = 0, done = 0;
	uint32_t lazy = 0;
	size_t last_end = 0;
	for (uint32_t id = r->lo; id < r->hi; id++)
		if (fk_stackset_is_lazy(r->t, id)) {
			total += split_cost(r, id, &last_end);
			lazy++;
		}
	if (lazy < PARALLEL_SPLIT_MIN)
		return r->hi;
	last_end = 0;
	for (uint32_t id = r->lo; id < r->hi; id++)
		if (fk_stackset_is_lazy(r->t, id) &&
		    (done += split_cost(r, id, &last_end)) * 2 >= total)
			return id + 1;
	return r->hi;
}

/* Splits the stacks the readers left unsplit (ids from first on): each
 * unique stack once, where every reader would have split nearly all of
 * them. Many are split on two threads, the upper half into a set that t
 * then takes over, which gives the frames the ids one thread would. 0, or
 * ENOMEM or a read error: t then forgets the stacks from the first one left
 * unsplit on (an error is reported for the file). */
static int split_new_stacks(const struct fk_input *in, struct fk_stacks *into, uint32_t first,
			    bool threads)
{
	struct fk_stackset *t = &into->set;
	uint32_t count = fk_stacks_count(into), mid = count;
	struct fk_stackset part = { 0 };
	struct split_range upper = { in, t, &part, count, count, 0 };
	pthread_t thread;
	bool started = false;
	if (threads && count - first >= PARALLEL_SPLIT_MIN)
		mid = split_middle(&(struct split_range){ in, t, NULL, first, count, 0 });
	if (mid < count) {
		upper.lo = mid;
		started = pthread_create(&thread, NULL, split_range, &upper) == 0;
		if (!started)
			mid = count;
	}
	struct split_range lower = { in, t, NULL, first, mid, 0 };
	split_range(&lower);
	if (started)
		pthread_join(thread, NULL);
	int err = lower.err ? lower.err : upper.err;
	uint32_t *map = started && !err ? malloc(((size_t)part.count + 1) * sizeof *map) : NULL;
	if (started && !err && !(map && fk_stackset_take(t, &part, map)))
		err = ENOMEM;
	free(map);
	fk_stackset_free(&part);
	for (uint32_t id = first; err && id < count; id++)
		if (fk_stackset_is_lazy(t, id)) {
			fk_stackset_truncate(t, id);
			break;
		}
	return err;
}

/* Merges the later pieces' tables into the first, in order, then reports
 * the readers' bad lines in input order (each piece's line numbers shifted
 * past the pieces before it) up to where one reader would have stopped: a
 * line where the sums pass 128 bits, which is then the error. */
static enum fk_input_result join_workers(struct worker **w, unsigned n, struct fk_stacks *into,
					 uint32_t first, const struct fk_input *in,
					 const struct fk_stacks *start, struct fk_diag *d,
					 const char *name)
{
	bool overflow = false, nomem = false, unread = false;
	for (unsigned i = 0; i < n; i++) {
		overflow |= w[i]->ctx.fail == FK_STACKS_OVERFLOW;
		nomem |= w[i]->ctx.fail == FK_STACKS_NOMEM;
		unread |= w[i]->res == FK_INPUT_ERROR; /* reported by its reader */
	}
	/* Merged also after a strict stop: every line before a bad line was
	 * read, so a sum passing 128 bits before it is still seen. */
	for (unsigned i = 1; i < n; i++) {
		if (!overflow && !nomem) {
			enum fk_stacks_status st = fk_stacks_merge(into, &w[i]->own);
			overflow |= st == FK_STACKS_OVERFLOW;
			nomem |= st == FK_STACKS_NOMEM;
		}
		fk_stacks_free(&w[i]->own);
	}
	/* Also after a failure: no stack leaves the load unsplit. */
	int split_err = split_new_stacks(in, into, first, n > 1);
	nomem |= split_err == ENOMEM;
	if (split_err && split_err != ENOMEM) {
		fk_diag_error(d, "%s: %s", name, strerror(split_err));
		unread = true;
	}
	uint64_t stop_line = overflow ? overflow_line(in, start, d) : 0;
	enum fk_input_result res = FK_INPUT_OK;
	uint64_t offset = 0;
	for (unsigned i = 0; i < n && res == FK_INPUT_OK; i++) {
		if (!fk_diag_replay_before(d, &w[i]->diag, name, offset,
					   stop_line ? stop_line : UINT64_MAX))
			res = FK_INPUT_STOPPED; /* strict: a bad line */
		else if (w[i]->res == FK_INPUT_STOPPED && !overflow && !nomem)
			res = FK_INPUT_STOPPED; /* strict with nothing printed (quiet) */
		/* Past a piece that failed, one reader would have read no further
		 * (and the later readers stopped part way). */
		if (w[i]->ctx.fail != FK_STACKS_OK)
			break;
		offset += w[i]->lines;
	}
	if (res == FK_INPUT_OK && unread) {
		res = FK_INPUT_ERROR;
	} else if (res == FK_INPUT_OK && overflow) {
		if (stop_line)
			report_failure(d, name, FK_STACKS_OVERFLOW, stop_line);
		else
			fk_diag_error(d, "%s: sum of values passes 128 bits", name);
		res = FK_INPUT_ERROR;
	} else if (res == FK_INPUT_OK && nomem) {
		fk_diag_error(d, "%s: out of memory", name);
		res = FK_INPUT_ERROR;
	}
	return res;
}

/* Where piece i of n begins: at a line's start (the end for i == n). */
static size_t piece_start(const struct fk_input *in, unsigned i, unsigned n)
{
	return i >= n ? in->map_len : line_start_from(in, in->map_len / n * i);
}

static int by_offset(const void *a, const void *b)
{
	const struct worker *x = *(struct worker *const *)a, *y = *(struct worker *const *)b;
	return (x->off > y->off) - (x->off < y->off);
}

static enum fk_input_result load_parallel(const struct fk_input *in, unsigned n,
					  struct fk_stacks *into, struct fk_diag *d)
{
	const char *name = in->name;
	struct pieces p = { .in = in, .into = into, .d = d, .stop_from = SIZE_MAX,
			    .cap = n + MAX_TAKES };
	p.w = calloc(p.cap, sizeof *p.w);
	struct worker **order = malloc(p.cap * sizeof *order);
	pthread_t *threads = malloc(n * sizeof *threads);
	if (!p.w || !order || !threads) {
		free(p.w);
		free(order);
		free(threads);
		fk_diag_error(d, "%s: out of memory", name);
		return FK_INPUT_ERROR;
	}
	pthread_mutex_init(&p.lock, NULL);
	/* The totals before this file, should an overflow need finding again. */
	struct fk_stacks before = { .total = into->total, .total_before = into->total_before };
	uint32_t first = fk_stacks_count(into);
	for (unsigned i = 0; i < n; i++) {
		size_t off = piece_start(in, i, n);
		start_piece(&p, &p.w[i], off, piece_start(in, i + 1, n) - off);
	}
	p.count = n;
	p.first_end = p.w[0].n;
	/* The first reader's share of the file stands for the whole. */
	if (in->map_len >= PROGRESS_MIN_BYTES && !d->quiet && isatty(STDERR_FILENO)) {
		p.w[0].ctx.base = in->map;
		p.w[0].ctx.size = p.w[0].n ? p.w[0].n : 1;
	}
	/* The first piece is read on this thread; the others get threads. */
	unsigned started;
	for (started = 1; started < n; started++)
		if (pthread_create(&threads[started], NULL, work, &p.w[started]) != 0)
			break;
	read_piece(&p.w[0]);
	for (unsigned i = started; i < n; i++)
		read_piece(&p.w[i]); /* could not start a thread: read its piece here */
	for (unsigned i = 1; i < started; i++)
		pthread_join(threads[i], NULL);
	progress_done(&p.w[0].ctx);
	pthread_mutex_destroy(&p.lock);
	/* Pieces taken from the first lie between it and the second. */
	for (unsigned i = 0; i < p.count; i++)
		order[i] = &p.w[i];
	qsort(order, p.count, sizeof *order, by_offset);
	enum fk_input_result res = join_workers(order, p.count, into, first, in, &before, d, name);
	free(p.w);
	free(order);
	free(threads);
	return res;
}

enum fk_input_result fk_load_stacktext_input(struct fk_input *in, struct fk_stacks *into,
					     struct fk_seq *seq, struct fk_diag *d)
{
	/* Mapped files are read in pieces (by several threads when large);
	 * flame charts need one sequence in input order, so they stream. */
	if (!seq && in->map) {
		return load_parallel(in, worker_count(in->map_len), into, d);
	}
	struct load_ctx c = { .stacks = into, .seq = seq, .d = d, .name = in->name };
	enum fk_input_result r = fk_input_read_lines(in, on_line, &c, d);
	if (c.fail != FK_STACKS_OK) {
		report_failure(d, in->name, c.fail, c.fail_line);
		return FK_INPUT_ERROR;
	}
	return r;
}

enum fk_input_result fk_load_stacktext(const char *path, struct fk_stacks *into,
				       struct fk_seq *seq, struct fk_diag *d)
{
	struct fk_input in;
	if (!fk_input_open(&in, path, d))
		return FK_INPUT_ERROR;
	enum fk_input_result r = fk_load_stacktext_input(&in, into, seq, d);
	fk_input_close(&in);
	return r;
}

void fk_seq_free(struct fk_seq *s)
{
	free(s->items);
	*s = (struct fk_seq){ 0 };
}
