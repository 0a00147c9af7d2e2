/* coalesce.c - torch's coalescing of a memory timeline (see coalesce.h).
 *
 * The rules, from torch/profiler/_memory_profiler.py: times in us as
 * int(t_ns / 1000), -1 kept for pre-existing events; a new row whenever the
 * time changes, starting from a copy of the previous row; t_min is the first
 * real time, or a later smaller positive one, and replaces -1 at the end.
 */
#include "analysis/mem/coalesce.h"

#include <string.h>

static int64_t row_time(int64_t t_ns)
{
	return t_ns == FK_MEM_NO_TIME ? -1 : fk_mem_ns_to_us(t_ns);
}

void fk_mem_rows_start(struct fk_mem_rows *r, const struct fk_mem_timeline *tl)
{
	memset(r, 0, sizeof *r);
	r->tl = tl;
	int64_t t_min = -1;
	for (size_t i = 0; i < tl->count; i++) {
		int64_t t = row_time(tl->t_ns[i]);
		if (t_min == -1 || (t > 0 && t < t_min))
			t_min = t;
	}
	r->t_min = t_min;
}

bool fk_mem_rows_next(struct fk_mem_rows *r)
{
	const struct fk_mem_timeline *tl = r->tl;
	if (r->next >= tl->count)
		return false;
	int64_t t = row_time(tl->t_ns[r->next]);
	size_t i = r->next;
	for (; i < tl->count; i++) {
		if (row_time(tl->t_ns[i]) != t)
			break;
		uint16_t k = tl->kind[i];
		unsigned action = k & 0xfu, from = 1 + ((k >> 4) & 0xfu), to = 1 + (k >> 8);
		/* Totals were checked to fit by the replay: wrapping arithmetic
		 * keeps an unchecked caller free of undefined behaviour. */
		uint64_t n = tl->bytes[i];
		if (action == FK_MEM_DESTROY) {
			r->sizes[from] = (int64_t)((uint64_t)r->sizes[from] - n);
		} else if (action == FK_MEM_INCREMENT_VERSION) {
			r->sizes[from] = (int64_t)((uint64_t)r->sizes[from] - n);
			r->sizes[to] = (int64_t)((uint64_t)r->sizes[to] + n);
		} else {
			r->sizes[from] = (int64_t)((uint64_t)r->sizes[from] + n);
		}
	}
	r->next = i;
	r->t = t < 0 ? r->t_min : t;
	return true;
}
