/* toptable.h - writing a top table (analysis/table.h) the way torch's
 * key_averages().table() prints one, or as CSV or JSON for scripts.
 *
 * Text: torch's layout: right-aligned columns 12 wide (the name column as
 * wide as the longest name plus 4, at most 55, longer names cut to 52
 * characters and "..."), two spaces after each, dashed rules, and footers
 * like "Self CPU time total: 32.010ms". Times as torch formats them (us, ms
 * or s with 3 decimals), memory as it does ("1.50 Mb"), shares as "12.34%"
 * ("NaN" of a zero total).
 *
 * CSV and JSON carry the same fields under stable names (README, "stackfold
 * --table"): exact values, shares in percent with 2 decimals.
 *
 * Owns: nothing.
 */
#ifndef FK_TOPTABLE_H
#define FK_TOPTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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

struct fk_toptable {
	const struct fk_table *t;
	const struct fk_table_row **rows; /* every row, in order */
	size_t nrows;
	size_t limit;        /* rows shown (0: all); widths and totals use all */
	struct fk_toptable_metric metric[FK_TABLE_METRICS];
	int nmetrics;
	bool calls;          /* a "# of Calls" column */
};

enum fk_toptable_format { FK_TOPTABLE_TEXT, FK_TOPTABLE_CSV, FK_TOPTABLE_JSON };

/* false when writing failed. */
bool fk_toptable_write(FILE *out, const struct fk_toptable *tt, enum fk_toptable_format f);

#endif
