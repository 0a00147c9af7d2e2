/* perfscript.h - `perf script` text folded the way FlameGraph's
 * stackcollapse-perf.pl folds it: the same event headers and frame lines
 * recognized (its regular expressions, reimplemented), the same process
 * name root frame, [unknown] handling, name tidying, _[k]/_[j]/_[i]
 * annotations, event filtering and period weights; the result goes into a
 * stack table, which stackfold prints sorted by stack like the script.
 *
 * Owns: nothing beyond a call.
 */
#ifndef FK_PERFSCRIPT_H
#define FK_PERFSCRIPT_H

#include "formats/diag.h"
#include "formats/input.h"
#include "analysis/core/stacks.h"

struct fk_perf_opts {
	bool pid, tid;         /* --pid, --tid: "comm-pid", "comm-pid/tid" */
	bool kernel, jit;      /* --kernel, --jit (--all: both) annotations */
	bool addrs;            /* --addrs: "[mod <pc>]" for unknown symbols */
	bool srcline;          /* --srcline: a source line follows each frame */
	bool inlined;          /* --inline: frames become addr2line's inline chains */
	bool context;          /* --context: ... with file:line (--inline only) */
	const char *event_filter; /* --event-filter; NULL: the first event seen */
};

/* Folds a perf script file ("-": stdin) into into. Unrecognized lines are
 * reported through d (like the script's warnings) and skipped. */
enum fk_input_result fk_perf_load(const char *path, const struct fk_perf_opts *o,
				  struct fk_stacks *into, struct fk_diag *d);

/* true when the first lines of a regular file look like perf script
 * output: an event header, then a frame line (pipes: --input=perf). */
bool fk_perf_detect(const char *path);

#endif
