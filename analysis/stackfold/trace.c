/* trace.c - stackfold's reading of traces (see trace.h). */
#include "analysis/stackfold/trace.h"

#include <stdio.h>

#include "analysis/trace/fold.h"

enum fk_input_result fk_stackfold_load_trace(struct fk_input *in, const struct fk_stackfold_read *o,
					     struct fk_stacks *into, struct fk_stacks *gpu,
					     struct fk_stackfold_found *found, struct fk_diag *d)
{
	struct fk_trace t;
	if (!fk_trace_load(in, &t, d)) {
		fk_trace_free(&t);
		return FK_INPUT_ERROR;
	}
	struct fk_trace_fold_opts fo = {
		.gpu = o->capture.metric == FK_METRIC_SELF_CUDA,
		.no_kernel_frames = o->capture.no_kernel_frames,
		.threads = o->capture.threads,
		.every_event = gpu != NULL, /* a table: every event is a call */
		.steps = o->capture.nvtx,
		.join_backward = o->join_backward,
	};
	if (gpu) { /* a table: CPU (and CUDA) time columns, calls per event */
		found->capture = true;
		found->per_event = true;
	}
	bool ok = true;
	if (fo.gpu && t.ngpu == 0 && o->metric_given) {
		fk_diag_error(d, "%s: --metric self_cuda_time_total: this trace has no GPU kernels, "
			      "copies or sets", in->name);
		ok = false;
	}
	ok = ok && fk_trace_fold(&t, &fo, into, in->name, d);
	if (ok && gpu && t.ngpu) {
		fo.gpu = true;
		ok = fk_trace_fold(&t, &fo, gpu, in->name, d);
	}
	if (t.info.has_rank)
		snprintf(found->tag, sizeof found->tag, "rank %lld", (long long)t.info.rank);
	if (ok && t.clipped)
		fk_diag_note(d, "%s: %llu events ended after the event around them: cut at its end",
			     in->name, (unsigned long long)t.clipped);
	fk_trace_free(&t);
	return ok ? FK_INPUT_OK : FK_INPUT_ERROR;
}
