/* export_run.h - `stackcap export` as one library call: captures loaded
 * with their samples, written as a Chrome / Perfetto trace
 * (render/chromeexport.h) to a file (gzip when its name ends in .gz) or
 * standard output. The command's main() only parses arguments into struct
 * fk_export_opts.
 *
 * Owns: nothing; the options point at caller-owned strings.
 */
#ifndef FK_EXPORT_RUN_H
#define FK_EXPORT_RUN_H

#include "analysis/capture/model.h"

struct fk_export_opts {
	char *const *inputs;        /* capture paths ("-": stdin, once) */
	size_t ninputs;
	const char *chrome;         /* the trace: a path, "-" for stdout */
	struct fk_cap_fold_opts names; /* how frames are named (sym_flags, python) */
};

void fk_export_opts_defaults(struct fk_export_opts *o);

/* Runs the command; messages go through d (a capture's losses one line
 * each, fatal when d is strict). Returns FK_EXIT_OK or FK_EXIT_BAD_INPUT
 * (a capture that cannot be read, an output that cannot be written: then
 * no trace is left behind). */
int fk_export_run(const struct fk_export_opts *o, struct fk_diag *d);

#endif
