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
	/* Profiles for viewers (stackfold --format speedscope|pprof): when
	 * set, a capture folds every metric it has records of, metric m into
	 * per_metric[m] (FK_STACKFOLD_NMETRICS tables), instead of into. */
	struct fk_stacks *per_metric;
	/* When set, a capture's CPU time also goes here with a "name-tid"
	 * root frame (one profile per thread). */
	struct fk_stacks *per_thread;
	/* When set, a capture's samples in time order (one timeline per
	 * thread) go here instead, while they are at most
	 * FK_STACKFOLD_TIMELINE_MAX in all (then per_thread, with a note). */
	struct fk_stackfold_timeline *timeline;
};

/* The most samples kept in time order: their events grow with the samples
 * (up to ~700 bytes a sample: a 10M-sample capture would give gigabytes no
 * viewer loads), sums do not. A million is ~17 minutes of 999 Hz samples. */
#define FK_STACKFOLD_TIMELINE_MAX 1000000 /* the note says "a million" */

/* Samples in time order: what speedscope's per-thread "evented" profiles
 * are made of. Owns its tables and array (fk_stackfold_timeline_free). */
struct fk_stackfold_timeline {
	struct fk_strtab stacks;   /* stack texts (as folded), id = index */
	struct fk_strtab threads;  /* "name-tid", id = index */
	struct fk_tl_sample {
		uint64_t t_ns;         /* CLOCK_MONOTONIC of the capturing process */
		uint32_t thread, stack, weight; /* weight: sampling periods */
	} *samples;                /* by thread, then time, per input */
	size_t n, cap;
	uint64_t sample_hz;        /* every capture on it has this rate */
};
void fk_stackfold_timeline_free(struct fk_stackfold_timeline *tl);

#define FK_STACKFOLD_NMETRICS (FK_METRIC_GPU_ALLOC_BYTES + 1)

/* What reading one input found besides its stacks. */
struct fk_stackfold_found {
	bool capture;    /* it was a stackcap capture */
	char loss[400];  /* what that capture lost (fk_capture_loss); "" nothing */
	/* A torch trace read for a table: its stacks hold one line per event
	 * of the leaf, zero values included, so calls are a frame's events. */
	bool per_event;
	/* What names the input for --tag-files, when it names itself: a
	 * trace's rank ("rank 3", from distributedInfo); "" otherwise. */
	char tag[48];
	enum fk_input_kind kind; /* what it was read as */
	/* A capture's CPU sampling rate, start (epoch ns) and span; 0 unknown. */
	uint64_t sample_hz;
	int64_t start_ns, duration_ns;
};

/* Reads path ("-": stdin) into into; a capture's GPU time also into gpu
 * when gpu is not NULL (--table). found is filled for this input. */
enum fk_input_result fk_stackfold_load(const char *path, const struct fk_stackfold_read *o,
				       struct fk_stacks *into, struct fk_stacks *gpu,
				       struct fk_stackfold_found *found, struct fk_diag *d);
/* The same for an input already open (its kind sniffed); flamegraph folds
 * captures through it. */
enum fk_input_result fk_stackfold_load_input(struct fk_input *in, const struct fk_stackfold_read *o,
					     struct fk_stacks *into, struct fk_stacks *gpu,
					     struct fk_stackfold_found *found, struct fk_diag *d);

#endif
