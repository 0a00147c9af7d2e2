/* view.h - stackfold --table's shape: which columns a table has for what
 * was read (a capture's CPU and CUDA time; a torch export_stacks file whose
 * --metric names its values; plain folded numbers), the --sort names torch's
 * table(sort_by=...) takes, and the rows chosen and ordered. Writing the
 * table (text, CSV, JSON) is render/toptable.h's, which takes this shape.
 *
 * Owns: the rows and sums of a built view (fk_tableview_free).
 */
#ifndef FK_TABLEVIEW_H
#define FK_TABLEVIEW_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/capture/model.h"
#include "analysis/core/stacks.h"
#include "analysis/table/sums.h"

enum fk_toptable_unit {
	FK_UNIT_US,     /* microseconds (torch's times) */
	FK_UNIT_BYTES,
	FK_UNIT_NUMBER, /* samples, periods, whatever the stacks held */
};

/* What one metric of the table is. */
struct fk_toptable_metric {
	const char *label;   /* "CPU", "CUDA"; NULL for a plain number */
	const char *key;     /* field stem for CSV/JSON: "cpu_time_us", "value" */
	enum fk_toptable_unit unit;
	bool device;         /* torch's device column order: "Self CUDA" first */
	bool avg;            /* a "time avg" column (total / calls) */
};

/* A table as it is shown: its sums, metrics and rows in order. */
struct fk_toptable {
	const struct fk_table *t;
	const struct fk_table_row **rows; /* every row, in order */
	size_t nrows;
	size_t limit;        /* rows shown (0: all); widths and totals use all */
	struct fk_toptable_metric metric[FK_TABLE_METRICS];
	int nmetrics;
	bool calls;          /* a "# of Calls" column */
};

/* How the table is written (render/toptable.h). */
enum fk_toptable_format { FK_TOPTABLE_TEXT, FK_TOPTABLE_CSV, FK_TOPTABLE_JSON };

struct fk_tableview_opts {
	bool capture;        /* the stacks came from stackcap captures (or traces) */
	bool per_event;      /* one stack line per event of its leaf (torch traces):
				calls are a frame's own events, times averaged */
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

/* Sums first (and gpu, which may be NULL or empty) into *t and describes
 * them in *tt (tt->t = t), rows selected and sorted as o asks. Returns 0,
 * or 2 with *usage set when the options ask for something the table lacks
 * (--sort cuda_time_total without GPU time, --by kernel), or 1 when out of
 * memory. Whatever it returns, fk_tableview_free(tt, t) afterwards. */
int fk_tableview_build(struct fk_toptable *tt, struct fk_table *t, const struct fk_stacks *first,
		       const struct fk_stacks *gpu, const struct fk_tableview_opts *o,
		       char *usage, size_t usage_len);

void fk_tableview_free(struct fk_toptable *tt, struct fk_table *t);

#endif
