/* stackorder.c - stacks in byte order, in flame order or by value
 * (fk_stacks_sorted, see stacks.h).
 *
 * Stacks are kept as frame ids, not text, so their byte order is worked out
 * frame by frame. Where two stacks' frames first differ, at frame i, their
 * texts differ within frame i's name or at the byte after it: the ';' of a
 * frame that goes on, the end of the stack, or in flame order the line's
 * values that follow the leaf (no name holds a ';' and no value does, so
 * nothing later counts). So each frame gets a rank: the place of its key
 * among all keys, a name followed by ';' for a frame that goes on, the name
 * alone for a leaf (byte order), or the leaf's name followed by the line's
 * values (flame order, one key per stack). Stacks then compare as their
 * sequences of ranks, which the multikey sort splits a frame at a time.
 */
#include "analysis/core/stacks.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/core/chunksort.h"
#include "formats/grow.h"

struct order {
	const struct fk_stacks *s;
	bool flame;
	uint32_t nframes;  /* names: keys 0..nframes-1 are "name;" */
	uint32_t *rank;    /* of every key; then keys nframes.. are the leaves:
			      "name" of each frame (byte order) or the line
			      of each stack (flame order) */
	char *tails;       /* flame order: each stack's values, " [BEFORE ]VALUE" */
	size_t *tail_at;   /* stack i's are tails[tail_at[i] .. tail_at[i + 1]) */
	/* Stack i's frames as the ranks of their keys, plus one:
	 * ranked[ranked_at[i] .. ranked_at[i + 1]). */
	uint32_t *ranked;
	size_t *ranked_at;
};

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

/* A key's bytes: a name, then a short tail (";", nothing, or values). */
struct key_bytes {
	const unsigned char *head, *tail;
	size_t head_len, tail_len;
};

static struct key_bytes key_of(const struct order *o, uint32_t key)
{
	const struct fk_stackset *set = &o->s->set;
	uint32_t frame = key;
	struct key_bytes k = { .tail = (const unsigned char *)"" };
	if (key < o->nframes) {
		k.tail = (const unsigned char *)";";
		k.tail_len = 1;
	} else if (!o->flame) {
		frame = key - o->nframes;
	} else {
		uint32_t id = key - o->nframes;
		const struct fk_stack_entry *e = fk_stackset_get(set, id);
		frame = e->frames[e->nframes - 1];
		k.tail = (const unsigned char *)o->tails + o->tail_at[id];
		k.tail_len = o->tail_at[id + 1] - o->tail_at[id];
	}
	const struct fk_str *name = fk_stackset_frame(set, frame);
	k.head = (const unsigned char *)name->p;
	k.head_len = name->len;
	return k;
}

static uint64_t key_chunk(const void *ctx, uint32_t key, size_t depth)
{
	struct key_bytes k = key_of(ctx, key);
	if (depth + 8 <= k.head_len)
		return fk_chunk_of_8(k.head + depth);
	unsigned char b[7];
	size_t n = 0;
	for (; n < 7 && depth + n < k.head_len; n++)
		b[n] = k.head[depth + n];
	for (size_t at = depth + n - k.head_len; n < 7 && at < k.tail_len; n++, at++)
		b[n] = k.tail[at];
	return fk_chunk_of(b, n);
}

static size_t key_head(const void *ctx, uint32_t key, const unsigned char **p)
{
	struct key_bytes k = key_of(ctx, key);
	*p = k.head;
	return k.head_len;
}

/* Frame i of stack id as its rank, in the form of a chunk (0: no frame i). */
static uint64_t stack_chunk(const void *ctx, uint32_t id, size_t depth)
{
	const struct order *o = ctx;
	size_t at = o->ranked_at[id] + depth / 7;
	return at < o->ranked_at[id + 1] ? (uint64_t)o->ranked[at] << 8 | 7 : 0;
}

/* Every stack as the ranks of its frames' keys, in one array: the sort
 * then reads a frame with two loads, where through the stack's entry, its
 * frames and the ranks it took four that each waited for the last. */
