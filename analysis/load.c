/* load.c - stack text files into a stacks table (see load.h).
 *
 * Large plain files are split at line boundaries and parsed by one thread
 * per core, each into its own table; the tables are then merged. Sums are
 * exact, so the result does not depend on the split. Bad lines are held by
 * each worker and reported afterwards, in input order, with file line numbers.
 */
#include "load.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../formats/stacktext.h"

/* Below this, threads cost more than they save. */
#define PARALLEL_MIN_BYTES ((size_t)32 << 20)
#define MAX_WORKERS 16

/* Lines of a mapped file stay valid, so they are added in batches whose
 * cache misses overlap (fk_stacks_add_batch); streamed lines go one by one. */
#define BATCH 16

struct load_ctx {
	struct fk_stacks *stacks;
	struct fk_seq *seq;
	struct fk_diag *d;
	const char *name;
	uint64_t fail_line; /* a sum passed 64 bits, or memory ran out, here */
	enum fk_stacks_status fail;
	bool batched;       /* lines stay valid until the end of the buffer */
	struct fk_stacks_pending pending[BATCH];
	uint64_t pending_line[BATCH];
	size_t npending;
};

static bool seq_push(struct fk_seq *s, const struct fk_seq_item *it)
{
	if (s->count == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct fk_seq_item *g = realloc(s->items, cap * sizeof *g);
		if (!g)
			return false;
		s->items = g;
		s->cap = cap;
	}
	s->items[s->count++] = *it;
	return true;
}

static bool flush(struct load_ctx *c)
{
	size_t done;
	enum fk_stacks_status st = fk_stacks_add_batch(c->stacks, c->pending, c->npending, &done);
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
	}
	c->npending = 0;
	return st == FK_STACKS_OK;
}

static bool on_line(void *arg, const char *line, size_t len, uint64_t lineno)
{
	struct load_ctx *c = arg;
	struct fk_stackline sl;
	const char *why = NULL;
	switch (fk_stackline_parse(line, len, &sl, &why)) {
	case FK_STACKLINE_SKIP:
		return true;
	case FK_STACKLINE_INVALID:
		/* Lines before it are added first, so errors come in input order. */
		if (c->npending && !flush(c))
			return false;
		return fk_diag_line(c->d, c->name, lineno, "%s", why);
	case FK_STACKLINE_STACK:
		break;
	}
	uint64_t h = fk_strtab_hash(sl.stack, sl.stack_len);
	fk_strtab_prefetch_slot(&c->stacks->keys, h);
	c->pending[c->npending] = (struct fk_stacks_pending){
		.stack = sl.stack, .len = sl.stack_len, .hash = h,
		.before = sl.before, .value = sl.value, .nvalues = sl.nvalues,
	};
	c->pending_line[c->npending++] = lineno;
	if (!c->batched || c->npending == BATCH)
		return flush(c);
	return true;
}

static void report_failure(struct fk_diag *d, const char *name, enum fk_stacks_status st,
			   uint64_t line)
{
	if (st == FK_STACKS_OVERFLOW)
		fk_diag_error(d, "%s:%llu: sum of values passes 64 bits", name, (unsigned long long)line);
	else
		fk_diag_error(d, "%s:%llu: out of memory", name, (unsigned long long)line);
}

struct worker {
	pthread_t thread;
	const char *p;
	size_t n;
	struct fk_stacks own; /* workers after the first aggregate here */
	struct fk_diag diag;
	struct load_ctx ctx;
	uint64_t lines;
	enum fk_input_result res;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	w->res = fk_input_buffer_lines(w->p, w->n, w->ctx.name, 0, on_line, &w->ctx, &w->diag,
				       &w->lines);
	if (w->ctx.npending && !flush(&w->ctx) && w->res == FK_INPUT_OK)
		w->res = FK_INPUT_STOPPED;
	return NULL;
}

static unsigned worker_count(size_t bytes)
{
	const char *env = getenv("FLAMEKIT_THREADS");
	long n = env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);
	if (bytes < PARALLEL_MIN_BYTES || n < 1)
		n = 1;
	return n > MAX_WORKERS ? MAX_WORKERS : (unsigned)n;
}

/* Merges worker tables into the first one, then reports in input order. */
/* Running totals for finding the line where they pass 64 bits. */
struct totals_ctx {
	struct fk_num total, total_before;
	uint64_t overflow_line;
};

static bool add_to_totals(void *arg, const char *line, size_t len, uint64_t lineno)
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

/* The totals passed 64 bits only when the workers' shares were combined, so
 * no worker knows the line: sum the file again, from the totals the table
 * had before it, to name the first line that does it. (A stack's sums never
 * exceed the totals, so the totals alone decide.) */
