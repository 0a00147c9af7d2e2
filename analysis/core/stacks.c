/* stacks.c - unique stacks and their exact sums (see stacks.h). */
#include "analysis/core/stacks.h"

#include <pthread.h>

#include <stdlib.h>
#include <string.h>

#include "analysis/core/chunksort.h"
#include "formats/grow.h"

static bool ensure_sums(struct fk_stacks *s, uint32_t id)
{
	return FK_GROW(s->sums, s->cap, (size_t)id + 1, 256);
}

/* The sums of a stack already interned as id (added: new to the table). */
static enum fk_stacks_status add_at(struct fk_stacks *s, uint32_t id, bool added,
				    const struct fk_stack_sums *add, struct fk_num total,
				    struct fk_num total_before)
{
	if (id == FK_STRTAB_NONE || !ensure_sums(s, id))
		return FK_STACKS_NOMEM;
	struct fk_stack_sums *e = &s->sums[id];
	if (added)
		*e = (struct fk_stack_sums){ 0 };
	fk_num_add(&e->value, add->value);
	fk_num_add(&e->before, add->before);
	e->diff |= add->diff;
	e->lines += add->lines;
	s->total = total;
	s->total_before = total_before;
	s->any_diff |= add->diff;
	return FK_STACKS_OK;
}

/* A stack's sums never exceed the totals, so checking the totals first
 * refuses an overflow before anything is added. */
static bool totals_after(const struct fk_stacks *s, const struct fk_stack_sums *add,
			 struct fk_num *total, struct fk_num *total_before)
{
	*total = s->total;
	*total_before = s->total_before;
	return fk_num_add(total, add->value) && fk_num_add(total_before, add->before);
}

enum fk_stacks_status fk_stacks_add_sums(struct fk_stacks *s, const char *stack, size_t len,
					 const struct fk_stack_sums *add, uint32_t *id_out)
{
	struct fk_num total, total_before;
	if (!totals_after(s, add, &total, &total_before))
		return FK_STACKS_OVERFLOW;
	bool added;
	uint32_t id = fk_strtab_intern(&s->keys, stack, len, &added);
	enum fk_stacks_status st = add_at(s, id, added, add, total, total_before);
	if (st == FK_STACKS_OK && id_out)
		*id_out = id;
	return st;
}

enum fk_stacks_status fk_stacks_add_batch(struct fk_stacks *s, struct fk_stacks_pending *p,
					  size_t n, size_t *done)
{
	/* The slots were prefetched when the lines were hashed; now the
	 * entries, then the stored bytes and sums they point to. */
	for (size_t i = 0; i < n; i++)
		p[i].id = fk_strtab_prefetch_entry(&s->keys, p[i].hash);
	for (size_t i = 0; i < n; i++) {
		if (p[i].id == FK_STRTAB_NONE)
			continue;
		const struct fk_str *k = fk_strtab_get(&s->keys, p[i].id);
		for (uint32_t off = 0; off < k->len && off < 1024; off += 64)
			__builtin_prefetch(k->p + off);
		if (p[i].id < s->cap)
			__builtin_prefetch(&s->sums[p[i].id]);
	}
	for (size_t i = 0; i < n; i++) {
		struct fk_stack_sums one = {
			.value = p[i].value,
			.before = p[i].nvalues == 2 ? p[i].before : p[i].value,
			.diff = p[i].nvalues == 2,
			.lines = 1,
		};
		struct fk_num total, total_before;
		if (!totals_after(s, &one, &total, &total_before)) {
			*done = i;
			return FK_STACKS_OVERFLOW;
		}
		bool added;
		uint32_t id = fk_strtab_intern_hashed(&s->keys, p[i].stack, p[i].len, p[i].hash, &added);
		enum fk_stacks_status st = add_at(s, id, added, &one, total, total_before);
		if (st != FK_STACKS_OK) {
			*done = i;
			return st;
		}
		p[i].id = id;
		s->lines++;
	}
	*done = n;
	return FK_STACKS_OK;
}

/* Adds from's stacks to s and frees from. Disjoint tables hand their
 * strings over (no lookup, no copy); otherwise only stacks new to s are
 * copied, with their hashes reused. */