static bool rank_stacks(struct order *o)
{
	const struct fk_stackset *set = &o->s->set;
	uint32_t n = fk_stacks_count(o->s);
	size_t total = 0;
	o->ranked_at = malloc(((size_t)n + 1) * sizeof *o->ranked_at);
	if (!o->ranked_at)
		return false;
	for (uint32_t id = 0; id < n; id++) {
		o->ranked_at[id] = total;
		total += fk_stackset_get(set, id)->nframes;
	}
	o->ranked_at[n] = total;
	o->ranked = malloc((total ? total : 1) * sizeof *o->ranked);
	if (!o->ranked)
		return false;
	uint32_t *r = o->ranked;
	for (uint32_t id = 0; id < n; id++) {
		const struct fk_stack_entry *e = fk_stackset_get(set, id);
		uint32_t last = e->nframes - 1;
		for (uint32_t i = 0; i < last; i++)
			*r++ = o->rank[e->frames[i]] + 1;
		*r++ = o->rank[o->nframes + (o->flame ? id : e->frames[last])] + 1;
	}
	free(o->rank); /* all the sort needs of it is here now */
	o->rank = NULL;
	return true;
}

/* Stacks a and b in the order of their chunks: by their ranks, a stack
 * before the longer ones it is a prefix of. */
static int cmp_lines(const struct order *o, uint32_t a, uint32_t b)
{
	const uint32_t *x = o->ranked + o->ranked_at[a], *y = o->ranked + o->ranked_at[b];
	size_t m = o->ranked_at[a + 1] - o->ranked_at[a], n = o->ranked_at[b + 1] - o->ranked_at[b];
	size_t both = m < n ? m : n, k = 0;
	while (k < both && x[k] == y[k])
		k++;
	if (k < both)
		return x[k] < y[k] ? -1 : 1;
	return (m > n) - (m < n);
}

static int cmp_value(const void *x, const void *y, void *ctx)
{
	const struct order *o = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = fk_num_cmp(o->s->sums[b].value, o->s->sums[a].value);
	return c ? c : cmp_lines(o, a, b);
}

/* Ranks the keys. false when out of memory. */
static bool rank_keys(struct order *o)
{
	const struct fk_stacks *s = o->s;
	uint32_t nleaves = o->flame ? fk_stacks_count(s) : o->nframes;
	size_t nkeys = (size_t)o->nframes + nleaves;
	if (o->flame) {
		char tail[2 * FK_NUM_TEXT_MAX + 2];
		size_t cap = 0, len = 0;
		o->tail_at = malloc(((size_t)nleaves + 1) * sizeof *o->tail_at);
		if (!o->tail_at)
			return false;
		for (uint32_t id = 0; id < nleaves; id++) {
			size_t n = line_tail(&s->sums[id], tail);
			if (!FK_GROW(o->tails, cap, len + n, 4096))
				return false;
			memcpy(o->tails + len, tail, n);
			o->tail_at[id] = len;
			len += n;
		}
		o->tail_at[nleaves] = len;
	}
	if (nkeys > UINT32_MAX - 1)
		return false;
	/* Only the keys some stack uses are ranked: a name that only ever ends
	 * stacks has no "name;" key to sort, and the reverse (with names that
	 * never repeat, the worst case, that halves the sort). */
	o->rank = calloc(nkeys + 1, sizeof *o->rank);
	uint32_t *keys = malloc((nkeys + 1) * sizeof *keys);
	if (!keys || !o->rank) {
		free(keys);
		return false;
	}
	for (uint32_t id = 0; id < fk_stacks_count(s); id++) {
		const struct fk_stack_entry *e = fk_stackset_get(&s->set, id);
		for (uint32_t i = 0; i + 1 < e->nframes; i++)
			o->rank[e->frames[i]] = 1;
		o->rank[o->nframes + (o->flame ? id : e->frames[e->nframes - 1])] = 1;
	}
	size_t used = 0;
	for (size_t k = 0; k < nkeys; k++)
		if (o->rank[k])
			keys[used++] = (uint32_t)k;
	bool ok = fk_chunk_sort(keys, used, key_chunk, key_head, o);
	for (size_t i = 0; ok && i < used; i++)
		o->rank[keys[i]] = (uint32_t)i;
	free(keys);
	return ok;
}

struct sort_half {
	uint32_t *ids;
	size_t n;
	const struct order *o;
	bool by_value;
	bool ok;
};

