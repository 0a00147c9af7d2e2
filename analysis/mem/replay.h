/* replay.h - replaying a memory timeline: category totals, the peak, what
 * was alive at the peak and at the end, and the checks that need the
 * replay (a DESTROY of bytes that are not live, totals past 64 bits).
 *
 * Allocations are followed by address when the events have one; torch's raw
 * files have none, so there an allocation is known by (category, size,
 * stack) and a DESTROY takes one of the live ones of that kind. What is live
 * at a moment is exact either way; which of two equal ones was freed first
 * is not, so pre-existing ones are taken to go first.
 *
 * Owns: the groups arrays in struct fk_mem_report (fk_mem_report_free).
 */
#ifndef FK_MEMREPLAY_H
#define FK_MEMREPLAY_H

#include <stdio.h>

#include "analysis/mem/events.h"

/* Live allocations of one kind: same category, size and stack. */
struct fk_mem_group {
	uint8_t category;
	uint64_t bytes;   /* of one allocation */
	uint64_t count;
	uint32_t stack;   /* 0: none */
	int64_t first_t_ns; /* earliest creation among them; -1 pre-existing */
	int64_t last_t_ns;  /* latest creation among them; -1 pre-existing */
};

struct fk_mem_report {
	size_t events;
	uint64_t by_action[5];      /* indexed by enum fk_mem_action */
	int64_t first_t_ns, last_t_ns; /* real times (not -1); -1 when none */
	int64_t final[FK_MEM_NCAT];  /* live bytes at the end */
	int64_t max[FK_MEM_NCAT];    /* each category's own maximum */
	/* The peak: the largest total after all events of one timestamp, or 0
	 * before the first event when nothing is ever live. */
	int64_t peak_total;
	int64_t peak_t_ns;           /* -1: pre-existing, or before the first event */
	int64_t peak[FK_MEM_NCAT];
	size_t peak_events;          /* events replayed to reach it */
	uint64_t not_live;           /* DESTROY or INCREMENT_VERSION of bytes not live */
	uint64_t reused;             /* CREATE at an address already live */
	/* Sorted by size of one allocation, largest first. */
	struct fk_mem_group *at_peak;
	size_t n_at_peak;
	struct fk_mem_group *leaked;  /* created in the timeline, live at the end */
	size_t n_leaked;
	/* Live at the end but created before tl->lost_before_ns: perhaps freed
	 * in what a capture lost, so not in leaked. */
	uint64_t unsure_count, unsure_bytes;
};

/* Called for each event that fails a replay check, with its index. */
typedef void (*fk_mem_warn_fn)(void *ctx, size_t event, const char *message);

enum fk_mem_replay_result {
	FK_MEM_REPLAY_OK = 0,
	FK_MEM_REPLAY_OVERFLOW, /* a total does not fit in 64 bits; *bad_event says where */
	FK_MEM_REPLAY_NOMEM,
};

/* Replays the whole timeline (sorted, one device). warn may be NULL. */
enum fk_mem_replay_result fk_mem_replay(const struct fk_mem_timeline *tl,
					struct fk_mem_report *rep, fk_mem_warn_fn warn,
					void *ctx, size_t *bad_event);
void fk_mem_report_free(struct fk_mem_report *rep);

/* Milliseconds from the first timed event (the plot's 0) to t_ns; 0 for
 * pre-existing. */
double fk_mem_report_ms(const struct fk_mem_report *rep, int64_t t_ns);

/* A text summary: events, duration, the peak, each category at the peak,
 * at its own maximum and at the end, and the warnings counted. */
/* loss: what the inputs lost (a "lost:" line), or NULL / "". */
void fk_mem_write_summary(FILE *out, const struct fk_mem_report *rep, uint64_t warnings,
			  const char *loss);

/* Folded stacks of live bytes, "CATEGORY;frame;...;leaf BYTES", one line
 * per category and stack (summed), in category then stack order: a memory
 * flame graph. -1 on a write error. */
int fk_mem_write_live_stacks(FILE *out, const struct fk_mem_timeline *tl,
			     const struct fk_mem_group *groups, size_t n);

#endif
