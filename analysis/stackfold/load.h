/* load.h - one input of stackfold, whatever its kind, into stack tables:
 * the detect-and-load step. The input is opened once (formats/input.h), its
 * kind sniffed from the first bytes or given (--input), and the reader of
 * that kind fills the table: stack text (torch export_stacks, folded,
 * differential), perf script, stackcap captures. Kinds stackfold cannot
 * fold are refused with a message naming the command that reads them.
 *
 * Owns: nothing beyond a call.
 */
#ifndef FK_STACKFOLD_LOAD_H
#define FK_STACKFOLD_LOAD_H

#include <stdio.h>

#include "analysis/capture/model.h"
#include "analysis/core/stacks.h"
#include "formats/perfscript.h"

struct fk_stackfold_read {
	bool kind_given;             /* --input: every input is this kind */
	enum fk_input_kind kind;
	struct fk_cap_fold_opts capture;
	/* --metric as asked (capture.metric may differ: a table folds CPU
	 * time first): an input without its records is an error, not an
	 * empty result. */
	bool metric_given;
	enum fk_cap_metric metric;
	struct fk_perf_opts perf;
	FILE *info;                  /* --info: captures' summaries go here */
	bool join_backward;          /* traces: backward ops under their forward op */
	/* Set (when not NULL) by inputs whose stacks hold one line per event
	 * of the leaf, zero values included (torch traces, for --table). */
	bool *per_event;
	/* Set (when not NULL) by inputs that name themselves for --tag-files:
	 * a trace's rank ("rank 3", from distributedInfo); left "" otherwise. */
	char *tag;
	size_t tag_size;
};

/* Reads path ("-": stdin) into into; a capture's GPU time also into gpu
 * when gpu is not NULL (--table). *capture is set when it was a capture. */
enum fk_input_result fk_stackfold_load(const char *path, const struct fk_stackfold_read *o,
				       struct fk_stacks *into, struct fk_stacks *gpu,
				       bool *capture, struct fk_diag *d);

#endif
