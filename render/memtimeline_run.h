/* memtimeline_run.h - the memtimeline command's work, callable without a
 * command line: the inputs built into one replayed timeline
 * (analysis/mem/timeline.h), then the outputs asked for written: the
 * timeline as torch writes it (coalesced JSON, raw rows, or the HTML page
 * with the plot), and the summary, peak stacks and leak stacks.
 *
 * Owns: nothing beyond a call; the strings and input list in struct
 * fk_memtimeline_opts point at caller memory. Reports through the caller's
 * fk_diag (its strict and quiet settings apply); never prints otherwise.
 */
#ifndef FK_MEMTIMELINE_RUN_H
#define FK_MEMTIMELINE_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "analysis/capture/pynames.h"
#include "analysis/mem/timeline.h"

enum fk_memtimeline_format {
	FK_MEMTIMELINE_AUTO, /* from the output's name, as torch does: *.html: HTML;
				*raw.json.gz: raw rows; else coalesced JSON */
	FK_MEMTIMELINE_JSON,
	FK_MEMTIMELINE_RAW,
	FK_MEMTIMELINE_HTML,
};

/* One of the reports beyond torch's timeline. */
struct fk_memtimeline_out {
	bool wanted;
	const char *path; /* NULL or "-": standard output */
};

struct fk_memtimeline_opts {
	char *const *inputs;  /* raw timelines or captures, gzip or not; "-": stdin */
	size_t ninputs;       /* at least one */
	int16_t device;       /* FK_MEM_DEVICE_ANY: the input's (see fk_mem_load) */
	bool timeline;        /* write the timeline (the command: -o, a format, or
				 no report asked) */
	const char *output;   /* the timeline's; NULL or "-": standard output.
				 A name ending in .gz compresses JSON and raw rows */
	enum fk_memtimeline_format format;
	struct fk_memtimeline_out summary; /* fk_mem_write_summary */
	struct fk_memtimeline_out peak;    /* folded stacks live at the peak */
	struct fk_memtimeline_out leaks;   /* folded stacks created and live at the end */
	struct fk_py_opts python;          /* captures' Python frame names */
};

/* Every input, every device kept, the timeline as JSON on standard output. */
void fk_memtimeline_opts_defaults(struct fk_memtimeline_opts *o);

/* Writes what o asks for of a built timeline, the timeline first; stops at
 * the first failure. FK_EXIT_OK, or FK_EXIT_BAD_INPUT (reported through d):
 * the plot could not be drawn, or an output could not be written (a file
 * output is then left as it was). */
int fk_memtimeline_write(const struct fk_memtimeline *m, const struct fk_memtimeline_opts *o,
			 struct fk_diag *d);

/* fk_memtimeline_build() of o's inputs, then fk_memtimeline_write().
 * FK_EXIT_OK, or FK_EXIT_BAD_INPUT, reported through d: unreadable or
 * malformed input, a warning under d->strict, a failed output (nothing is
 * written when the inputs fail). */
int fk_memtimeline_run(const struct fk_memtimeline_opts *o, struct fk_diag *d);

#endif
