/* fold.c - a trace's CPU and GPU time per stack (see fold.h). */
#include "analysis/trace/fold.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "analysis/trace/backward.h"
#include "formats/grow.h"

/* The paths of the nested CPU events, root first, interned once per
 * distinct path: path[i] is event i's. Parents sort before children
 * (nest.c), so one pass builds every path from its parent's. */
struct paths {
	struct fk_strtab tab;
	uint32_t *of;
	char *buf;
	size_t cap;
};

/* Appends a frame: ';' is the folded separator, so it becomes ':'. */
static size_t put_frame(char *dst, const char *name)
{
	size_t n = 0;
	for (const char *p = name; *p; p++)
		dst[n++] = *p == ';' ? ':' : *p;
	return n;
}

/* "ProfilerStep#12" -> "ProfilerStep*": the steps of a run as one frame. */
static const char *step_name(const char *name)
{
	static const char prefix[] = "ProfilerStep#";
	if (strncmp(name, prefix, sizeof prefix - 1) != 0)
		return name;
	const char *p = name + sizeof prefix - 1;
	if (!*p)
		return name;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return name;
	return "ProfilerStep*";
}

/* link: NULL, or each event's forward op (--join-backward), whose path
 * then replaces its parent's; order: the events in an order that puts
 * every event after its parent (and its forward op), NULL for the nest's. */
static bool build_paths(struct fk_trace *t, const struct fk_trace_fold_opts *o,
			const uint32_t *link, const uint32_t *order, struct paths *ps)
{
	ps->of = malloc((t->ncpu ? t->ncpu : 1) * sizeof *ps->of);
	if (!ps->of)
		return false;
	for (size_t i = 0; i < t->ncpu; i++)
		ps->of[i] = FK_STRTAB_NONE;
	for (size_t k = 0; k < t->ncpu; k++) {
		size_t i = order ? order[k] : k;
		const struct fk_trace_cpu *e = &t->cpu[i];
		const char *name = fk_trace_name(t, e->name);
		if (e->cat == FK_TCAT_USER_ANNOTATION && !o->steps)
			name = step_name(name);
		uint32_t above = e->parent;
		if (link && link[i] != FK_TRACE_NONE && ps->of[link[i]] != FK_STRTAB_NONE)
			above = link[i];
		const struct fk_str *up = above != FK_TRACE_NONE
			? fk_strtab_get(&ps->tab, ps->of[above]) : NULL;
		const struct fk_trace_thread *th = &t->threads[e->thread];
		const char *tname = th->name != FK_TRACE_NONE ? fk_trace_name(t, th->name) : "thread";
		size_t need = (up ? up->len : strlen(tname) + 24) + strlen(name) + 2;
		if (!FK_GROW(ps->buf, ps->cap, need, 256))
			return false;
		size_t n = 0;
		if (up) {
			memcpy(ps->buf, up->p, up->len);
			n = up->len;
			ps->buf[n++] = ';';
		} else if (o->threads) {
			n = put_frame(ps->buf, tname);
			n += (size_t)sprintf(ps->buf + n, "-%" PRId64 ";", th->tid);
		}
		n += put_frame(ps->buf + n, name);
		ps->of[i] = fk_strtab_intern(&ps->tab, ps->buf, n, NULL);
		if (ps->of[i] == FK_STRTAB_NONE)
			return false;
	}
	return true;
}

struct corr_of {
	int64_t corr;
	uint32_t cpu;
};

static int by_corr(const void *pa, const void *pb)
{
	const struct corr_of *a = pa, *b = pb;
	if (a->corr != b->corr)
		return a->corr < b->corr ? -1 : 1;
	return (a->cpu > b->cpu) - (a->cpu < b->cpu);
}

size_t fk_trace_link_launches(struct fk_trace *t)
{
	if (!fk_trace_nest(t))
		return SIZE_MAX;
	struct corr_of *x = malloc((t->ncpu ? t->ncpu : 1) * sizeof *x);
	if (!x)
		return SIZE_MAX;
	size_t n = 0;
	for (size_t i = 0; i < t->ncpu; i++)
		if (t->cpu[i].corr >= 0)
			x[n++] = (struct corr_of){ t->cpu[i].corr, (uint32_t)i };
	qsort(x, n, sizeof *x, by_corr);
	size_t linked = 0;
	for (size_t i = 0; i < t->ngpu; i++) {
		struct fk_trace_gpu *g = &t->gpu[i];
		g->launch = FK_TRACE_NONE;
		size_t lo = 0, hi = n;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (x[mid].corr < g->corr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (g->corr >= 0 && lo < n && x[lo].corr == g->corr) {
			g->launch = x[lo].cpu;
			linked++;
		}
	}
	free(x);
	return linked;
}

static bool add(struct fk_stacks *into, const char *stack, size_t len, uint64_t ns)
{
	struct fk_num zero = { 0, 0 }, v = { ns, 3 };
	return fk_stacks_add(into, stack, len, zero, v, 1, NULL) == FK_STACKS_OK;
}

/* GPU ops: the stack that launched them (the op around the runtime call,
 * or the call itself when nothing encloses it), the op's name as the leaf. */
static bool fold_gpu(struct fk_trace *t, const struct fk_trace_fold_opts *o, struct paths *ps,
		     struct fk_stacks *into)
{
	for (size_t i = 0; i < t->ngpu; i++) {
		const struct fk_trace_gpu *g = &t->gpu[i];
		const struct fk_str *at = NULL;
		if (g->launch != FK_TRACE_NONE) {
			uint32_t c = g->launch;
			if (t->cpu[c].parent != FK_TRACE_NONE)
				c = t->cpu[c].parent;
			at = fk_strtab_get(&ps->tab, ps->of[c]);
		}
		const char *stack = at ? at->p : FK_TRACE_NO_LAUNCH;
		size_t len = at ? at->len : strlen(FK_TRACE_NO_LAUNCH);
		const char *leaf = fk_trace_name(t, g->name);
		if (!FK_GROW(ps->buf, ps->cap, len + strlen(leaf) + 2, 256))
			return false;
		memcpy(ps->buf, stack, len);
		if (!o->no_kernel_frames) {
			ps->buf[len++] = ';';
			len += put_frame(ps->buf + len, leaf);
		}
		if (!add(into, ps->buf, len, (uint64_t)g->dur))
			return false;
	}
	return true;
}

bool fk_trace_fold(struct fk_trace *t, const struct fk_trace_fold_opts *o,
		   struct fk_stacks *into, const char *name, struct fk_diag *d)
{
	struct paths ps = { 0 };
	uint32_t *link = NULL, *order = NULL;
	bool ok = fk_trace_nest(t);
	if (ok && o->join_backward && t->nflows) {
		size_t joined;
		link = fk_trace_backward_links(t, &joined);
		order = link ? fk_trace_time_order(t) : NULL;
		ok = order != NULL;
	}
	ok = ok && build_paths(t, o, link, order, &ps);
	if (ok && o->gpu)
		ok = fk_trace_link_launches(t) != SIZE_MAX && fold_gpu(t, o, &ps, into);
	for (size_t i = 0; ok && !o->gpu && i < t->ncpu; i++) {
		if (t->cpu[i].self == 0 && !o->every_event)
			continue;
		const struct fk_str *s = fk_strtab_get(&ps.tab, ps.of[i]);
		ok = add(into, s->p, s->len, t->cpu[i].self);
	}
	if (!ok)
		fk_diag_error(d, "%s: out of memory, or a sum past 64 bits", name);
	fk_strtab_free(&ps.tab);
	free(link);
	free(order);
	free(ps.of);
	free(ps.buf);
	return ok;
}
