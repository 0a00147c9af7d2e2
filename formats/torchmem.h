/* torchmem.h - torch.profiler's memory timeline files
 * (prof.export_memory_timeline, torch >= 2.1):
 *   raw      "*raw.json.gz": [[t_ns, action, signed_bytes, category_index], ...]
 *   coalesced ".json":      [[t_us, ...], [[0, c1, ..., c8], ...]]
 * Read (raw, gzip or not, streamed through yajl) into a memory timeline, and
 * written from one, with torch's layout: Python json.dump spacing, no
 * trailing newline. Spec: formats/TORCHMEM.md.
 */
#ifndef FK_TORCHMEM_H
#define FK_TORCHMEM_H

#include "analysis/mem/events.h"
#include "formats/diag.h"
#include "formats/sink.h"

/* Appends the events of a raw timeline file ("-": stdin) to tl. Any
 * malformed row is an error, reported as "name: event N: reason" (N counts
 * rows from 1); false then, or when the file cannot be read. */
struct fk_input;
bool fk_torchmem_read_raw_input(struct fk_input *in, struct fk_mem_timeline *tl,
				struct fk_diag *d);
bool fk_torchmem_read_raw(const char *path, const char *name, struct fk_mem_timeline *tl,
			  struct fk_diag *d);

/* The coalesced JSON of a (sorted, one-device) timeline. */
void fk_torchmem_write_json(struct fk_sink *out, const struct fk_mem_timeline *tl);
/* The raw rows of a timeline: INCREMENT_VERSION as two rows. */
void fk_torchmem_write_raw(struct fk_sink *out, const struct fk_mem_timeline *tl);

#endif
