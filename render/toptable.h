/* toptable.h - writing a top table (its shape: analysis/table/view.h) the
 * way torch's key_averages().table() prints one, or as CSV or JSON for
 * scripts; and stackfold --table's output, built and written in one call.
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

#include "analysis/table/view.h"

/* false when writing failed. */
bool fk_toptable_write(FILE *out, const struct fk_toptable *tt, enum fk_toptable_format f);

/* Builds the table of first (and gpu, which may be NULL or empty) with
 * fk_tableview_build() and writes it in o->format (an empty text table
 * writes nothing). Returns 0, or 2 with *usage set when the options ask for
 * something the table lacks (--sort cuda_time_total without GPU time, --by
 * kernel), or 1 when out of memory or writing failed. */
int fk_tableview_write(FILE *out, const struct fk_stacks *first, const struct fk_stacks *gpu,
		       const struct fk_tableview_opts *o, char *usage, size_t usage_len);

#endif
