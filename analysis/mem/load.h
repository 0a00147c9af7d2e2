/* load.h - the inputs of memtimeline into one memory timeline: each file
 * read by its format's reader, events put in torch's timeline order (with a
 * warning when a file had them out of order), one device kept, then the
 * replay checks reported against the file and event they came from.
 *
 * Owns: the source list in struct fk_mem_inputs (fk_mem_inputs_free).
 */
#ifndef FK_MEMLOAD_H
#define FK_MEMLOAD_H

#include "formats/diag.h"
#include "analysis/mem/events.h"
#include "analysis/mem/replay.h"

struct fk_mem_source {
	const char *name;
	size_t first_event;
};

struct fk_mem_inputs {
	struct fk_mem_source *sources;
	size_t count;
	size_t *order;  /* when events were reordered: the read index of each */
	bool filtered;  /* events of other devices were dropped: indexes lost */
	char loss[512]; /* what the captures read lost ("file: ...; ..."), or "" */
};

/* Reads every path ("-": stdin) into tl, sorts, keeps device (when not
 * FK_MEM_DEVICE_ANY); captures' Python frames named as py says (NULL: the
 * defaults). Warnings go through d (fatal when strict); false on an
 * error, already reported. */
struct fk_py_opts;
bool fk_mem_load(struct fk_mem_timeline *tl, struct fk_mem_inputs *in, char *const *paths,
		 size_t npaths, int16_t device, const struct fk_py_opts *py, struct fk_diag *d);

/* Replays tl into rep, reporting each failed check as a warning through d.
 * false (reported) on an error: a total past 64 bits, out of memory, or a
 * warning under --strict. */
bool fk_mem_check(const struct fk_mem_timeline *tl, const struct fk_mem_inputs *in,
		  struct fk_mem_report *rep, struct fk_diag *d);

void fk_mem_inputs_free(struct fk_mem_inputs *in);

#endif