static void *sort_half(void *arg)
{
	struct sort_half *h = arg;
	h->ok = true;
	if (h->by_value)
		qsort_r(h->ids, h->n, sizeof *h->ids, cmp_value, (void *)h->o);
	else /* equal lines (flame order only) keep id order */
		h->ok = fk_chunk_sort(h->ids, h->n, stack_chunk, NULL, h->o);
	return NULL;
}

static int cmp_ids(const struct order *o, bool by_value, uint32_t a, uint32_t b)
{
	return by_value ? cmp_value(&a, &b, (void *)o) : cmp_lines(o, a, b);
}

/* Two sorted halves of ids into out: the first outputs merged from the
 * front, the rest from the back, so two threads can share the merge. Both
 * make the one stable merge: on a tie the lower half's comes first. */
struct merge_part {
	const uint32_t *lo, *hi;
	size_t nlo, nhi, from_front; /* from_front outputs, or the rest */
	bool front;
	uint32_t *out;
	const struct order *o;
	bool by_value;
};

static void *merge_part(void *arg)
{
	const struct merge_part *m = arg;
	const struct order *o = m->o;
	size_t n = m->nlo + m->nhi;
	if (m->front) {
		size_t i = 0, j = 0;
		for (size_t k = 0; k < m->from_front; k++)
			m->out[k] = j == m->nhi || (i < m->nlo &&
						    cmp_ids(o, m->by_value, m->hi[j], m->lo[i]) >= 0)
					    ? m->lo[i++]
					    : m->hi[j++];
	} else {
		size_t i = m->nlo, j = m->nhi; /* past the last one not yet out */
		for (size_t k = n; k-- > m->from_front;)
			m->out[k] = i == 0 || (j > 0 &&
					       cmp_ids(o, m->by_value, m->hi[j - 1], m->lo[i - 1]) >= 0)
					    ? m->hi[--j]
					    : m->lo[--i];
	}
	return NULL;
}

/* Big tables are sorted as two halves on two threads, then merged on two
 * threads. From 8192 stacks a half's sort costs far more than a thread. */
#define PARALLEL_SORT_MIN 8192

/* false when out of memory. */
static bool sort_ids(uint32_t *ids, size_t n, const struct order *o, bool by_value)
{
	/* Input that is already in order (stackfold's output read by
	 * flamegraph) costs one pass instead of a sort. */
	size_t in_order = 1;
	while (in_order < n && cmp_ids(o, by_value, ids[in_order - 1], ids[in_order]) <= 0)
		in_order++;
	if (in_order >= n)
		return true;
	struct sort_half lo = { ids, n / 2, o, by_value, false };
	struct sort_half hi = { ids + n / 2, n - n / 2, o, by_value, false };
	pthread_t t;
	uint32_t *merged = n >= PARALLEL_SORT_MIN ? malloc(n * sizeof *merged) : NULL;
	if (!merged || pthread_create(&t, NULL, sort_half, &hi) != 0) {
		free(merged);
		struct sort_half all = { ids, n, o, by_value, false };
		sort_half(&all);
		return all.ok;
	}
	sort_half(&lo);
	pthread_join(t, NULL);
	if (!lo.ok || !hi.ok) {
		free(merged);
		return false;
	}
	struct merge_part front = { lo.ids, hi.ids, lo.n, hi.n, n / 2, true, merged, o, by_value };
	struct merge_part back = front;
	back.front = false;
	bool threaded = pthread_create(&t, NULL, merge_part, &back) == 0;
	if (!threaded)
		front.from_front = n;
	merge_part(&front);
	if (threaded)
		pthread_join(t, NULL);
	memcpy(ids, merged, n * sizeof *ids);
	free(merged);
	return true;
}

uint32_t *fk_stacks_sorted(const struct fk_stacks *s, enum fk_stacks_order order)
{
	uint32_t n = fk_stacks_count(s);
	uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
	struct order o = { .s = s, .flame = order == FK_ORDER_FLAME, .nframes = s->set.frames.count };
	bool ok = ids && rank_keys(&o) && rank_stacks(&o);
	for (uint32_t i = 0; ok && i < n; i++)
		ids[i] = i;
	ok = ok && sort_ids(ids, n, &o, order == FK_ORDER_VALUE);
	free(o.rank);
	free(o.ranked);
	free(o.ranked_at);
	free(o.tails);
	free(o.tail_at);
	if (!ok) {
		free(ids);
		return NULL;
	}
	return ids;
}
