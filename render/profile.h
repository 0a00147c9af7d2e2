/* profile.h - folded stack tables seen as one profile, the shape the
 * viewers' formats share (speedscope, pprof): a table of distinct frame
 * names, each distinct stack as frame ids (root first), and one value per
 * sample type for it. A capture gives several typed tables (CPU time,
 * samples, GPU time, allocations); other inputs one.
 *
 * Owns: the frame table, the stacks' frame ids and the value matrix; not
 * the typed tables, which must outlive it.
 */
#ifndef FK_PROFILE_H
#define FK_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/core/stacks.h"
#include "analysis/stackfold/load.h"

#define FK_PROFILE_MAX_TYPES 8

/* What the folded values of a type count. */
enum fk_profile_unit {
	FK_PUNIT_NONE,          /* numbers of unknown meaning (folded text) */
	FK_PUNIT_COUNT,         /* samples, calls, allocations */
	FK_PUNIT_MICROSECONDS,
	FK_PUNIT_BYTES,
};

struct fk_profile_type {
	const char *name;      /* "cpu", "samples", "cuda", "alloc_space", ... */
	enum fk_profile_unit unit;
	const struct fk_stacks *stacks;
	/* Stacks rooted at a "name-tid" thread frame: speedscope shows one
	 * profile per thread of them (pprof takes no such type). */
	bool by_thread;
};

struct fk_profile {
	struct fk_profile_type types[FK_PROFILE_MAX_TYPES];
	size_t ntypes;
	const char *name;      /* the input's name, for the viewers' titles */
	/* What the inputs lost ("NAME: what; ..."), said in the file too; ""
	 * or NULL when nothing was. */
	const char *loss;
	uint64_t sample_hz;    /* captures: the CPU sampling rate, 0 unknown */
	int64_t start_ns, duration_ns; /* epoch ns of the start, and the span; 0 unknown */
	/* Captures' samples in time order (speedscope: a timeline per
	 * thread), or NULL; its stacks' frames join the frame table. */
	const struct fk_stackfold_timeline *timeline;
	/* filled by fk_profile_build */
	struct fk_strtab frames;   /* frame names; id = index */
	struct fk_stackset own_set; /* the union of stacks when ntypes > 1 */
	const struct fk_stackset *set; /* the stacks: types[0]'s, or own_set */
	uint32_t *first;       /* stack i's frames: frame_ids[first[i] .. first[i+1]) */
	uint32_t *frame_ids;
	struct fk_num *values; /* stack i, type t: values[i * ntypes + t] */
	uint32_t *tl_first, *tl_frame_ids; /* the same for the timeline's stacks */
};

enum fk_profile_status {
	FK_PROFILE_OK = 0,
	FK_PROFILE_NOMEM,
	FK_PROFILE_DIFFERENTIAL, /* a table holds "stack BEFORE AFTER" lines */
};

/* Builds the frame table, stacks and values of p's typed tables. */
enum fk_profile_status fk_profile_build(struct fk_profile *p);
static inline uint32_t fk_profile_nstacks(const struct fk_profile *p) { return p->set->count; }
/* The name speedscope's file format gives the unit. */
const char *fk_profile_unit_speedscope(enum fk_profile_unit u);
void fk_profile_free(struct fk_profile *p);

#endif
