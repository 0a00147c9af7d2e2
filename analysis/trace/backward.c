/* backward.c - fwdbwd flows into backward -> forward links (see backward.h). */
#include "analysis/trace/backward.h"

#include <stdlib.h>
#include <string.h>

/* The outermost cpu_op of thread that starts at ts: events are sorted by
 * (thread, ts, -dur), so the first of that (thread, ts) that is an op. */
static uint32_t op_at(const struct fk_trace *t, uint32_t thread, int64_t ts)
{
	size_t lo = 0, hi = t->ncpu;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct fk_trace_cpu *e = &t->cpu[mid];
		if (e->thread < thread || (e->thread == thread && e->ts < ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < t->ncpu && t->cpu[lo].thread == thread && t->cpu[lo].ts == ts; lo++)
		if (t->cpu[lo].cat == FK_TCAT_CPU_OP)
			return (uint32_t)lo;
	return FK_TRACE_NONE;
}

static int by_id(const void *pa, const void *pb)
{
	const struct fk_trace_flow *a = pa, *b = pb;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (int)b->start - (int)a->start; /* the start first */
}

uint32_t *fk_trace_backward_links(const struct fk_trace *t, size_t *joined)
{
	*joined = 0;
	uint32_t *link = malloc((t->ncpu ? t->ncpu : 1) * sizeof *link);
	struct fk_trace_flow *f = malloc((t->nflows ? t->nflows : 1) * sizeof *f);
	if (!link || !f) {
		free(link);
		free(f);
		return NULL;
	}
	for (size_t i = 0; i < t->ncpu; i++)
		link[i] = FK_TRACE_NONE;
	if (t->nflows) { /* none: no array to copy from */
		memcpy(f, t->flows, t->nflows * sizeof *f);
		qsort(f, t->nflows, sizeof *f, by_id);
	}
	for (size_t i = 0; i + 1 < t->nflows; i++) {
		if (f[i].id != f[i + 1].id || !f[i].start || f[i + 1].start)
			continue;
		uint32_t fwd = op_at(t, f[i].thread, f[i].ts);
		uint32_t bwd = op_at(t, f[i + 1].thread, f[i + 1].ts);
		if (fwd != FK_TRACE_NONE && bwd != FK_TRACE_NONE && fwd != bwd) {
			link[bwd] = fwd;
			++*joined;
		}
	}
	free(f);
	return link;
}

static int by_time(const void *pa, const void *pb, void *ctx)
{
	const struct fk_trace *t = ctx;
	uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
	const struct fk_trace_cpu *a = &t->cpu[ia], *b = &t->cpu[ib];
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1;
	return (ia > ib) - (ia < ib); /* nest order: threads apart, parents first */
}

uint32_t *fk_trace_time_order(const struct fk_trace *t)
{
	uint32_t *order = malloc((t->ncpu ? t->ncpu : 1) * sizeof *order);
	if (!order)
		return NULL;
	for (size_t i = 0; i < t->ncpu; i++)
		order[i] = (uint32_t)i;
	qsort_r(order, t->ncpu, sizeof *order, by_time, (void *)t);
	return order;
}
