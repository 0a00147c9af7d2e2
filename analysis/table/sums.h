/* sums.h - the top table of a profile, torch's key_averages().table for
 * folded stacks: one row per frame name with its self and total values for
 * up to two metrics (a capture's CPU and CUDA time), and a call count where
 * the input knows one.
 *
 * Self: the value of the stacks that end in the frame. Total: the value of
 * the stacks that hold it, each counted once however often the frame
 * recurses in it. Calls: the events added to those stacks (the lines of a
 * torch export_stacks file, one per op call; a capture's kernel launches or
 * allocations), counted the same way.
 *
 * Owns: the rows and their names. Not thread-safe.
 */
#ifndef FK_TABLE_H
#define FK_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/num.h"
#include "analysis/core/stacks.h"
#include "analysis/core/strtab.h"

#define FK_TABLE_METRICS 2

struct fk_table_row {
	const char *name;	/* in the table's string table, NUL-terminated */
	uint32_t len;
	struct fk_num self[FK_TABLE_METRICS], total[FK_TABLE_METRICS];
	uint64_t calls;
	bool leaf[FK_TABLE_METRICS]; /* some stack of that metric ends in it */
	uint64_t seen;		/* the last stack counted (once per stack) */
};

struct fk_table {
	struct fk_strtab names;	/* id = row index */
	struct fk_table_row *rows;
	size_t cap;
	struct fk_num grand[FK_TABLE_METRICS]; /* every stack's value */
	uint64_t grand_calls;
	uint64_t stacks;	/* stacks added so far (the "seen" serial) */
};

/* What a stack's line count is. */
enum fk_table_calls {
	FK_CALLS_NONE = 0,  /* nothing: no call counts */
	FK_CALLS_HELD = 1,  /* calls of every frame the stack holds (an export_stacks
			       line is one op call under its Python frames) */
	FK_CALLS_LEAF = 2,  /* calls of its leaf only (a trace's stacks: one line per
			       event, so a frame's calls are its own events) */
};

/* Adds the stacks of one metric (0 or 1), their line counts as calls.
 * false: out of memory, or a sum past 128 bits. */
bool fk_table_add(struct fk_table *t, int metric, const struct fk_stacks *s,
		  enum fk_table_calls calls);

enum fk_table_by {
	FK_TABLE_BY_FRAME,  /* every frame name */
	FK_TABLE_BY_LEAF,   /* names some stack ends in */
	FK_TABLE_BY_KERNEL, /* names some stack of metric 1 (GPU time) ends in */
};

enum fk_table_key { FK_TABLE_SELF, FK_TABLE_TOTAL, FK_TABLE_CALLS, FK_TABLE_AVG, FK_TABLE_NAME };

struct fk_table_sort {
	enum fk_table_key key;
	int metric;		/* for SELF, TOTAL and AVG (total / calls) */
};

/* The rows `by` keeps, largest first by the sort key, ties (and NAME) by
 * name in byte order. *rows is malloc'd; returns the count, or SIZE_MAX
 * when out of memory. */
size_t fk_table_select(const struct fk_table *t, enum fk_table_by by, struct fk_table_sort sort,
		       const struct fk_table_row ***rows);

void fk_table_free(struct fk_table *t);

#endif
