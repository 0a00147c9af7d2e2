/* perf.c - perf script samples into a stacks table (see perf.h). */
#include "analysis/stackfold/perf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sym/perfinline.h"

/* Large mapped files are read by several threads (a core folds ~300 MB/s
 * of perf script). Smaller ones are not worth a thread. */
#define PARALLEL_MIN_BYTES ((size_t)32 << 20)
#define DEFAULT_MAX_PARTS 8

struct perf_sum {
	struct fk_stacks *into;
	struct fk_perf_inline *inl; /* --inline */
};

static bool add_sample(void *ctx, const char *stack, size_t len, uint64_t period)
{
	struct perf_sum *p = ctx;
	struct fk_num zero = { 0, 0 }, v = { period, 0 };
	return fk_stacks_add(p->into, stack, len, zero, v, 1, NULL) == FK_STACKS_OK;
}

static const char *inline_frames(void *ctx, const char *pc, size_t pclen, const char *rawfunc,
				 size_t rflen, const char *mod, size_t modlen, bool *failed)
{
	struct perf_sum *p = ctx;
	return fk_perf_inline_frames(p->inl, pc, pclen, rawfunc, rflen, mod, modlen, failed);
}

/* ---- a mapped file in parts, one thread each ---- */

struct part_reader {
	struct fk_perf_part part;
	struct fk_stacks own;   /* parts after the first: their own table */
	struct perf_sum sum;
	struct fk_perf_emit emit;
	struct fk_diag diag;    /* deferred: printed in order after the join */
	const char *name;
	const struct fk_perf_opts *o;
	enum fk_input_result res;
	pthread_t thread;
};

static void *read_part(void *arg)
{
	struct part_reader *r = arg;
	r->res = fk_perf_read_part(r->name, r->o, &r->emit, &r->part, &r->diag);
	return NULL;
}

/* A part's bad lines, with the filter note among them where it was seen
 * (the first part's to see one; the script says it once). */
static bool replay_part(struct fk_diag *d, struct part_reader *r, uint64_t offset, bool *noted)
{
	if (!r->part.note_event || *noted)
		return fk_diag_replay(d, &r->diag, r->name, offset);
	struct fk_diag before = r->diag, after = r->diag;
	unsigned k = 0;
	while (k < r->diag.nheld && r->diag.held[k].line < r->part.note_line)
		k++;
	before.nheld = k;
	before.bad_lines = k;
	after.nheld = r->diag.nheld - k;
	memmove(after.held, after.held + k, after.nheld * sizeof after.held[0]);
	after.bad_lines = r->diag.bad_lines - k;
	if (!fk_diag_replay(d, &before, r->name, offset))
		return false;
	fk_diag_note_as_is(d, "Filtering for events of type: %s", r->part.note_event);
	*noted = true;
	return fk_diag_replay(d, &after, r->name, offset);
}

static enum fk_input_result read_parts(struct fk_input *in, const struct fk_perf_opts *o,
				       const size_t *starts, size_t n, const char *filter,
				       struct fk_stacks *into, struct fk_diag *d)
{
	struct part_reader *r = calloc(n, sizeof *r);
	if (!r) {
		fk_diag_error(d, "out of memory");
		return FK_INPUT_ERROR;
	}
	for (size_t i = 0; i < n; i++) {
		r[i].part = (struct fk_perf_part){ .in = in, .off = starts[i],
						   .n = starts[i + 1] - starts[i], .filter = filter };
		r[i].sum.into = i == 0 ? into : &r[i].own; /* the first keeps the caller's ids */
		r[i].emit = (struct fk_perf_emit){ .sample = add_sample, .ctx = &r[i].sum };
		fk_diag_defer(&r[i].diag, d);
		r[i].name = in->name;
		r[i].o = o;
	}
	size_t started = 1;
	while (started < n && pthread_create(&r[started].thread, NULL, read_part, &r[started]) == 0)
		started++;
	read_part(&r[0]);
	for (size_t i = 1; i < started; i++)
		pthread_join(r[i].thread, NULL);
	for (size_t i = started; i < n; i++) /* no thread to be had: read here */
		read_part(&r[i]);

	enum fk_input_result res = FK_INPUT_OK;
	bool failed = false, noted = false;
	uint64_t offset = 0;
	for (size_t i = 0; i < n; i++) {
		failed |= r[i].part.failed || r[i].res == FK_INPUT_ERROR;
		if (res == FK_INPUT_OK && !replay_part(d, &r[i], offset, &noted))
			res = FK_INPUT_STOPPED; /* strict: a bad line */
		if (r[i].res == FK_INPUT_STOPPED && !r[i].part.failed)
			res = FK_INPUT_STOPPED; /* strict with nothing printed (quiet) */
		offset += r[i].part.lines;
	}
	/* Added up in part order: each stack keeps the id its first appearance
	 * gives it, as in one pass. */
	for (size_t i = 1; i < n; i++) {
		if (!failed && res == FK_INPUT_OK)
			failed = fk_stacks_merge(into, &r[i].own) != FK_STACKS_OK;
		fk_stacks_free(&r[i].own);
		free(r[i].part.note_event);
	}
	free(r[0].part.note_event);
	free(r);
	if (failed) {
		fk_diag_error(d, "%s: out of memory, or a sum past 128 bits", in->name);
		return FK_INPUT_ERROR;
	}
	return res;
}

/* Parts when the input is mapped and large, and no option carries state
 * from one sample to the next. */
static size_t plan_parts(const struct fk_input *in, const struct fk_perf_opts *o, size_t *starts)
{
	unsigned want = in->map && !o->inlined && !o->srcline
				? fk_input_threads(in->map_len, PARALLEL_MIN_BYTES, DEFAULT_MAX_PARTS)
				: 1;
	return want > 1 ? fk_perf_split(in->map, in->map_len, want, starts) : 1;
}

enum fk_input_result fk_perf_load_input(struct fk_input *in, const struct fk_perf_opts *o,
					struct fk_stacks *into, struct fk_diag *d)
{
	size_t starts[FK_INPUT_MAX_THREADS + 1];
	size_t parts = plan_parts(in, o, starts);
	if (parts > 1) {
		char *first = NULL;
		if (!o->event_filter && !fk_perf_first_event(in->map, in->map_len, &first)) {
			fk_diag_error(d, "out of memory");
			return FK_INPUT_ERROR;
		}
		enum fk_input_result r = read_parts(in, o, starts, parts, first, into, d);
		free(first);
		return r;
	}
	struct perf_sum p = { .into = into };
	if (o->inlined && !(p.inl = fk_perf_inline_new(o->context, d))) {
		fk_diag_error(d, "out of memory");
		return FK_INPUT_ERROR;
	}
	struct fk_perf_emit e = {
		.sample = add_sample, .inline_frames = p.inl ? inline_frames : NULL, .ctx = &p,
	};
	enum fk_input_result r = fk_perf_read(in, o, &e, d);
	fk_perf_inline_free(p.inl);
	return r;
}

enum fk_input_result fk_perf_load(const char *path, const struct fk_perf_opts *o,
				  struct fk_stacks *into, struct fk_diag *d)
{
	struct fk_input in;
	if (!fk_input_open(&in, path, d))
		return FK_INPUT_ERROR;
	enum fk_input_result r = fk_perf_load_input(&in, o, into, d);
	fk_input_close(&in);
	return r;
}
