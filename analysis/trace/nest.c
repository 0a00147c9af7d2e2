/* nest.c - a trace's CPU events into call trees, one per host thread, by
 * time alone (torch links ops to their Python frames and annotations the
 * same way). */
#include "analysis/trace/model.h"

#include "formats/grow.h"

/* Which of two events that start and end together encloses the other. */
static int outer_rank(uint8_t cat)
{
	switch (cat) {
	case FK_TCAT_USER_ANNOTATION: return 0;
	case FK_TCAT_PYTHON: return 1;
	case FK_TCAT_CPU_OP: return 2;
	default: return 3; /* runtime and driver calls: the leaves */
	}
}

static int by_thread_time(const void *pa, const void *pb)
{
	const struct fk_trace_cpu *a = pa, *b = pb;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	if (a->dur != b->dur)
		return a->dur > b->dur ? -1 : 1; /* the longer one outside */
	int ra = outer_rank(a->cat), rb = outer_rank(b->cat);
	if (ra != rb)
		return ra < rb ? -1 : 1;
	/* Still tied (the same interval and kind): the file's order, which
	 * writers give parent first (torch's ops; sampled frames exported by
	 * stackcap export). self holds each event's place in the file until
	 * it is nested. */
	return (a->self > b->self) - (a->self < b->self);
}

bool fk_trace_nest(struct fk_trace *t)
{
	if (t->nested)
		return true;
	if (t->ncpu) /* an empty trace has no array at all */
		qsort(t->cpu, t->ncpu, sizeof *t->cpu, by_thread_time);
	uint32_t *open = NULL; /* the interval stack: events still open */
	size_t nopen = 0, cap = 0;
	uint32_t thread = FK_TRACE_NONE;
	for (size_t i = 0; i < t->ncpu; i++) {
		struct fk_trace_cpu *e = &t->cpu[i];
		if (e->thread != thread) {
			thread = e->thread;
			nopen = 0;
		}
		while (nopen && t->cpu[open[nopen - 1]].ts + t->cpu[open[nopen - 1]].dur <= e->ts)
			nopen--;
		e->parent = nopen ? open[nopen - 1] : FK_TRACE_NONE;
		if (nopen) {
			int64_t parent_end = t->cpu[e->parent].ts + t->cpu[e->parent].dur;
			if (e->ts + e->dur > parent_end) { /* overlaps its parent's end */
				e->dur = parent_end - e->ts;
				t->clipped++;
			}
		}
		if (!FK_GROW(open, cap, nopen + 1, 64)) {
			free(open);
			return false;
		}
		open[nopen++] = (uint32_t)i;
	}
	free(open);
	for (size_t i = 0; i < t->ncpu; i++)
		t->cpu[i].self = (uint64_t)t->cpu[i].dur;
	for (size_t i = 0; i < t->ncpu; i++)
		if (t->cpu[i].parent != FK_TRACE_NONE)
			t->cpu[t->cpu[i].parent].self -= (uint64_t)t->cpu[i].dur;
	t->nested = true;
	return true;
}
