/* flamegraph_run.h - the flamegraph command's work, callable without a
 * command line: folded-stack files read, rewritten as flamegraph.pl does
 * (--reverse as lines are read, the chain palette's waker marks after
 * sorting), drawn, and written as one SVG.
 *
 * A stackcap capture is folded first, as `stackfold` folds it; what it
 * lost is reported, marked in the subtitle and written in the notes.
 *
 * Owns: nothing beyond a call; the strings and input list in struct
 * fk_flamegraph_opts point at caller memory. Reports through the caller's
 * fk_diag (its strict and quiet settings apply); never prints otherwise.
 */
#ifndef FK_FLAMEGRAPH_RUN_H
#define FK_FLAMEGRAPH_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/capture/model.h"
#include "formats/diag.h"
#include "render/flame.h"

struct fk_flamegraph_opts {
	struct fk_flame_opts flame; /* what is drawn and how (fk_flame_opts_defaults) */
	bool reverse;               /* --reverse: stacks merged from their leaves */
	const char *output;         /* NULL or "-": standard output */
	char *const *inputs;        /* paths, gzip or not; "-": standard input */
	size_t ninputs;             /* 0: standard input */
	/* stackcap captures are folded as stackfold folds them, for this
	 * metric (--metric: metric_given; stack text then is an error). */
	enum fk_cap_metric metric;  /* FK_METRIC_SELF_CPU */
	bool metric_given;
	struct fk_py_opts python;   /* --python-*: how a capture's Python frames read */
};

/* flamegraph.pl's defaults: fk_flame_opts_defaults(), standard input and
 * output, no reversing. */
void fk_flamegraph_opts_defaults(struct fk_flamegraph_opts *o);

/* Reads every input, draws and writes the SVG. Returns FK_EXIT_OK, or
 * FK_EXIT_BAD_INPUT, reported through d: an unreadable input, a bad line
 * under d->strict, nothing to draw (an error SVG is still written, as
 * flamegraph.pl does), out of memory, or a failed write (a file output is
 * then left as it was). */
int fk_flamegraph_run(const struct fk_flamegraph_opts *o, struct fk_diag *d);

#endif