static enum fk_stacks_status merge(struct fk_stacks *s, struct fk_stacks *from, bool disjoint)
{
	if (disjoint)
		fk_arena_adopt(&s->keys.arena, &from->keys.arena);
	enum fk_stacks_status st = FK_STACKS_OK;
	for (uint32_t id = 0; id < fk_stacks_count(from) && st == FK_STACKS_OK; id++) {
		const struct fk_str *k = fk_strtab_get(&from->keys, id);
		struct fk_num total, total_before;
		if (!totals_after(s, &from->sums[id], &total, &total_before)) {
			st = FK_STACKS_OVERFLOW;
			break;
		}
		bool added = true;
		uint32_t into = disjoint ? fk_strtab_add_owned(&s->keys, k->p, k->len, k->hash)
					 : fk_strtab_intern_hashed(&s->keys, k->p, k->len, k->hash, &added);
		st = add_at(s, into, added, &from->sums[id], total, total_before);
	}
	s->lines += from->lines;
	fk_stacks_free(from);
	return st;
}

enum fk_stacks_status fk_stacks_merge(struct fk_stacks *s, struct fk_stacks *from)
{
	return merge(s, from, false);
}

enum fk_stacks_status fk_stacks_merge_disjoint(struct fk_stacks *s, struct fk_stacks *from)
{
	return merge(s, from, true);
}

enum fk_stacks_status fk_stacks_add(struct fk_stacks *s, const char *stack, size_t len,
				    struct fk_num before, struct fk_num value, int nvalues,
				    uint32_t *id)
{
	struct fk_stack_sums one = {
		.value = value,
		.before = nvalues == 2 ? before : value,
		.diff = nvalues == 2,
		.lines = 1,
	};
	enum fk_stacks_status st = fk_stacks_add_sums(s, stack, len, &one, id);
	if (st == FK_STACKS_OK)
		s->lines++;
	return st;
}


/* Bytes of a stack's line after position at: the stack's own bytes, then
 * " VALUE" (" BEFORE AFTER" for differential stacks), as flamegraph.pl sees
 * the line when it sorts. */
static int line_byte(const struct fk_str *k, const char *tail, size_t tail_len, size_t at)
{
	if (at < k->len)
		return (unsigned char)k->p[at];
	at -= k->len;
	return at < tail_len ? (unsigned char)tail[at] : -1;
}

static size_t line_tail(const struct fk_stack_sums *v, char *buf)
{
	size_t n = 0;
	buf[n++] = ' ';
	if (v->diff) {
		n += fk_num_format(v->before, buf + n);
		buf[n++] = ' ';
	}
	n += fk_num_format(v->value, buf + n);
	return n;
}

/* Byte order. When one stack is a prefix of the other, plain order puts the
 * shorter first; flame order compares whole lines, stack and values, as
 * flamegraph.pl's sort does (so frames split and merge the same way). */
static int cmp_bytes(const struct fk_stacks *sorting, uint32_t x, uint32_t y, bool flame)
{
	const struct fk_str *a = fk_strtab_get(&sorting->keys, x);
	const struct fk_str *b = fk_strtab_get(&sorting->keys, y);
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->p, b->p, n);
	if (c || a->len == b->len)
		return c;
	if (!flame)
		return a->len < b->len ? -1 : 1;
	char ta[2 * FK_NUM_TEXT_MAX + 2], tb[2 * FK_NUM_TEXT_MAX + 2];
	size_t la = line_tail(&sorting->sums[x], ta), lb = line_tail(&sorting->sums[y], tb);
	for (size_t at = n;; at++) {
		int ca = line_byte(a, ta, la, at), cb = line_byte(b, tb, lb, at);
		if (ca != cb)
			return ca < cb ? -1 : 1;
		if (ca < 0)
			return 0;
	}
}

static int cmp_stack(const void *x, const void *y, void *s)
{
	return cmp_bytes(s, *(const uint32_t *)x, *(const uint32_t *)y, false);
}

static int cmp_flame(const void *x, const void *y, void *s)
{
	return cmp_bytes(s, *(const uint32_t *)x, *(const uint32_t *)y, true);
}

static int cmp_value(const void *x, const void *y, void *s)
{
	const struct fk_stacks *t = s;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = fk_num_cmp(t->sums[b].value, t->sums[a].value);
	return c ? c : cmp_stack(x, y, s);
}

typedef int (*cmp_fn)(const void *, const void *, void *);

/* A stack's line for the byte orders: its bytes, then in flame order the
 * values flamegraph.pl sees after them. */
struct line_order {
	const struct fk_stacks *s;
	bool flame;
};

