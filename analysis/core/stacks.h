/* stacks.h - aggregation of stack lines: one entry per unique stack with the
 * exact sums of its values.
 *
 * Owns: the unique stacks (an fk_stackset: frame ids, not text) and their
 * sums. Memory grows with the number of unique stacks, never with input
 * size.
 * Sums are exact (fk_num) and grow past 2^64 - 1; one whose mantissa would
 * pass 128 bits (2^128 - 1, or fewer integer digits with decimals) is refused.
 * Not thread-safe.
 */
#ifndef FK_STACKS_H
#define FK_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/num.h"
#include "analysis/core/stackset.h"

struct fk_stack_sums {
	struct fk_num value;  /* sum of the last (or only) values */
	struct fk_num before; /* sum of the first values of differential lines,
				 plus the single value of the other lines */
	bool diff;            /* at least one differential line */
	uint64_t lines;       /* lines (events) added to this stack */
};

struct fk_stacks {
	struct fk_stackset set; /* id = index into sums */
	struct fk_stack_sums *sums;
	size_t cap;
	bool any_diff;
	struct fk_num total;  /* sum of every value */
	struct fk_num total_before; /* sum of every "before" value */
	uint64_t lines;       /* lines added with fk_stacks_add */
};

enum fk_stacks_status {
	FK_STACKS_OK = 0,
	FK_STACKS_OVERFLOW, /* a sum would not fit in 128 bits */
	FK_STACKS_NOMEM,
	FK_STACKS_MATCH_FAILED, /* fk_fold: a filter could not decide (regex limit) */
};

/* Adds one line's values. nvalues 1: before is ignored. The stack's id goes
 * to *id when id is not NULL. */
enum fk_stacks_status fk_stacks_add(struct fk_stacks *s, const char *stack, size_t len,
				    struct fk_num before, struct fk_num value, int nvalues,
				    uint32_t *id);
/* One parsed line waiting in a batch (see fk_stacks_add_batch). */
struct fk_stacks_pending {
	const char *stack;
	size_t len;
	struct fk_text_hash hash; /* fk_text_hash(stack, len) */
	struct fk_num before, value;
	int nvalues;
	uint32_t id;            /* set by fk_stacks_add_batch */
};

/* Adds n lines like fk_stacks_add, in order, but first asks the cache for
 * everything their lookups will touch, so the misses of many lines overlap
 * instead of adding up. Stops at the first failure (*done: lines added).
 * lazy: new stacks are not split yet (fk_stackset_intern_lazy), so their
 * texts must stay until the caller splits them. */
enum fk_stacks_status fk_stacks_add_batch(struct fk_stacks *s, struct fk_stacks_pending *p,
					  size_t n, bool lazy, size_t *done);

/* Adds an aggregated entry (sums of another table). */
enum fk_stacks_status fk_stacks_add_sums(struct fk_stacks *s, const char *stack, size_t len,
					 const struct fk_stack_sums *sums, uint32_t *id);

/* Adds every stack of from into s and frees from, also when it fails. What
 * from holds that s lacks (names, frame sequences) is taken over, not
 * copied. */
enum fk_stacks_status fk_stacks_merge(struct fk_stacks *s, struct fk_stacks *from);

static inline uint32_t fk_stacks_count(const struct fk_stacks *s) { return s->set.count; }

/* Stack id's text ("frame;frame;leaf", NUL-terminated) in *buf, which is
 * grown as needed (*cap bytes; the caller frees it); its length, or
 * SIZE_MAX when out of memory. */
size_t fk_stacks_text(const struct fk_stacks *s, uint32_t id, char **buf, size_t *cap);

enum fk_stacks_order {
	FK_ORDER_STACK,      /* by stack bytes, a prefix first (stackcollapse) */
	FK_ORDER_FLAME,      /* by stack bytes as if each ended in ' ' (flamegraph.pl's
				whole-line sort, so frames split and merge like its) */
	FK_ORDER_VALUE,      /* largest value first, then by stack */
};

/* Ids in the given order (malloc'd, count entries), NULL when out of memory. */
uint32_t *fk_stacks_sorted(const struct fk_stacks *s, enum fk_stacks_order order);

void fk_stacks_free(struct fk_stacks *s);

#endif
