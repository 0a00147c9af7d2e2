/* liveblocks.h - what replaying a capture's heap needs, for every view
 * that does it (memory events for memtimeline, the Chrome trace's memory
 * counters): the live blocks by address, to give each free its size, and
 * the time order of a capture's allocation records.
 *
 * Owns: the map's slots (fk_live_free).
 */
#ifndef FK_LIVEBLOCKS_H
#define FK_LIVEBLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fk_live_block {
	uint64_t addr, bytes; /* addr 0: an empty slot */
};

/* Open addressing sized once for a most-n-live replay (at most half full). */
struct fk_live_map {
	struct fk_live_block *slot;
	size_t mask;
};

/* Room for n blocks; false when out of memory. */
bool fk_live_init(struct fk_live_map *m, size_t n);
void fk_live_free(struct fk_live_map *m);
/* The slot holding addr, or the empty slot where it would go. */
size_t fk_live_find(const struct fk_live_map *m, uint64_t addr);
/* Empties slot i (backward-shift deletion keeps the probe chains whole). */
void fk_live_remove(struct fk_live_map *m, size_t i);

/* qsort comparators of pointers to records, by time, ties in capture
 * order (the records' addresses): struct fk_cap_alloc and fk_cap_gpu_mem. */
int fk_cap_alloc_by_time(const void *x, const void *y);
int fk_cap_gmem_by_time(const void *x, const void *y);

#endif
