/* fold.h - a trace's stacks for a metric: self CPU time per stack of
 * nested CPU events, or GPU time per launching stack (kernels, copies and
 * sets charged through the launch's correlation id), in us with ns
 * precision (values are ns / 10^3, exact), like torch's export_stacks.
 *
 * Owns: nothing beyond a call (the trace is nested on the way).
 */
#ifndef FK_TRACE_FOLD_H
#define FK_TRACE_FOLD_H

#include "analysis/core/stacks.h"
#include "analysis/trace/model.h"

/* The root of GPU ops whose launch the trace window cut off. */
#define FK_TRACE_NO_LAUNCH "[launch not in trace]"

struct fk_trace_fold_opts {
	bool gpu;               /* self_cuda_time_total instead of self CPU time */
	bool no_kernel_frames;  /* GPU time without the kernel leaf */
	bool threads;           /* a "name-tid" root frame per host thread */
	bool every_event;       /* CPU events with no self time too (a table's calls) */
	bool steps;             /* keep "ProfilerStep#N" apart; else "ProfilerStep*",
				   as torch's key_averages merges them */
	bool join_backward;     /* backward ops under their forward op's stack
				   (fwdbwd flows), not under the autograd engine */
};

/* Adds the stacks to into, one line per CPU event with self time (or per
 * GPU op), so a table counts calls. false when out of memory or a sum
 * passes 64 bits (reported through d, naming the input). */
bool fk_trace_fold(struct fk_trace *t, const struct fk_trace_fold_opts *o,
		   struct fk_stacks *into, const char *name, struct fk_diag *d);

/* The CPU event that launched each GPU op (gpu[i].launch), by correlation.
 * Returns how many have one; SIZE_MAX when out of memory. */
size_t fk_trace_link_launches(struct fk_trace *t);

#endif
