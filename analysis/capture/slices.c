/* slices.c - a capture's threads as nested time slices (see slices.h). */
#include "analysis/capture/slices.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

/* What happens on a thread, in time order: samples by their end (their
 * time), the rest by their time; at one time, a sample before a pop
 * before a push before an API call. */
enum { ITEM_SAMPLE, ITEM_POP, ITEM_PUSH, ITEM_CALL };

struct item {
	int64_t key;   /* ns: the item's time */
	int64_t place; /* where it would start: a sample's true start; for the
			  others their time, or the start of the sample whose
			  time they fall in (before it, never late) */
	uint32_t tid, idx;
	uint8_t kind;
};

static int by_thread_key(const void *x, const void *y)
{
	const struct item *a = x, *b = y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* weight periods in ns, rounded: w * 10^9 / hz. */
static int64_t periods_ns(uint64_t w, uint32_t hz)
{
	return hz ? (int64_t)(((unsigned __int128)w * 1000000000u + hz / 2) / hz) : 0;
}

struct walk {
	const struct fk_capture *c;
	struct fk_cap_names *names;
	fk_cap_slices_fn fn;
	void *ctx;
	struct fk_cap_slice_stats *st;
	uint32_t tid;
	struct fk_cap_slice *batch;
	size_t n, cap;
	size_t *open;  /* batch indexes of the open frame and call slices */
	size_t nopen, open_cap;
	uint32_t *ranges; /* c->nvtx indexes of the open pushes */
	size_t nranges, ranges_cap;
	int64_t end;      /* where the last item ended */
	bool started;
	uint64_t weight;  /* the thread's sample weights so far */
	bool failed;      /* out of memory, or fn stopped */
	bool stopped;     /* fn stopped: it said why */
};

static struct fk_cap_slice *add(struct walk *w, struct fk_cap_slice s)
{
	if (!FK_GROW(w->batch, w->cap, w->n + 1, 1024)) {
		w->failed = true;
		return NULL;
	}
	w->batch[w->n] = s;
	return &w->batch[w->n++];
}

/* Hands over batch[from..]: a closed slice and what it holds back. */
static void release(struct walk *w, size_t from)
{
	if (from < w->n && !w->failed && !w->fn(w->ctx, w->tid, w->batch + from, w->n - from))
		w->failed = w->stopped = true;
	w->n = from;
}

/* Ends the open slices deeper than keep where the last item ended. A
 * closed slice goes out at once unless an open ancestor starts with it:
 * viewers put the slices of one start in file order, so it waits to follow
 * that ancestor. The batch holds no more than the stack's depth. */
static void close_to(struct walk *w, size_t keep)
{
	while (w->nopen > keep) {
		size_t i = w->open[--w->nopen];
		w->batch[i].end = w->end;
		if (w->nopen == 0 || w->batch[w->open[w->nopen - 1]].start < w->batch[i].start)
			release(w, i);
	}
}

/* Hands over what is complete (range marks), once nothing is open. */
static void flush(struct walk *w)
{
	if (!w->nopen)
		release(w, 0);
}

static void open_slice(struct walk *w, struct fk_cap_slice s)
{
	if (!add(w, s) || !FK_GROW(w->open, w->open_cap, w->nopen + 1, 64)) {
		w->failed = true;
		return;
	}
	w->open[w->nopen++] = w->n - 1;
}

/* A sample or API call laid out at [start, start + dur): its stack's
 * frames continue the open slices they match when it touches the last
 * item, and open new ones from the first frame that differs. */
static void stack_item(struct walk *w, int64_t key, int64_t dur, uint32_t node,
		       int64_t half_period, int api)
{
	int64_t start = key;
	if (w->started && key - w->end < (half_period > 0 ? half_period : 1))
		start = w->end; /* overlapping or jitter: laid end to end */
	if (!w->started || start != w->end) {
		close_to(w, 0);
		flush(w);
	}
	uint32_t len;
	const char *text = fk_cap_names_stack(w->names, node, &len);
	size_t depth = 0;
	for (uint32_t at = 0; len && at <= len && !w->failed; depth++) {
		const char *semi = memchr(text + at, ';', len - at);
		uint32_t flen = semi ? (uint32_t)(semi - (text + at)) : len - at;
		const char *frame = text + at;
		at += flen + 1;
		if (depth < w->nopen) {
			const struct fk_cap_slice *o = &w->batch[w->open[depth]];
			if (o->kind == FK_SLICE_FRAME && o->len == flen && memcmp(o->name, frame, flen) == 0)
				continue;
			close_to(w, depth);
		}
		open_slice(w, (struct fk_cap_slice){ .start = start, .name = frame, .len = flen,
						     .depth = (uint32_t)depth, .kind = FK_SLICE_FRAME });
		w->st->frames++;
	}
	close_to(w, depth);
	if (api >= 0) {
		open_slice(w, (struct fk_cap_slice){ .start = start, .name = "", .depth = (uint32_t)depth,
						     .ref = (uint32_t)api, .kind = FK_SLICE_CALL });
		w->st->calls++;
	}
	w->end = start + dur;
	w->started = true;
}

/* An NVTX push or pop: everything open ends, the mark comes next. */
static void range_mark(struct walk *w, int64_t t, uint32_t push, uint8_t kind)
{
	close_to(w, 0);
	if (!w->started || t > w->end)
		w->end = t;
	w->started = true;
	const char *name = w->c->nvtx[push].name ? w->c->nvtx[push].name : "";
	add(w, (struct fk_cap_slice){ .start = w->end, .end = w->end, .name = name,
				      .len = (uint32_t)strlen(name), .ref = push, .kind = kind });
	flush(w);
}

static void thread_begin(struct walk *w, uint32_t tid)
{
	w->tid = tid;
	w->nopen = w->nranges = 0;
	w->started = false;
	w->weight = 0;
}

static void thread_end(struct walk *w)
{
	close_to(w, 0);
	while (w->nranges && !w->failed) {
		w->st->unclosed_ranges++;
		range_mark(w, w->end, w->ranges[--w->nranges], FK_SLICE_RANGE_END);
	}
	flush(w);
}

static void walk_item(struct walk *w, const struct item *it)
{
	const struct fk_capture *c = w->c;
	uint32_t hz = c->hdr.sample_hz;
	int64_t half = hz ? 500000000 / hz : 0;
	if (it->kind == ITEM_SAMPLE) {
		const struct fk_cap_sample *s = &c->raw[it->idx];
		int64_t dur = periods_ns(w->weight + s->weight, hz) - periods_ns(w->weight, hz);
		w->weight += s->weight;
		stack_item(w, it->place, dur, s->node, half, -1);
	} else if (it->kind == ITEM_CALL) {
		stack_item(w, it->place, 1, c->apis[it->idx].node, half, (int)it->idx);
	} else if (it->kind == ITEM_PUSH) {
		if (!FK_GROW(w->ranges, w->ranges_cap, w->nranges + 1, 16)) {
			w->failed = true;
			return;
		}
		range_mark(w, it->place, it->idx, FK_SLICE_RANGE_BEGIN);
		w->ranges[w->nranges++] = it->idx;
		w->st->ranges++;
	} else if (w->nranges) {
		range_mark(w, it->place, w->ranges[--w->nranges], FK_SLICE_RANGE_END);
	} else {
		w->st->unmatched_pops++;
	}
}

bool fk_capture_slices(const struct fk_capture *c, struct fk_cap_names *names,
		       fk_cap_slices_fn fn, void *ctx, struct fk_cap_slice_stats *st,
		       struct fk_diag *d)
{
	*st = (struct fk_cap_slice_stats){ 0 };
	size_t nitems = c->nraw + c->napis + c->nnvtx;
	struct item *items = malloc((nitems ? nitems : 1) * sizeof *items);
	if (!items) {
		fk_diag_error(d, "out of memory");
		return false;
	}
	size_t n = 0;
	for (size_t i = 0; i < c->nraw; i++) {
		int64_t t = (int64_t)c->raw[i].t_ns;
		items[n++] = (struct item){ t, t - periods_ns(c->raw[i].weight, c->hdr.sample_hz),
					    c->raw[i].tid, (uint32_t)i, ITEM_SAMPLE };
	}
	for (size_t i = 0; i < c->napis; i++) {
		int64_t t = (int64_t)c->apis[i].t_ns;
		items[n++] = (struct item){ t, t, c->apis[i].tid, (uint32_t)i, ITEM_CALL };
	}
	for (size_t i = 0; i < c->nnvtx; i++) {
		uint8_t op = c->nvtx[i].op;
		int64_t t = (int64_t)c->nvtx[i].t_ns;
		if (op == FK_CAP_NVTX_PUSH || op == FK_CAP_NVTX_POP)
			items[n++] = (struct item){ t, t, c->nvtx[i].tid, (uint32_t)i,
						    op == FK_CAP_NVTX_PUSH ? ITEM_PUSH : ITEM_POP };
	}
	qsort(items, n, sizeof *items, by_thread_key);
	/* A call or range mark made during a sample's period goes before the
	 * sample: early by less than a period, so a launch never follows the
	 * work it launched. */
	for (size_t i = n; i-- > 0;) {
		if (items[i].kind == ITEM_SAMPLE)
			continue;
		const struct item *next = i + 1 < n && items[i + 1].tid == items[i].tid ? &items[i + 1] : NULL;
		if (next && next->place < items[i].place)
			items[i].place = next->place;
	}
	struct walk w = { .c = c, .names = names, .fn = fn, .ctx = ctx, .st = st };
	for (size_t i = 0; i < n && !w.failed; i++) {
		if (i == 0 || items[i].tid != w.tid) {
			if (i)
				thread_end(&w);
			thread_begin(&w, items[i].tid);
		}
		walk_item(&w, &items[i]);
	}
	if (n && !w.failed)
		thread_end(&w);
	bool ok = !w.failed && !fk_cap_names_failed(names);
	if (!ok && !w.stopped)
		fk_diag_error(d, "out of memory");
	free(items);
	free(w.batch);
	free(w.open);
	free(w.ranges);
	return ok;
}
