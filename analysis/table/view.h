/* view.h - stackfold --table: which columns a table has for what was
 * read (a capture's CPU and CUDA time; a torch export_stacks file whose
 * --metric names its values; plain folded numbers), the --sort names
 * torch's table(sort_by=...) takes, and the table built and written.
 *
 * Owns: nothing beyond a call.
 */
#ifndef FK_TABLEVIEW_H
#define FK_TABLEVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "render/toptable.h"
#include "analysis/capture/model.h"
#include "analysis/core/stacks.h"
#include "analysis/table/sums.h"

struct fk_tableview_opts {
	bool capture;        /* the stacks came from stackcap captures */
	bool metric_given;   /* --metric was given (for stack text: what the values are) */
	enum fk_cap_metric metric;
	enum fk_table_by by;
	const char *sort;    /* NULL: self of the first metric */
	size_t limit;        /* 0: every row */
	enum fk_toptable_format format;
};

/* true for a --sort name a table takes: self, total, calls, avg, name, or
 * torch's self_cpu_time_total, cpu_time_total, self_cuda_time_total,
 * cuda_time_total, cpu_time, cuda_time, count, self_cpu_memory_usage,
 * cpu_memory_usage, self_cuda_memory_usage, cuda_memory_usage. */
bool fk_tableview_sort_known(const char *name);

/* What a capture folds first for --metric m (its CPU time for a table of
 * times), and whether its GPU time is folded too, as the second metric. */
enum fk_cap_metric fk_tableview_capture_metric(enum fk_cap_metric m);
bool fk_tableview_wants_gpu(enum fk_cap_metric m);

/* Builds the table of first (and gpu, which may be empty) and writes it.
 * Returns 0, or 2 with *usage set when the options ask for something the
 * table lacks (--sort cuda_time_total without GPU time, --by kernel), or 1
 * when out of memory or writing failed. */
int fk_tableview_write(FILE *out, const struct fk_stacks *first, const struct fk_stacks *gpu,
		       const struct fk_tableview_opts *o, char *usage, size_t usage_len);

#endif
