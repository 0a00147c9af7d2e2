/* chunksort.c - multikey quicksort of ids by byte strings (see chunksort.h). */
#include "analysis/core/chunksort.h"

#include <stdlib.h>

#include "formats/grow.h"

/* Below this, insertion sort: partitioning costs more than it saves. */
#define SMALL 32

uint64_t fk_chunk_of(const unsigned char *p, size_t n)
{
	uint64_t w = 0;
	for (size_t i = 0; i < n && i < 7; i++)
		w |= (uint64_t)p[i] << (56 - 8 * i);
	return w | (n < 7 ? n : 7);
}

static bool ended(uint64_t chunk)
{
	return (chunk & 0xff) < 7;
}

/* A group of ids whose strings agree before depth; keys[] holds their
 * chunks at depth when ready. */
struct group {
	size_t start, n, depth;
	bool ready;
};

struct sorter {
	uint32_t *ids;
	uint64_t *keys;
	fk_chunk_fn chunk;
	fk_bytes_fn bytes;
	const void *ctx;
	struct group *todo;
	size_t ntodo, cap;
	uint64_t rand;
};

static bool push(struct sorter *s, size_t start, size_t n, size_t depth, bool ready)
{
	if (n < 2)
		return true;
	if (!FK_GROW(s->todo, s->cap, s->ntodo + 1, 64))
		return false;
	s->todo[s->ntodo++] = (struct group){ start, n, depth, ready };
	return true;
}

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* Strings from depth on, then ids. */
static int cmp_from(const struct sorter *s, uint32_t a, uint32_t b, size_t depth)
{
	if (s->bytes) { /* the bytes both have, in one streaming compare */
		const unsigned char *p, *q;
		size_t m = s->bytes(s->ctx, a, &p), n = s->bytes(s->ctx, b, &q);
		if (m > n)
			m = n;
		if (m > depth) {
			int c = __builtin_memcmp(p + depth, q + depth, m - depth);
			if (c)
				return c;
			depth = m;
		}
	}
	for (;; depth += 7) {
		uint64_t x = s->chunk(s->ctx, a, depth), y = s->chunk(s->ctx, b, depth);
		if (x != y)
			return x < y ? -1 : 1;
		if (ended(x))
			return (a > b) - (a < b);
	}
}

static void insertion_sort(const struct sorter *s, uint32_t *ids, size_t n, size_t depth)
{
	for (size_t i = 1; i < n; i++) {
		uint32_t v = ids[i];
		size_t j = i;
		for (; j > 0 && cmp_from(s, ids[j - 1], v, depth) > 0; j--)
			ids[j] = ids[j - 1];
		ids[j] = v;
	}
}

static size_t random_below(struct sorter *s, size_t n)
{
	/* xorshift64: pivots that do not follow the input's order (sorted or
	 * reversed input is no worst case), the same every run (the result
	 * does not depend on them, only the time). */
	s->rand ^= s->rand << 13;
	s->rand ^= s->rand >> 7;
	s->rand ^= s->rand << 17;
	return (size_t)(s->rand % n);
}

static uint64_t median3(uint64_t a, uint64_t b, uint64_t c)
{
	if (a > b) {
		uint64_t t = a;
		a = b;
		b = t;
	}
	return c <= a ? a : c >= b ? b : c;
}

static void swap(struct sorter *s, size_t i, size_t j)
{
	uint32_t id = s->ids[i];
	s->ids[i] = s->ids[j];
	s->ids[j] = id;
	uint64_t k = s->keys[i];
	s->keys[i] = s->keys[j];
	s->keys[j] = k;
}

/* Where the strings of ids[0..n) first differ, or the first of them ends,
 * at or after depth (they agree before it). */
static size_t common_prefix(const struct sorter *s, const uint32_t *ids, size_t n, size_t depth)
{
	const unsigned char *first;
	size_t common = s->bytes(s->ctx, ids[0], &first);
	for (size_t i = 1; i < n && common > depth; i++) {
		const unsigned char *p;
		size_t len = s->bytes(s->ctx, ids[i], &p), at = depth;
		if (len < common)
			common = len;
		while (at + 8 <= common && __builtin_memcmp(first + at, p + at, 8) == 0)
			at += 8;
		while (at < common && first[at] == p[at])
			at++;
		common = at;
	}
	return common > depth ? common : depth;
}

/* Splits a group three ways by its chunks at depth: below, equal (on to
 * the next 7 bytes, or sorted by id when the strings ended), above. */
static bool split(struct sorter *s, struct group g)
{
	uint32_t *ids = s->ids + g.start;
	uint64_t *keys = s->keys + g.start;
	if (!g.ready)
		for (size_t i = 0; i < g.n; i++)
			keys[i] = s->chunk(s->ctx, ids[i], g.depth);
	uint64_t pivot = median3(keys[random_below(s, g.n)], keys[random_below(s, g.n)],
				 keys[random_below(s, g.n)]);
	size_t lt = g.start, i = g.start, gt = g.start + g.n;
	while (i < gt) {
		uint64_t k = s->keys[i];
		if (k < pivot)
			swap(s, i++, lt++);
		else if (k > pivot)
			swap(s, i, --gt);
		else
			i++;
	}
	size_t next = g.depth + 7;
	if (s->bytes && gt - lt >= SMALL)
		next = common_prefix(s, s->ids + lt, gt - lt, next);
	if (ended(pivot))
		qsort(s->ids + lt, gt - lt, sizeof *s->ids, cmp_id);
	else if (!push(s, lt, gt - lt, next, false))
		return false;
	return push(s, g.start, lt - g.start, g.depth, true) &&
	       push(s, gt, g.start + g.n - gt, g.depth, true);
}

bool fk_chunk_sort(uint32_t *ids, size_t n, fk_chunk_fn chunk, fk_bytes_fn bytes,
		   const void *ctx)
{
	if (n < SMALL) {
		struct sorter s = { .chunk = chunk, .ctx = ctx };
		insertion_sort(&s, ids, n, 0);
		return true;
	}
	struct sorter s = { .ids = ids, .keys = malloc(n * sizeof *s.keys), .chunk = chunk,
			    .bytes = bytes, .ctx = ctx, .rand = 0x9E3779B97F4A7C15u };
	bool ok = s.keys && push(&s, 0, n, 0, false);
	while (ok && s.ntodo) {
		struct group g = s.todo[--s.ntodo];
		if (g.n < SMALL)
			insertion_sort(&s, ids + g.start, g.n, g.depth);
		else
			ok = split(&s, g);
	}
	free(s.keys);
	free(s.todo);
	return ok;
}
