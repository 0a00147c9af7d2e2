/* backward.h - backward ops joined to the forward ops that made them,
 * through the trace's fwdbwd flows (an "s" end on the forward op, an "f"
 * end with the same id on the backward op, each at its op's start), so a
 * backward op can be shown under its forward op's stack, as torch's
 * export_stacks shows it.
 *
 * Owns: nothing; the arrays returned are the caller's (free).
 */
#ifndef FK_TRACE_BACKWARD_H
#define FK_TRACE_BACKWARD_H

#include "analysis/trace/model.h"

/* For each CPU event of the nested trace, the forward op it is the
 * backward of (FK_TRACE_NONE for most); a flow end binds to the outermost
 * cpu_op that starts at its time on its thread. *joined: how many were
 * joined. NULL when out of memory. */
uint32_t *fk_trace_backward_links(const struct fk_trace *t, size_t *joined);

/* The CPU events of the nested trace in time order across threads, each
 * after the events around it (ts, -dur, then nest order). NULL when out of
 * memory. */
uint32_t *fk_trace_time_order(const struct fk_trace *t);

#endif