static void report_overflow_line(const struct fk_input_map *m, const struct fk_stacks *start,
				 struct fk_diag *d, const char *name)
{
	struct totals_ctx c = { .total = start->total, .total_before = start->total_before };
	struct fk_diag quiet;
	fk_diag_defer(&quiet, d);
	quiet.quiet = true;
	uint64_t lines;
	fk_input_buffer_lines(m->data, m->len, name, 0, add_to_totals, &c, &quiet, &lines);
	if (c.overflow_line)
		report_failure(d, name, FK_STACKS_OVERFLOW, c.overflow_line);
	else
		fk_diag_error(d, "%s: sum of values passes 64 bits", name);
}

static enum fk_input_result join_workers(struct worker *w, unsigned n, struct fk_stacks *into,
					 const struct fk_input_map *m, const struct fk_stacks *start,
					 struct fk_diag *d, const char *name)
{
	enum fk_input_result res = FK_INPUT_OK;
	uint64_t offset = 0;
	for (unsigned i = 0; i < n; i++) {
		if (res == FK_INPUT_OK && !fk_diag_replay(d, &w[i].diag, name, offset))
			res = FK_INPUT_STOPPED;
		if (res == FK_INPUT_OK && w[i].res == FK_INPUT_STOPPED && w[i].ctx.fail == FK_STACKS_OK)
			res = FK_INPUT_STOPPED; /* strict stop with nothing printed (quiet) */
		if (res == FK_INPUT_OK && w[i].ctx.fail != FK_STACKS_OK) {
			/* A later share started from zero: the sums before it may
			 * have passed 64 bits at an earlier line. */
			if (w[i].ctx.fail == FK_STACKS_OVERFLOW && i > 0)
				report_overflow_line(m, start, d, name);
			else
				report_failure(d, name, w[i].ctx.fail, w[i].ctx.fail_line + offset);
			res = FK_INPUT_ERROR;
		}
		if (res == FK_INPUT_OK && i > 0) {
			enum fk_stacks_status st = fk_stacks_merge(into, &w[i].own);
			if (st == FK_STACKS_OVERFLOW)
				report_overflow_line(m, start, d, name);
			else if (st != FK_STACKS_OK)
				fk_diag_error(d, "%s: out of memory", name);
			if (st != FK_STACKS_OK)
				res = FK_INPUT_ERROR;
		}
		offset += w[i].lines;
		if (i > 0)
			fk_stacks_free(&w[i].own);
	}
	return res;
}

static enum fk_input_result load_parallel(const struct fk_input_map *m, unsigned n,
					  struct fk_stacks *into, struct fk_diag *d,
					  const char *name)
{
	struct worker w[MAX_WORKERS];
	memset(w, 0, sizeof w);
	/* The totals before this file, should an overflow need finding again. */
	struct fk_stacks before = { .total = into->total, .total_before = into->total_before };
	size_t start = 0;
	unsigned started = 0;
	for (unsigned i = 0; i < n; i++) {
		size_t end = i + 1 == n ? m->len : m->len / n * (i + 1);
		if (end < start)
			end = start;
		const char *nl = end < m->len ? memchr(m->data + end, '\n', m->len - end) : NULL;
		end = nl ? (size_t)(nl - m->data) + 1 : m->len;
		w[i].p = m->data + start;
		w[i].n = end - start;
		fk_diag_defer(&w[i].diag, d);
		w[i].ctx = (struct load_ctx){ .stacks = i == 0 ? into : &w[i].own, .d = &w[i].diag,
					      .name = name, .batched = true };
		start = end;
	}
	/* One share is done on this thread; the others get threads. */
	for (started = 1; started < n; started++)
		if (pthread_create(&w[started].thread, NULL, work, &w[started]) != 0)
			break;
	work(&w[0]);
	for (unsigned i = started; i < n; i++)
		work(&w[i]); /* could not start a thread: do its share here */
	for (unsigned i = 1; i < started; i++)
		pthread_join(w[i].thread, NULL);
	return join_workers(w, n, into, m, &before, d, name);
}

enum fk_input_result fk_load_stacktext(const char *path, struct fk_stacks *into,
				       struct fk_seq *seq, struct fk_diag *d)
{
	const char *name = fk_input_display_name(path);
	struct fk_input_map m;
	/* Mapped files are read in place (by several threads when large);
	 * flame charts need one sequence in input order, so they stream. */
	if (!seq && fk_input_map_open(path, &m)) {
		enum fk_input_result r = load_parallel(&m, worker_count(m.len), into, d, name);
		fk_input_map_close(&m);
		return r;
	}
	struct load_ctx c = { .stacks = into, .seq = seq, .d = d, .name = name };
	enum fk_input_result r = fk_input_lines(path, name, on_line, &c, d);
	if (c.fail != FK_STACKS_OK) {
		report_failure(d, name, c.fail, c.fail_line);
		return FK_INPUT_ERROR;
	}
	return r;
}

void fk_seq_free(struct fk_seq *s)
{
	free(s->items);
	*s = (struct fk_seq){ 0 };
}
