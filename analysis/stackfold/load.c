/* load.c - stackfold's inputs into stack tables (see load.h). */
#include "analysis/stackfold/load.h"

#include "analysis/core/stackload.h"
#include "analysis/stackfold/perf.h"
#include "analysis/stackfold/trace.h"
#include "analysis/sym/symbolize.h"
#include "formats/dtrace.h"
#include "formats/grow.h"

/* DTrace stacks and their counts, added up. */
struct dtrace_sum {
	struct fk_stacks *into;
	const char *name;
	struct fk_diag *d;
};

static bool add_dtrace_stack(void *ctx, const char *stack, size_t len, uint64_t count)
{
	struct dtrace_sum *t = ctx;
	struct fk_num zero = { 0, 0 }, v = { count, 0 };
	enum fk_stacks_status st = fk_stacks_add(t->into, stack, len, zero, v, 1, NULL);
	if (st != FK_STACKS_OK)
		fk_diag_error(t->d, "%s: %s", t->name,
			      st == FK_STACKS_OVERFLOW ? "a stack's sum passes 128 bits" : "out of memory");
	return st == FK_STACKS_OK;
}

static enum fk_input_result load_dtrace(struct fk_input *in, struct fk_stacks *into,
					struct fk_diag *d)
{
	struct dtrace_sum t = { into, in->name, d };
	return fk_dtrace_read(in, add_dtrace_stack, &t, d);
}

/* Each metric the capture has records of, into its own table: CPU time
 * and samples where it sampled, GPU time, allocations. */
static bool fold_every_metric(const struct fk_capture *c, const struct fk_stackfold_read *o,
			      struct fk_diag *d, struct fk_diag *again)
{
	bool ok = true, first = true;
	for (int m = 0; ok && m < FK_STACKFOLD_NMETRICS; m++) {
		bool cpu = m == FK_METRIC_SELF_CPU || m == FK_METRIC_SAMPLES;
		if (cpu ? c->samples == 0 : fk_capture_lacks(c, (enum fk_cap_metric)m) != NULL)
			continue;
		struct fk_cap_fold_opts one = o->capture;
		one.metric = (enum fk_cap_metric)m;
		ok = fk_capture_fold(c, &one, &o->per_metric[m], first ? d : again);
		first = false;
	}
	return ok;
}

void fk_stackfold_timeline_free(struct fk_stackfold_timeline *tl)
{
	fk_strtab_free(&tl->stacks);
	fk_strtab_free(&tl->threads);
	free(tl->samples);
	*tl = (struct fk_stackfold_timeline){ 0 };
}

/* One sample onto the timeline: its stack and thread interned. */
static bool add_to_timeline(void *ctx, const struct fk_cap_sample *s, const char *thread,
			    const char *stack, size_t len)
{
	struct fk_stackfold_timeline *tl = ctx;
	char name[256];
	int n = snprintf(name, sizeof name, "%s-%u", thread, s->tid);
	uint32_t th = fk_strtab_intern(&tl->threads, name,
				       n < 0 ? 0 : (size_t)n < sizeof name ? (size_t)n : sizeof name - 1,
				       NULL);
	uint32_t id = fk_strtab_intern(&tl->stacks, stack, len, NULL);
	if (th == FK_STRTAB_NONE || id == FK_STRTAB_NONE || !FK_GROW(tl->samples, tl->cap, tl->n + 1, 1024))
		return false;
	tl->samples[tl->n++] = (struct fk_tl_sample){ s->t_ns, th, id, s->weight };
	return true;
}

