/* load.c - stackfold's inputs into stack tables (see load.h). */
#include "analysis/stackfold/load.h"

#include "analysis/core/stackload.h"
#include "analysis/stackfold/perf.h"
#include "analysis/stackfold/trace.h"
#include "analysis/sym/symbolize.h"

static enum fk_input_result load_capture(struct fk_input *in, const struct fk_stackfold_read *o,
					 struct fk_stacks *into, struct fk_stacks *gpu,
					 bool *capture, struct fk_diag *d)
{
	struct fk_capture c;
	if (!fk_capture_load_input(in, &c, o->capture.nvtx, d))
		return FK_INPUT_ERROR;
	const char *lacks = o->info ? NULL : fk_capture_lacks(&c, o->metric);
	if (lacks) {
		fk_diag_error(d, "%s: --metric %s: this capture has %s", in->name,
			      fk_cap_metric_name(o->metric), lacks);
		fk_capture_free(&c);
		return FK_INPUT_ERROR;
	}
	bool ok = true;
	*capture = true;
	if (o->info)
		fk_capture_info(o->info, in->name, &c);
	else
		ok = fk_capture_fold(&c, &o->capture, into, d);
	if (ok && !o->info && gpu && c.nops) {
		struct fk_cap_fold_opts g = o->capture;
		g.metric = FK_METRIC_SELF_CUDA;
		ok = fk_capture_fold(&c, &g, gpu, d);
	}
	/* Counted as lines so an empty capture says "no stacks found". */
	into->lines += c.samples + c.nallocs + (gpu ? c.nops : 0);
	fk_capture_free(&c);
	return ok ? FK_INPUT_OK : FK_INPUT_ERROR;
}

static enum fk_input_result load_input(struct fk_input *in, const struct fk_stackfold_read *o,
				       struct fk_stacks *into, struct fk_stacks *gpu,
				       bool *capture, struct fk_diag *d)
{
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
		return load_capture(in, o, into, gpu, capture, d);
	case FK_KIND_TORCH_MEMORY:
		fk_diag_error(d, "%s: this is %s: read it with memtimeline", in->name,
			      fk_input_kind_description(in->kind));
		return FK_INPUT_ERROR;
	case FK_KIND_CHROME_TRACE:
		return fk_stackfold_load_trace(in, o, into, gpu, capture, d);
	case FK_KIND_JSON:
		break;
	}
	fk_diag_error(d, "%s: this is %s, which stackfold does not read (yet); "
		      "--input=stacks reads it as stack text", in->name,
		      fk_input_kind_description(in->kind));
	return FK_INPUT_ERROR;
}

enum fk_input_result fk_stackfold_load(const char *path, const struct fk_stackfold_read *o,
				       struct fk_stacks *into, struct fk_stacks *gpu,
				       bool *capture, struct fk_diag *d)
{
	struct fk_input in;
	if (!fk_input_open(&in, path, d))
		return FK_INPUT_ERROR;
	if (o->kind_given)
		in.kind = o->kind;
	enum fk_input_result r = load_input(&in, o, into, gpu, capture, d);
	fk_input_close(&in);
	return r;
}
