/* memory.h - a trace's [memory] events (profile_memory=True) as a memory
 * timeline (analysis/mem/events.h): each positive Bytes a CREATE, each
 * negative one a DESTROY, at Unix-epoch ns (baseTimeNanoseconds added),
 * by Addr and device (Device Type 0: the host; others: Device Id). A free
 * of an address the trace never saw allocated was live before it began:
 * it becomes a PREEXISTING event, as torch's own timeline counts it.
 * Categories are unknown (the trace does not say). The allocator's
 * reserved bytes ("Total Reserved") give the timeline's max_reserved.
 *
 * Events are taken in time order (a trace is not written in it).
 *
 * Owns: nothing beyond a call.
 */
#ifndef FK_TRACE_MEMORY_H
#define FK_TRACE_MEMORY_H

#include "analysis/mem/events.h"
#include "analysis/trace/model.h"

/* The timeline's device of the trace's memory events: cuda:0 when it has
 * GPU memory events, else the host; FK_MEM_DEVICE_ANY when it has none. */
int16_t fk_trace_memory_device(const struct fk_trace *t);

/* Adds t's memory events to tl (all devices; the caller selects one);
 * max_reserved is taken for device. false when out of memory. */
bool fk_trace_memory(const struct fk_trace *t, int16_t device, struct fk_mem_timeline *tl);

#endif