static enum fk_input_result load_capture(struct fk_input *in, const struct fk_stackfold_read *o,
					 struct fk_stacks *into, struct fk_stacks *gpu,
					 struct fk_stackfold_found *found, struct fk_diag *d)
{
	struct fk_capture c;
	if (!fk_capture_load_input(in, &c, o->capture.nvtx || o->timeline, d))
		return FK_INPUT_ERROR;
	const char *lacks = o->info ? NULL : fk_capture_lacks(&c, o->metric);
	if (lacks) {
		fk_diag_error(d, "%s: --metric %s: this capture has %s", in->name,
			      fk_cap_metric_name(o->metric), lacks);
		fk_capture_free(&c);
		return FK_INPUT_ERROR;
	}
	bool ok = true;
	found->capture = true;
	fk_capture_loss(&c, found->loss, sizeof found->loss);
	found->sample_hz = c.hdr.sample_hz;
	if (c.last_t_ns > c.first_t_ns) {
		found->start_ns = (int64_t)(c.first_t_ns + c.real_minus_mono);
		found->duration_ns = (int64_t)(c.last_t_ns - c.first_t_ns);
	}
	/* Folding the same capture again warns of the same frames: once is
	 * enough (errors are still said). */
	struct fk_diag again = *d;
	again.quiet = true;
	again.strict = false;
	if (o->info)
		fk_capture_info(o->info, in->name, &c);
	else if (o->per_metric)
		ok = fold_every_metric(&c, o, d, &again);
	else
		ok = fk_capture_fold(&c, &o->capture, into, d);
	/* Time order for the samples of one rate, up to a bound; else sums. */
	struct fk_stackfold_timeline *tl = o->timeline;
	bool fits = tl && c.nraw <= FK_STACKFOLD_TIMELINE_MAX - tl->n;
	bool timeline = fits && (!tl->sample_hz || tl->sample_hz == c.hdr.sample_hz);
	if (tl && !timeline && !o->info && c.samples)
		fk_diag_note(d, "%s: its threads are written as sums, not in time order (%s)",
			     in->name, !fits ? "more than a million samples in all"
					     : "another sampling rate than the first capture's");
	if (ok && timeline && !o->info && c.samples) {
		tl->sample_hz = c.hdr.sample_hz;
		ok = fk_capture_each_sample(&c, &o->capture, add_to_timeline, tl, &again);
		if (!ok)
			fk_diag_error(d, "out of memory");
	} else if (ok && o->per_thread && !o->info && c.samples) {
		struct fk_cap_fold_opts t = o->capture;
		t.metric = FK_METRIC_SELF_CPU;
		t.threads = true;
		ok = fk_capture_fold(&c, &t, o->per_thread, &again);
	}
	if (ok && !o->info && gpu && c.nops) {
		struct fk_cap_fold_opts g = o->capture;
		g.metric = FK_METRIC_SELF_CUDA;
		ok = fk_capture_fold(&c, &g, gpu, d);
	}
	/* Counted as lines so an empty capture says "no stacks found". */
	into->lines += c.samples + c.nallocs + (gpu || o->per_metric ? c.nops : 0);
	fk_capture_free(&c);
	return ok ? FK_INPUT_OK : FK_INPUT_ERROR;
}

enum fk_input_result fk_stackfold_load_input(struct fk_input *in, const struct fk_stackfold_read *o,
					     struct fk_stacks *into, struct fk_stacks *gpu,
					     struct fk_stackfold_found *found, struct fk_diag *d)
{
	*found = (struct fk_stackfold_found){ .kind = in->kind };
	if (o->info && in->kind != FK_KIND_CAPTURE) {
		fk_diag_error(d, "%s: --info reads stackcap captures, not %s", in->name,
			      fk_input_kind_description(in->kind));
		return FK_INPUT_ERROR;
	}
	bool capture_metric = o->metric != FK_METRIC_SELF_CPU && o->metric != FK_METRIC_SELF_CUDA;
	if (o->metric_given && capture_metric && in->kind != FK_KIND_CAPTURE) {
		fk_diag_error(d, "%s: --metric %s reads stackcap captures; the values of %s are "
			      "what its producer wrote", in->name, fk_cap_metric_name(o->metric),
			      fk_input_kind_description(in->kind));
		return FK_INPUT_ERROR;
	}
	switch (in->kind) {
	case FK_KIND_STACKS:
		return fk_load_stacktext_input(in, into, NULL, d);
	case FK_KIND_PERF:
		if (o->capture.sym_flags & FK_SYM_LINES) {
			fk_diag_error(d, "%s: --lines reads captures; for perf script input use "
				      "--inline --context, or --srcline", in->name);
			return FK_INPUT_ERROR;
		}
		return fk_perf_load_input(in, &o->perf, into, d);
	case FK_KIND_CAPTURE:
		return load_capture(in, o, into, gpu, found, d);
	case FK_KIND_DTRACE:
		return load_dtrace(in, into, d);
	case FK_KIND_TORCH_MEMORY:
		fk_diag_error(d, "%s: this is %s: read it with memtimeline", in->name,
			      fk_input_kind_description(in->kind));
		return FK_INPUT_ERROR;
	case FK_KIND_CHROME_TRACE:
		return fk_stackfold_load_trace(in, o, into, gpu, found, d);
	case FK_KIND_JSON:
		break;
	}
	fk_diag_error(d, "%s: this is %s, which stackfold does not read; "
		      "--input=stacks reads it as stack text", in->name,
		      fk_input_kind_description(in->kind));
	return FK_INPUT_ERROR;
}

enum fk_input_result fk_stackfold_load(const char *path, const struct fk_stackfold_read *o,
				       struct fk_stacks *into, struct fk_stacks *gpu,
				       struct fk_stackfold_found *found, struct fk_diag *d)
{
	*found = (struct fk_stackfold_found){ 0 };
	struct fk_input in;
	if (!fk_input_open(&in, path, d))
		return FK_INPUT_ERROR;
	if (o->kind_given)
		in.kind = o->kind;
	enum fk_input_result r = fk_stackfold_load_input(&in, o, into, gpu, found, d);
	fk_input_close(&in);
	return r;
}
