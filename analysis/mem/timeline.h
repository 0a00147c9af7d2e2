/* timeline.h - what memtimeline computes from its inputs: one memory
 * timeline (analysis/mem/load.h: every file read, events in torch's order,
 * one device kept) replayed into its report (the peak, what was live at it
 * and at the end), with the warnings counted. Writing it is render's
 * (render/memtimeline_run.h).
 *
 * Owns: the timeline, sources and report in struct fk_memtimeline
 * (fk_memtimeline_free). Reports through the caller's fk_diag only.
 */
#ifndef FK_MEMTIMELINE_H
#define FK_MEMTIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "analysis/mem/events.h"
#include "analysis/mem/load.h"
#include "analysis/mem/replay.h"

struct fk_memtimeline {
	struct fk_mem_timeline tl;
	struct fk_mem_inputs in;
	struct fk_mem_report rep;
	uint64_t warnings;   /* counted through the diag (d->bad_lines) */
};

/* Reads paths ("-": stdin; at least one) into m, keeping device (or every
 * event for FK_MEM_DEVICE_ANY), and replays them; captures' Python frames
 * named as py says (NULL: the defaults). Warnings go through d
 * (fatal under d->strict), then "prog: N warnings" unless d->quiet. false
 * on an error, already reported. Whatever it returns, fk_memtimeline_free(m)
 * afterwards. */
struct fk_py_opts;
bool fk_memtimeline_build(struct fk_memtimeline *m, char *const *paths, size_t npaths,
			  int16_t device, const struct fk_py_opts *py, struct fk_diag *d);

void fk_memtimeline_free(struct fk_memtimeline *m);

#endif
