/* windows.c - a capture's windows (see windows.h). */
#include "analysis/capture/windows.h"

#include <inttypes.h>
#include <stdlib.h>

#include "formats/grow.h"

bool fk_cap_windows_chunk(struct fk_capture *c, struct fk_cap_cursor *k)
{
	uint64_t t = fk_cap_get_uvarint(k);
	while (fk_cap_more(k)) {
		struct fk_cap_window_edge e;
		e.edge = fk_cap_get_uvarint(k);
		t += (uint64_t)fk_cap_get_svarint(k);
		e.t_ns = t;
		e.step = fk_cap_get_uvarint(k);
		if (k->bad)
			break;
		if (!FK_GROW(c->edges, c->edges_cap, c->nedges + 1, 16))
			return false;
		c->edges[c->nedges++] = e;
	}
	return !k->bad;
}

static int by_number(const void *x, const void *y)
{
	const struct fk_cap_window_edge *a = x, *b = y;
	if (a->edge != b->edge)
		return a->edge < b->edge ? -1 : 1;
	return (a->t_ns > b->t_ns) - (a->t_ns < b->t_ns);
}

bool fk_cap_windows_finish(struct fk_capture *c)
{
	if (!c->nedges)
		return true;
	/* Edge numbers order the edges: two threads' clocks may not. */
	qsort(c->edges, c->nedges, sizeof *c->edges, by_number);
	size_t cap = 0;
	bool open = false;
	uint64_t last_t = 0;
	for (size_t i = 0; i < c->nedges; i++) {
		const struct fk_cap_window_edge *e = &c->edges[i];
		if (i > 0 && e->edge == c->edges[i - 1].edge)
			continue; /* a file's first record repeats the state it found */
		if (i > 0 && e->edge > c->edges[i - 1].edge + 1)
			c->window_edges_lost += e->edge - c->edges[i - 1].edge - 1;
		uint64_t t = e->t_ns > last_t ? e->t_ns : last_t;
		last_t = t;
		bool now = e->edge & 1;
		if (now && !open) {
			if (!FK_GROW(c->windows, cap, c->nwindows + 1, 16))
				return false;
			c->windows[c->nwindows++] = (struct fk_cap_window){ t, t, e->step };
		} else if (!now && open) {
			c->windows[c->nwindows - 1].end_ns = t;
		}
		open = now;
	}
	if (open) /* no close edge: cut short, it ran to the last record */
		c->windows[c->nwindows - 1].end_ns =
			c->last_t_ns > last_t ? c->last_t_ns : last_t;
	return true;
}

bool fk_cap_in_windows(const struct fk_capture *c, uint64_t t_ns)
{
	if (!c->window_spec)
		return true;
	size_t lo = 0, hi = c->nwindows; /* the first window ending at or after t */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->windows[mid].end_ns < t_ns)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->nwindows && c->windows[lo].start_ns <= t_ns;
}

void fk_cap_windows_info(FILE *out, const struct fk_capture *c)
{
	if (!c->window_spec)
		return;
	fprintf(out, "windows:     asked: %s; ", c->window_spec);
	if (!c->nwindows) {
		fprintf(out, "none opened: nothing was recorded\n");
		return;
	}
	uint64_t total = 0;
	for (size_t i = 0; i < c->nwindows; i++)
		total += c->windows[i].end_ns - c->windows[i].start_ns;
	fprintf(out, "%zu recorded, %.3f s in all:", c->nwindows, (double)total / 1e9);
	uint64_t t0 = c->hdr.start_mono_ns;
	for (size_t i = 0; i < c->nwindows && i < 8; i++) {
		const struct fk_cap_window *w = &c->windows[i];
		fprintf(out, "%s %.3f-%.3f s", i ? "," : "", (double)(w->start_ns - t0) / 1e9,
			(double)(w->end_ns - t0) / 1e9);
		if (w->step)
			fprintf(out, " (step %" PRIu64 ")", w->step - 1);
	}
	fprintf(out, "%s", c->nwindows > 8 ? ", ..." : "");
	if (c->window_edges_lost)
		fprintf(out, "; %" PRIu64 " edge%s lost (rings full or untraced threads): windows "
			"may be merged", c->window_edges_lost, c->window_edges_lost == 1 ? "" : "s");
	fputc('\n', out);
}
