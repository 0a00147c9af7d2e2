/* coalesce.h - torch's coalesced memory timeline: one row per distinct
 * microsecond holding the live bytes of each category after that
 * microsecond's events (torch.profiler's export_memory_timeline JSON).
 *
 * Rows come out one at a time, so writers stream them and memory stays that
 * of the timeline itself. Category totals must fit in int64_t, which
 * fk_mem_replay() checks first.
 */
#ifndef FK_MEMCOALESCE_H
#define FK_MEMCOALESCE_H

#include "analysis/mem/events.h"

/* Columns of a row: 0 (kept by torch so a cumulative sum starts at zero),
 * then one per category in index order. */
#define FK_MEM_COLUMNS (FK_MEM_NCAT + 1)

struct fk_mem_rows {
	const struct fk_mem_timeline *tl;
	size_t next;     /* first event not yet in a row */
	int64_t t_min;   /* replaces the -1 time of pre-existing rows */
	int64_t t;       /* the row's time in us */
	int64_t sizes[FK_MEM_COLUMNS];
};

void fk_mem_rows_start(struct fk_mem_rows *r, const struct fk_mem_timeline *tl);
/* Advances to the next row; false after the last. */
bool fk_mem_rows_next(struct fk_mem_rows *r);

#endif
