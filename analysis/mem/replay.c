/* replay.c - totals, peak and live allocations of a timeline (see replay.h). */
#include "analysis/mem/replay.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- the live set: linear probing, backward-shift deletion ---- */

#define BY_ADDRESS UINT64_MAX /* key.b of allocations known by address */

struct live {
	uint64_t a, b;      /* (address, BY_ADDRESS) or (bytes, stack << 8 | category) */
	uint64_t count;     /* live allocations under this key; 0: empty slot */
	uint64_t pre;       /* how many of them are pre-existing */
	uint64_t bytes;
	int64_t first_t_ns, last_t_ns; /* earliest and latest creation among them */
	uint32_t stack;
	uint8_t category;
};

struct live_set {
	struct live *slots;
	size_t mask, used;
};

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15u ^ (b + 0x632be59bd9b4e019u + (a << 6) + (a >> 2));
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9u;
	return h ^ h >> 29;
}

static bool live_grow(struct live_set *s)
{
	size_t cap = s->slots ? (s->mask + 1) * 2 : 1024;
	struct live *slots = calloc(cap, sizeof *slots);
	if (!slots)
		return false;
	for (size_t i = 0; s->slots && i <= s->mask; i++) {
		struct live *e = &s->slots[i];
		if (!e->count)
			continue;
		size_t j = mix(e->a, e->b) & (cap - 1);
		while (slots[j].count)
			j = (j + 1) & (cap - 1);
		slots[j] = *e;
	}
	free(s->slots);
	s->slots = slots;
	s->mask = cap - 1;
	return true;
}

/* The slot of key (a, b): its entry, or the empty slot where it would go. */
static struct live *live_slot(struct live_set *s, uint64_t a, uint64_t b)
{
	size_t i = mix(a, b) & s->mask;
	while (s->slots[i].count && (s->slots[i].a != a || s->slots[i].b != b))
		i = (i + 1) & s->mask;
	return &s->slots[i];
}

static void live_remove(struct live_set *s, struct live *e)
{
	size_t i = (size_t)(e - s->slots), j = i;
	s->used--;
	for (;;) {
		s->slots[i].count = 0;
		for (;;) {
			j = (j + 1) & s->mask;
			if (!s->slots[j].count)
				return;
			size_t home = mix(s->slots[j].a, s->slots[j].b) & s->mask;
			/* j's entry may move to i only if its home is not in (i, j]. */
			if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j))
				break;
		}
		s->slots[i] = s->slots[j];
		i = j;
	}
}

/* ---- replay ---- */

struct replay {
	const struct fk_mem_timeline *tl;
	struct fk_mem_report *rep;
	struct live_set live;
	fk_mem_warn_fn warn;
	void *ctx;
};

