/* trace.h - stackfold's reading of a torch Chrome / Kineto trace: self CPU
 * time per stack of nested CPU events, or (--metric self_cuda_time_total)
 * GPU time per launching stack; for --table both (analysis/trace/).
 *
 * Owns: nothing beyond a call.
 */
#ifndef FK_STACKFOLD_TRACE_H
#define FK_STACKFOLD_TRACE_H

#include "analysis/stackfold/load.h"

/* Reads the open trace in into into (and, for a table, its GPU time into
 * gpu when gpu is not NULL: found->capture is then set, for time columns
 * like a capture's, and found->per_event: calls are events). found->tag
 * gets "rank N" when the trace has distributedInfo. */
enum fk_input_result fk_stackfold_load_trace(struct fk_input *in, const struct fk_stackfold_read *o,
					     struct fk_stacks *into, struct fk_stacks *gpu,
					     struct fk_stackfold_found *found, struct fk_diag *d);

#endif