static uint64_t line_chunk(const void *ctx, uint32_t id, size_t depth)
{
	const struct line_order *o = ctx;
	const struct fk_str *k = fk_strtab_get(&o->s->keys, id);
	if (depth + 8 <= k->len)
		return fk_chunk_of_8((const unsigned char *)k->p + depth);
	unsigned char b[7];
	size_t n = 0;
	for (; n < 7 && depth + n < k->len; n++)
		b[n] = (unsigned char)k->p[depth + n];
	if (o->flame && n < 7) {
		char tail[2 * FK_NUM_TEXT_MAX + 2];
		size_t len = line_tail(&o->s->sums[id], tail);
		for (size_t at = depth + n - k->len; n < 7 && at < len; n++, at++)
			b[n] = (unsigned char)tail[at];
	}
	return fk_chunk_of(b, n);
}

static size_t line_bytes(const void *ctx, uint32_t id, const unsigned char **p)
{
	const struct line_order *o = ctx;
	const struct fk_str *k = fk_strtab_get(&o->s->keys, id);
	*p = (const unsigned char *)k->p;
	return k->len;
}

struct sort_half {
	uint32_t *ids;
	size_t n;
	cmp_fn cmp;
	const struct fk_stacks *s;
	bool ok;
};

static void *sort_half(void *arg)
{
	struct sort_half *h = arg;
	h->ok = true;
	if (h->cmp == cmp_value) {
		qsort_r(h->ids, h->n, sizeof *h->ids, h->cmp, (void *)h->s);
	} else {
		/* Equal lines (only in flame order, a differential stack beside a
		 * plain one) keep id order, as the stable comparison sort did. */
		struct line_order o = { h->s, h->cmp == cmp_flame };
		h->ok = fk_chunk_sort(h->ids, h->n, line_chunk, line_bytes, &o);
	}
	return NULL;
}

/* Big tables are sorted as two halves on two threads, then merged: sorting
 * long stacks with shared prefixes is most of the output's cost. From 8192
 * stacks a half's sort costs far more than a thread (44k stacks of ~1 KB:
 * 0.24 s -> 0.21 s for the whole of stackfold). */
#define PARALLEL_SORT_MIN 8192

/* false when out of memory. */
static bool sort_ids(uint32_t *ids, size_t n, cmp_fn cmp, const struct fk_stacks *s)
{
	/* Input that is already in order (stackfold's output read by
	 * flamegraph) costs one pass instead of a sort. */
	size_t in_order = 1;
	while (in_order < n && cmp(&ids[in_order - 1], &ids[in_order], (void *)s) <= 0)
		in_order++;
	if (in_order >= n)
		return true;
	struct sort_half lo = { ids, n / 2, cmp, s, false }, hi = { ids + n / 2, n - n / 2, cmp, s, false };
	pthread_t t;
	uint32_t *merged = n >= PARALLEL_SORT_MIN ? malloc(n * sizeof *merged) : NULL;
	if (!merged || pthread_create(&t, NULL, sort_half, &hi) != 0) {
		free(merged);
		struct sort_half all = { ids, n, cmp, s, false };
		sort_half(&all);
		return all.ok;
	}
	sort_half(&lo);
	pthread_join(t, NULL);
	if (!lo.ok || !hi.ok) {
		free(merged);
		return false;
	}
	size_t i = 0, j = 0, k = 0;
	while (i < lo.n && j < hi.n) /* stable: ties keep the lower half first */
		merged[k++] = cmp(&hi.ids[j], &lo.ids[i], (void *)s) < 0 ? hi.ids[j++] : lo.ids[i++];
	while (i < lo.n)
		merged[k++] = lo.ids[i++];
	while (j < hi.n)
		merged[k++] = hi.ids[j++];
	memcpy(ids, merged, n * sizeof *ids);
	free(merged);
	return true;
}

uint32_t *fk_stacks_sorted(const struct fk_stacks *s, enum fk_stacks_order order)
{
	uint32_t n = fk_stacks_count(s);
	uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
	if (!ids)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	if (!sort_ids(ids, n, order == FK_ORDER_STACK ? cmp_stack : order == FK_ORDER_FLAME ? cmp_flame : cmp_value, s)) {
		free(ids);
		return NULL;
	}
	return ids;
}

void fk_stacks_free(struct fk_stacks *s)
{
	fk_strtab_free(&s->keys);
	free(s->sums);
	*s = (struct fk_stacks){ 0 };
}