static void warn(struct replay *r, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void warn(struct replay *r, size_t i, const char *fmt, ...)
{
	if (!r->warn)
		return;
	char msg[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	r->warn(r->ctx, i, msg);
}

static void key_of(const struct fk_mem_event *ev, unsigned category, uint64_t *a, uint64_t *b)
{
	if (ev->address) {
		*a = ev->address, *b = BY_ADDRESS;
	} else {
		*a = ev->bytes, *b = (uint64_t)ev->stack << 8 | category;
	}
}

static bool live_add(struct replay *r, size_t i, const struct fk_mem_event *ev,
		     unsigned category, bool pre, int64_t first_t)
{
	struct live_set *s = &r->live;
	if ((s->used + 1) * 2 > s->mask + 1 && !live_grow(s))
		return false;
	uint64_t a, b;
	key_of(ev, category, &a, &b);
	struct live *e = live_slot(s, a, b);
	if (e->count && ev->address) {
		r->rep->reused++;
		warn(r, i, "%s at address 0x%" PRIx64 ", which is already live",
		     fk_mem_action_names[ev->action], ev->address);
		e->count = 0; /* the old one was freed unseen: replace it */
		e->pre = 0;
	}
	if (!e->count) {
		s->used++;
		*e = (struct live){ .a = a, .b = b, .bytes = ev->bytes, .first_t_ns = first_t,
				    .last_t_ns = first_t, .stack = ev->stack,
				    .category = (uint8_t)category };
	}
	if (first_t > e->last_t_ns)
		e->last_t_ns = first_t;
	e->count++;
	e->pre += pre;
	return true;
}

/* Takes one allocation out of the live set; false when none matches. Its
 * pre-existing flag and creation time come back for a version change. */
static bool live_take(struct replay *r, const struct fk_mem_event *ev, bool *pre,
		      int64_t *first_t, uint32_t *stack)
{
	uint64_t a, b;
	key_of(ev, ev->category, &a, &b);
	struct live *e = live_slot(&r->live, a, b);
	if (!e->count)
		return false;
	*pre = e->pre > 0;
	*first_t = e->first_t_ns;
	*stack = e->stack;
	e->pre -= e->pre > 0;
	if (--e->count == 0)
		live_remove(&r->live, e);
	return true;
}

static bool step(struct replay *r, size_t i)
{
	struct fk_mem_event ev;
	fk_mem_get(r->tl, i, &ev);
	switch (ev.action) {
	case FK_MEM_PREEXISTING:
	case FK_MEM_CREATE:
		return live_add(r, i, &ev, ev.category, ev.action == FK_MEM_PREEXISTING, ev.t_ns);
	case FK_MEM_INCREMENT_VERSION: {
		bool pre = false;
		int64_t first_t = ev.t_ns;
		uint32_t stack = ev.stack;
		if (!live_take(r, &ev, &pre, &first_t, &stack)) {
			r->rep->not_live++;
			warn(r, i, "INCREMENT_VERSION of %" PRIu64 " bytes (%s) that are not live",
			     ev.bytes, fk_mem_category_names[ev.category]);
		}
		ev.stack = stack;
		return live_add(r, i, &ev, ev.category_to, pre, first_t);
	}
	default: {
		bool pre;
		int64_t first_t;
		uint32_t stack;
		if (!live_take(r, &ev, &pre, &first_t, &stack)) {
			r->rep->not_live++;
			warn(r, i, "DESTROY of %" PRIu64 " bytes (%s) that are not live",
			     ev.bytes, fk_mem_category_names[ev.category]);
		}
		return true;
	}
	}
}

static int cmp_group(const void *x, const void *y)
{
	const struct fk_mem_group *a = x, *b = y;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	if (a->category != b->category)
		return a->category < b->category ? -1 : 1;
	if (a->stack != b->stack)
		return a->stack < b->stack ? -1 : 1;
	return (a->first_t_ns > b->first_t_ns) - (a->first_t_ns < b->first_t_ns);
}

/* The live set as groups, merged by (size, category, stack); leaks (the
 * end's) leaves out pre-existing allocations and, counted in rep, those a
 * loss may have freed unseen (created before lost_before). */
static bool snapshot(const struct live_set *s, bool leaks, int64_t lost_before,
		     struct fk_mem_report *rep, struct fk_mem_group **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!s->used)
		return true;
	struct fk_mem_group *g = malloc(s->used * sizeof *g);
	if (!g)
		return false;
	size_t k = 0;
	for (size_t i = 0; i <= s->mask; i++) {
		const struct live *e = &s->slots[i];
		uint64_t count = leaks ? e->count - e->pre : e->count;
		if (!e->count || !count)
			continue;
		if (leaks && e->first_t_ns < lost_before) {
			rep->unsure_count += count;
			rep->unsure_bytes += count * e->bytes; /* live bytes fit in int64_t */
			continue;
		}
		g[k++] = (struct fk_mem_group){ e->category, e->bytes, count, e->stack,
						e->pre ? -1 : e->first_t_ns,
						e->pre ? -1 : e->last_t_ns };
	}
	qsort(g, k, sizeof *g, cmp_group);
	size_t m = 0;
	for (size_t i = 0; i < k; i++) {
		if (m && g[m - 1].bytes == g[i].bytes && g[m - 1].category == g[i].category &&
		    g[m - 1].stack == g[i].stack) {
			g[m - 1].count += g[i].count; /* first_t: already the earliest */
			if (g[i].last_t_ns > g[m - 1].last_t_ns)
				g[m - 1].last_t_ns = g[i].last_t_ns;
		} else {
			g[m++] = g[i];
		}
	}
	*out = g;
	*n = m;
	return true;
}

/* Pass 1: totals and the peak, no live set. */
static bool totals(const struct fk_mem_timeline *tl, struct fk_mem_report *rep, size_t *bad)
{
	int64_t cur[FK_MEM_NCAT] = { 0 };
	rep->peak_total = 0; /* before the first event: nothing live */
	rep->peak_events = 0;
	for (size_t i = 0; i < tl->count;) {
		int64_t t = tl->t_ns[i];
		for (; i < tl->count && tl->t_ns[i] == t; i++) {
			uint16_t k = tl->kind[i];
			unsigned action = k & 0xfu, from = (k >> 4) & 0xfu, to = k >> 8;
			int64_t n = (int64_t)tl->bytes[i];
			bool over = false;
			rep->by_action[action]++;
			if (action == FK_MEM_DESTROY || action == FK_MEM_INCREMENT_VERSION)
				over |= __builtin_sub_overflow(cur[from], n, &cur[from]);
			if (action == FK_MEM_INCREMENT_VERSION)
				over |= __builtin_add_overflow(cur[to], n, &cur[to]);
			else if (action != FK_MEM_DESTROY)
				over |= __builtin_add_overflow(cur[from], n, &cur[from]);
			if (over || tl->bytes[i] > INT64_MAX) {
				*bad = i;
				return false;
			}
			if (cur[from] > rep->max[from])
				rep->max[from] = cur[from];
			if (cur[to] > rep->max[to])
				rep->max[to] = cur[to];
		}
		int64_t total = 0;
		for (int c = 0; c < FK_MEM_NCAT; c++) {
			if (__builtin_add_overflow(total, cur[c], &total)) {
				*bad = i - 1;
				return false;
			}
		}
		if (total > rep->peak_total) {
			rep->peak_total = total;
			rep->peak_t_ns = t;
			rep->peak_events = i;
			memcpy(rep->peak, cur, sizeof cur);
		}
		if (t != FK_MEM_NO_TIME) {
			if (rep->first_t_ns == -1)
				rep->first_t_ns = t;
			rep->last_t_ns = t;
		}
	}
	memcpy(rep->final, cur, sizeof cur);
	return true;
}

enum fk_mem_replay_result fk_mem_replay(const struct fk_mem_timeline *tl,
					struct fk_mem_report *rep, fk_mem_warn_fn warn_fn,
					void *ctx, size_t *bad_event)
{
	memset(rep, 0, sizeof *rep);
	rep->events = tl->count;
	rep->first_t_ns = rep->last_t_ns = rep->peak_t_ns = -1;
	if (!totals(tl, rep, bad_event))
		return FK_MEM_REPLAY_OVERFLOW;
	struct replay r = { .tl = tl, .rep = rep, .warn = warn_fn, .ctx = ctx };
	enum fk_mem_replay_result res = FK_MEM_REPLAY_NOMEM;
	if (!live_grow(&r.live))
		goto out;
	for (size_t i = 0; i < tl->count; i++) {
		if (i == rep->peak_events && !snapshot(&r.live, false, 0, rep, &rep->at_peak, &rep->n_at_peak))
			goto out;
		if (!step(&r, i))
			goto out;
	}
	if (rep->peak_events == tl->count &&
	    !snapshot(&r.live, false, 0, rep, &rep->at_peak, &rep->n_at_peak))
		goto out;
	if (!snapshot(&r.live, true, tl->lost_before_ns, rep, &rep->leaked, &rep->n_leaked))
		goto out;
	res = FK_MEM_REPLAY_OK;
out:
	free(r.live.slots);
	return res;
}

void fk_mem_report_free(struct fk_mem_report *rep)
{
	free(rep->at_peak);
	free(rep->leaked);
	rep->at_peak = rep->leaked = NULL;
	rep->n_at_peak = rep->n_leaked = 0;
}

/* ---- folded stacks of live bytes ---- */

static int cmp_cat_stack(const void *x, const void *y)
{
	const struct fk_mem_group *a = x, *b = y;
	if (a->category != b->category)
		return a->category < b->category ? -1 : 1;
	return (a->stack > b->stack) - (a->stack < b->stack);
}

int fk_mem_write_live_stacks(FILE *out, const struct fk_mem_timeline *tl,
			     const struct fk_mem_group *groups, size_t n)
{
	struct fk_mem_group *g = malloc((n ? n : 1) * sizeof *g);
	if (!g)
		return -1;
	if (n)
		memcpy(g, groups, n * sizeof *g);
	qsort(g, n, sizeof *g, cmp_cat_stack);
	for (size_t i = 0; i < n;) {
		/* Sums past 2^64 cannot happen: live bytes fit in int64_t. */
		uint64_t sum = 0;
		size_t j = i;
		for (; j < n && g[j].category == g[i].category && g[j].stack == g[i].stack; j++)
			sum += g[j].bytes * g[j].count;
		if (sum) {
			fputs(fk_mem_category_names[g[i].category], out);
			const struct fk_str *st = fk_mem_stack_text(tl, g[i].stack);
			if (st) {
				putc(';', out);
				fwrite(st->p, 1, st->len, out);
			}
			fprintf(out, " %" PRIu64 "\n", sum);
		}
		i = j;
	}
	free(g);
	return ferror(out) ? -1 : 0;
}

double fk_mem_report_ms(const struct fk_mem_report *rep, int64_t t_ns)
{
	if (t_ns == FK_MEM_NO_TIME || rep->first_t_ns == -1)
		return 0;
	return (double)(fk_mem_ns_to_us(t_ns) - fk_mem_ns_to_us(rep->first_t_ns)) / 1e3;
}

void fk_mem_write_summary(FILE *out, const struct fk_mem_report *rep, uint64_t warnings,
			  const char *loss)
{
	char a[32], b[32], c[32];
	fprintf(out, "events:    %zu (%" PRIu64 " PREEXISTING, %" PRIu64 " CREATE, %" PRIu64
		" INCREMENT_VERSION, %" PRIu64 " DESTROY)\n", rep->events, rep->by_action[1],
		rep->by_action[2], rep->by_action[3], rep->by_action[4]);
	fprintf(out, "duration:  %.3f ms\n", fk_mem_report_ms(rep, rep->last_t_ns));
	fprintf(out, "peak:      %s (%" PRId64 " bytes) ", fk_mem_format_bytes(a, rep->peak_total),
		rep->peak_total);
	if (rep->peak_t_ns == FK_MEM_NO_TIME)
		fputs("before the first event\n", out);
	else
		fprintf(out, "at %.3f ms\n", fk_mem_report_ms(rep, rep->peak_t_ns));
	fprintf(out, "warnings:  %" PRIu64 "\n", warnings);
	if (loss && *loss) /* the numbers above stand for less than the run */
		fprintf(out, "lost:      %s\n", loss);
	fputc('\n', out);
	fprintf(out, "%-16s  %12s  %12s  %12s\n", "category", "at peak", "max", "at end");
	int64_t end = 0;
	for (int k = 0; k < FK_MEM_NCAT; k++) {
		fprintf(out, "%-16s  %12s  %12s  %12s\n", fk_mem_category_names[k],
			fk_mem_format_bytes(a, rep->peak[k]), fk_mem_format_bytes(b, rep->max[k]),
			fk_mem_format_bytes(c, rep->final[k]));
		end += rep->final[k];
	}
	fprintf(out, "%-16s  %12s  %12s  %12s\n", "total", fk_mem_format_bytes(a, rep->peak_total),
		"", fk_mem_format_bytes(c, end));
}
