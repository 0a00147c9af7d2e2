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

/* ---- a mapped file read in parts (by several threads) ----
 * A blank line ends every sample and leaves nothing behind but the event
 * filter, so text split after blank lines reads as the whole file does,
 * given the file's first event. Not with --srcline or --inline (their
 * state crosses samples, or is shared). */

/* Start offsets of up to parts pieces of p[0..n), each after the first
 * starting after a blank line ("\n\n"): starts[0..count), then
 * starts[count] = n. Returns count (1 when no blank line is found). */
size_t fk_perf_split(const char *p, size_t n, unsigned parts, size_t *starts);

/* The event of the file's first sample header that has one (what the
 * script filters for by default), malloc'd into *event; NULL when there is
 * none. false when out of memory. */
bool fk_perf_first_event(const char *p, size_t n, char **event);

struct fk_perf_part {
	const struct fk_input *in; /* the part's bytes: [off, off + n) of this mapped input, */
	size_t off, n;             /* read with pread() (fk_input_pread_lines) */
	const char *filter;  /* fk_perf_first_event's answer (when no --event-filter) */
	/* out */
	uint64_t lines;      /* lines read: the next part's line numbers follow */
	uint64_t note_line;  /* "Filtering for events of type: EVENT": its line in the
				part (0: none), for the caller to print in order */
	char *note_event;    /* malloc'd; the caller frees it */
	bool failed;         /* out of memory, or a sum past 128 bits */
};

/* Reads one part as fk_perf_read reads a file, line numbers from 1; d is
 * usually a deferred diag (fk_diag_defer), replayed in order by the caller. */
enum fk_input_result fk_perf_read_part(const char *name, const struct fk_perf_opts *o,
				       const struct fk_perf_emit *e, struct fk_perf_part *part,
				       struct fk_diag *d);

#endif
