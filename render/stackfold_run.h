/* stackfold_run.h - the stackfold command as one library call: every input
 * read by the reader of its kind (analysis/stackfold/load.h), transformed
 * (tags, address stripping, filters, scaling), then written as folded text
 * or as torch's top table. The command's main() only parses arguments into
 * struct fk_stackfold_opts. It lives in render/ because its outputs do.
 *
 * Owns: nothing; the options point at caller-owned strings.
 */
#ifndef FK_STACKFOLD_RUN_H
#define FK_STACKFOLD_RUN_H

#include "analysis/stackfold/load.h"
#include "analysis/table/view.h"

#define FK_STACKFOLD_MAX_PATTERNS 64

/* What folded stacks are written as (--format). */
enum fk_stackfold_format {
	FK_STACKFOLD_FOLDED,      /* folded text */
	FK_STACKFOLD_SPEEDSCOPE,  /* speedscope's JSON (render/speedscope.h) */
	FK_STACKFOLD_PPROF,       /* gzipped pprof (render/pprof_out.h) */
};

struct fk_stackfold_opts {
	char *const *inputs;      /* paths, "-": stdin; none: stdin */
	size_t ninputs;
	const char *output;       /* NULL or "-": stdout */
	struct fk_stackfold_read read; /* kinds, captures, perf script */
	/* folded text, or a profile for a viewer: without --metric, a
	 * capture's profile has every metric it has records of */
	enum fk_stackfold_format format;
	enum fk_stacks_order order;
	struct fk_num min;        /* omit stacks below this (scaled) value */
	/* transforms: repeated patterns match as alternatives (PCRE2) */
	const char *include[FK_STACKFOLD_MAX_PATTERNS], *exclude[FK_STACKFOLD_MAX_PATTERNS];
	size_t ninclude, nexclude;
	bool tag_files, strip_addresses, scaled;
	bool strip_hex;           /* every 0x[0-9a-fA-F]+ -> 0x... (difffolded.pl -s) */
	/* --diff: exactly two inputs, "stack BEFORE AFTER" (difffolded.pl) */
	bool diff, normalize;     /* normalize: BEFORE scaled to AFTER's total (-n) */
	struct fk_num scale;
	/* --table instead of folded text */
	bool table;
	struct fk_tableview_opts tableview;
};

/* The defaults of the command: stdin, stdout, sorted by stack, CPU time
 * for captures, tables of 100 rows. */
void fk_stackfold_opts_defaults(struct fk_stackfold_opts *o);

/* Runs the command; messages go through d. Returns FK_EXIT_OK,
 * FK_EXIT_BAD_INPUT, or FK_EXIT_USAGE (a pattern that does not compile, a
 * table sorted by a column it lacks: the caller adds its --help hint). */
int fk_stackfold_run(const struct fk_stackfold_opts *o, struct fk_diag *d);

#endif
