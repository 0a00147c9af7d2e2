/* nvtx.c - which NVTX ranges were open on a thread at a moment (see
 * model.h): the thread's push/pop events replayed in time order beside
 * the moments asked about. */
#include <stdlib.h>
#include <string.h>

#include "analysis/capture/model.h"

#define MAX_DEPTH 64

static const struct fk_capture *sort_c;

static int by_thread_time(const void *x, const void *y)
{
	const struct fk_cap_when *a = x, *b = y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return (a->t_ns > b->t_ns) - (a->t_ns < b->t_ns);
}

static int events_by_thread_time(const void *x, const void *y)
{
	const struct fk_cap_nvtx *a = &sort_c->nvtx[*(const size_t *)x];
	const struct fk_cap_nvtx *b = &sort_c->nvtx[*(const size_t *)y];
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns ? -1 : 1;
	return (*(const size_t *)x > *(const size_t *)y) - (*(const size_t *)x < *(const size_t *)y);
}

/* The open ranges as one folded prefix, frames ';'-joined. */
static const char *join(char *const *stack, int depth, struct fk_arena *arena)
{
	size_t len = 0;
	for (int i = 0; i < depth; i++)
		len += strlen(stack[i]) + 1;
	if (len == 0)
		return "";
	char *s = fk_arena_alloc(arena, len);
	if (!s)
		return NULL;
	char *p = s;
	for (int i = 0; i < depth; i++) {
		for (const char *q = stack[i]; *q; q++)
			*p++ = *q == ';' ? ':' : *q == '\n' ? ' ' : *q;
		*p++ = i + 1 < depth ? ';' : 0;
	}
	return s;
}

bool fk_capture_nvtx_paths(const struct fk_capture *c, struct fk_cap_when *q, size_t n,
			   struct fk_arena *arena)
{
	size_t *order = malloc((c->nnvtx ? c->nnvtx : 1) * sizeof *order);
	if (!order)
		return false;
	for (size_t i = 0; i < c->nnvtx; i++)
		order[i] = i;
	sort_c = c; /* qsort has no context argument; single-threaded here */
	qsort(order, c->nnvtx, sizeof *order, events_by_thread_time);
	qsort(q, n, sizeof *q, by_thread_time);
	char *stack[MAX_DEPTH];
	int depth = 0;
	const char *path = "";
	uint32_t thread = UINT32_MAX;
	size_t e = 0;
	bool ok = true;
	for (size_t i = 0; i < n && ok; i++) {
		if (q[i].tid != thread) { /* a new thread: its own ranges */
			thread = q[i].tid;
			depth = 0;
			path = "";
			while (e < c->nnvtx && c->nvtx[order[e]].tid < thread)
				e++;
		}
		bool changed = false;
		for (; e < c->nnvtx && c->nvtx[order[e]].tid == thread &&
		       c->nvtx[order[e]].t_ns <= q[i].t_ns; e++) {
			const struct fk_cap_nvtx *v = &c->nvtx[order[e]];
			if (v->op == FK_CAP_NVTX_PUSH && depth < MAX_DEPTH)
				stack[depth++] = v->name ? v->name : "";
			else if (v->op == FK_CAP_NVTX_POP && depth > 0)
				depth--;
			else
				continue;
			changed = true;
		}
		if (changed && !(path = join(stack, depth, arena)))
			ok = false;
		q[i].path = path;
	}
	free(order);
	return ok;
}
