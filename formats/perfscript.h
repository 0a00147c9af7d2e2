/* perfscript.h - the reader of `perf script` text, splitting it the way
 * FlameGraph's stackcollapse-perf.pl does: the same event headers and frame
 * lines recognized (its regular expressions, reimplemented), the same
 * process name root frame, [unknown] handling, name tidying, _[k]/_[j]/_[i]
 * annotations, event filtering and period weights. Each sample comes out
 * as one folded stack and its period; what adds them up is the caller's.
 * Spec: formats/PERFSCRIPT.md.
 *
 * Owns: nothing beyond a call, but for the script's three patterns,
 * compiled on the first call and kept for the process (thread-safe).
 */
#ifndef FK_PERFSCRIPT_H
#define FK_PERFSCRIPT_H

#include "formats/diag.h"
#include "formats/input.h"

struct fk_perf_opts {
	bool pid, tid;         /* --pid, --tid: "comm-pid", "comm-pid/tid" */
	bool kernel, jit;      /* --kernel, --jit (--all: both) annotations */
	bool addrs;            /* --addrs: "[mod <pc>]" for unknown symbols */
	bool srcline;          /* --srcline: a source line follows each frame */
	bool inlined;          /* --inline: frames become addr2line's inline chains */
	bool context;          /* --context: ... with file:line (--inline only) */
	const char *event_filter; /* --event-filter; NULL: the first event seen */
};

/* Where the samples go. */
struct fk_perf_emit {
	/* One sample: "comm;outer;...;leaf" and its period. false: stop
	 * (out of memory, or a sum past 128 bits). */
	bool (*sample)(void *ctx, const char *stack, size_t len, uint64_t period);
	/* --inline, or NULL: what replaces the frame line "PC RAWFUNC (MOD)",
	 * frames joined with ';', outermost first; NULL keeps the line's own
	 * name. *failed is set when memory ran out. */
	const char *(*inline_frames)(void *ctx, const char *pc, size_t pclen, const char *rawfunc,
				     size_t rflen, const char *mod, size_t modlen, bool *failed);
	void *ctx;
};

/* Reads the perf script text of an open input. Unrecognized lines are
 * reported through d (like the script's warnings) and skipped. */
enum fk_input_result fk_perf_read(struct fk_input *in, const struct fk_perf_opts *o,
				  const struct fk_perf_emit *e, struct fk_diag *d);

#endif
