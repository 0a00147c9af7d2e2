/* layout.h - flame graph layout: stacks -> frame rectangles in time units.
 *
 * Stacks arrive in drawing order (sorted for flame graphs, input order for
 * flame charts) and are merged the way flamegraph.pl merges them: a frame
 * stays open while consecutive stacks share the same frames from the root.
 * Frames narrower than the minimum width are dropped when they close, so
 * memory holds only what will be drawn (plus the open path), and how many
 * were dropped is counted.
 *
 * Owns: the interned frame names and the kept frames. Not thread-safe.
 */
#ifndef FK_LAYOUT_H
#define FK_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/num.h"
#include "analysis/core/strtab.h"

struct fk_frame {
	uint32_t name;  /* id in names; the root is depth 0 */
	uint32_t depth;
	double start, end; /* in value units; the root's end is timemax */
	double delta;      /* differential: after - before of the stack ending here */
	bool has_delta;
	bool exact;        /* count holds the exact width: every stack up to the
			      frame's end had an integer count (fk_layout_push_count) */
	fk_u128 count;
};

struct fk_layout {
	struct fk_strtab names;
	struct fk_frame *frames;
	size_t count, cap;
	uint32_t depthmax;
	double time;     /* sum of widths pushed */
	bool time_nv;    /* time was summed in doubles, as Perl would (not IV/UV) */
	fk_u128 time_exact; /* the same sum, exact while !inexact */
	bool inexact;    /* some width had no exact integer count */
	double maxdelta; /* largest |delta|, at least 1 */
	uint64_t omitted; /* frames narrower than the minimum width */

	/* merge state */
	double min_time;  /* frames narrower than this are omitted */
	uint32_t *open_names;
	double *open_start, *open_delta;
	fk_u128 *open_start_exact;
	bool *open_has_delta;
	size_t open_len, open_cap;
	uint32_t *ids; /* scratch: this stack's frame ids */
	size_t ids_cap;
	const char *prev; /* the previous stack's bytes (caller keeps them alive) */
	size_t prev_len;
	bool failed;
};

/* min_time: frames whose width in value units is below it are dropped. */
void fk_layout_init(struct fk_layout *L, double min_time);

/* Adds one stack ("a;b;c", may be empty) of the given width. Its bytes must
 * stay valid until the next push (they are compared with the next stack). has_delta: the
 * stack's line was differential and delta = after - before. */
bool fk_layout_push(struct fk_layout *L, const char *stack, size_t len, double width,
		    bool has_delta, double delta);
/* The same with the stack's exact count (its width is the nearest double):
 * while every count pushed is an integer, frames also get exact counts,
 * also past 2^53 and 2^64 where doubles round. fk_layout_push's widths
 * have none, so frames that end after one are not exact. */
bool fk_layout_push_count(struct fk_layout *L, const char *stack, size_t len,
			  struct fk_num count, bool has_delta, double delta);

/* The layout's id for a frame name (interned once), FK_STRTAB_NONE when out
 * of memory: for fk_layout_push_frames. */
uint32_t fk_layout_name(struct fk_layout *L, const char *name, size_t len);
/* fk_layout_push_count for a stack given as the layout ids of its frames,
 * root-most first, n of them (trailing empty frames already dropped, as
 * Perl's split drops them). */
bool fk_layout_push_frames(struct fk_layout *L, const uint32_t *names, size_t n,
			   struct fk_num count, bool has_delta, double delta);

/* Closes every open frame; the root ends at max(time, timemax) (and is not
 * exact when timemax widens it). Sorts the
 * frames by depth, then start. false when out of memory at any point. */
bool fk_layout_finish(struct fk_layout *L, double timemax);

void fk_layout_free(struct fk_layout *L);

#endif
