/* torch.h - memory timelines to and from torch's files: the raw rows of
 * formats/torchmem.h read into a struct fk_mem_timeline, and a timeline
 * written as torch's raw rows or coalesced [times, sizes] JSON.
 *
 * Owns: nothing beyond a call.
 */
#ifndef FK_MEM_TORCH_H
#define FK_MEM_TORCH_H

#include "analysis/mem/events.h"
#include "formats/input.h"
#include "formats/sink.h"

/* Appends the events of a raw timeline to tl (torch files name no device).
 * false, reported through d, on a malformed row or a read error. */
bool fk_mem_read_torch_raw(struct fk_input *in, struct fk_mem_timeline *tl, struct fk_diag *d);
/* The same, opening path ("-": stdin); name is what messages call it. */
bool fk_mem_read_torch_raw_path(const char *path, const char *name, struct fk_mem_timeline *tl,
				struct fk_diag *d);

/* torch's coalesced JSON of a (sorted, one-device) timeline. */
void fk_mem_write_torch_json(struct fk_sink *out, const struct fk_mem_timeline *tl);
/* The raw rows of a timeline: INCREMENT_VERSION as two rows. */
void fk_mem_write_torch_raw(struct fk_sink *out, const struct fk_mem_timeline *tl);

#endif
