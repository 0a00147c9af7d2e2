/* capload.c - reading a capture into struct fk_capture (see capload.h). */
#include "capload.h"

#include <stdlib.h>
#include <string.h>

static char *dup_bytes(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);
	if (s) {
		memcpy(s, p, n);
		s[n] = 0;
	}
	return s;
}

static bool grow(void **p, size_t *cap, size_t want, size_t size)
{
	if (want <= *cap)
		return true;
	size_t n = *cap ? *cap : 64;
	while (n < want)
		n *= 2;
	void *q = realloc(*p, n * size);
	if (!q)
		return false;
	*p = q;
	*cap = n;
	return true;
}

/* ---- per-chunk decoders ---- */

static bool meta(struct fk_capture *c, struct fk_cap_cursor *k)
{
	while (fk_cap_more(k)) {
		size_t kl, vl;
		const uint8_t *key = fk_cap_get_bytes(k, &kl), *val = fk_cap_get_bytes(k, &vl);
		if (!k->bad && kl == 7 && memcmp(key, "command", 7) == 0) {
			free(c->command);
			c->command = dup_bytes(val, vl);
		}
	}
	return !k->bad;
}

static bool modules(struct fk_capture *c, struct fk_cap_cursor *k)
{
	size_t cap = c->nmodules;
	while (fk_cap_more(k)) {
		struct fk_cap_module m = { 0 };
		size_t pl, bl;
		const uint8_t *path = fk_cap_get_bytes(k, &pl);
		m.start = fk_cap_get_uvarint(k);
		m.end = fk_cap_get_uvarint(k);
		m.bias = fk_cap_get_uvarint(k);
		const uint8_t *id = fk_cap_get_bytes(k, &bl);
		if (k->bad)
			break;
		/* A module seen before (same range and path) is kept once. */
		bool known = false;
		for (size_t i = 0; i < c->nmodules && !known; i++)
			known = c->modules[i].start == m.start && c->modules[i].end == m.end &&
				strlen(c->modules[i].path) == pl &&
				memcmp(c->modules[i].path, path, pl) == 0;
		if (known)
			continue;
		if (!grow((void **)&c->modules, &cap, c->nmodules + 1, sizeof *c->modules))
			return false;
		m.path = dup_bytes(path, pl);
		m.build_id = bl ? (uint8_t *)dup_bytes(id, bl) : NULL;
		m.build_id_len = bl;
		c->modules[c->nmodules++] = m;
	}
	return !k->bad;
}

static bool stacks(struct fk_capture *c, struct fk_cap_cursor *k, size_t *node_cap)
{
	uint64_t id = fk_cap_get_uvarint(k);
	while (fk_cap_more(k) && id > 0 && id < UINT32_MAX) {
		uint64_t parent = fk_cap_get_uvarint(k), ip = fk_cap_get_uvarint(k);
		if (k->bad || parent >= id)
			return false; /* a parent is always defined first */
		size_t cap_p = *node_cap, cap_i = *node_cap;
		if (!grow((void **)&c->parent, &cap_p, id + 1, sizeof *c->parent) ||
		    !grow((void **)&c->ip, &cap_i, id + 1, sizeof *c->ip))
			return false;
		if (cap_p != *node_cap) /* new room holds no nodes yet */
			memset(c->parent + *node_cap, 0, (cap_p - *node_cap) * sizeof *c->parent),
			memset(c->ip + *node_cap, 0, (cap_p - *node_cap) * sizeof *c->ip);
		*node_cap = cap_p;
		c->parent[id] = (uint32_t)parent;
		c->ip[id] = ip;
		if (id + 1 > c->nnodes)
			c->nnodes = id + 1;
		id++;
	}
	return !k->bad;
}

static bool threads(struct fk_capture *c, struct fk_cap_cursor *k)
{
	size_t cap = c->nthreads;
	while (fk_cap_more(k)) {
		uint64_t tid = fk_cap_get_uvarint(k);
		size_t nl;
		const uint8_t *name = fk_cap_get_bytes(k, &nl);
		if (k->bad)
			break;
		if (!grow((void **)&c->threads, &cap, c->nthreads + 1, sizeof *c->threads))
			return false;
		c->threads[c->nthreads].tid = (uint32_t)tid;
		c->threads[c->nthreads].name = dup_bytes(name, nl);
		c->nthreads++;
	}
	return !k->bad;
}

static size_t sum_hash(uint32_t tid, uint32_t node)
{
	uint64_t h = ((uint64_t)tid << 32 | node) * 0x9E3779B97F4A7C15u;
	return (size_t)(h >> 17);
}

static bool sums_grow(struct fk_capture *c)
{
	size_t cap = c->sums_cap ? c->sums_cap * 2 : 1024;
	struct fk_cap_sample_sum *t = calloc(cap, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; i < c->sums_cap; i++) {
		if (!c->sums[i].count)
			continue;
		size_t j = sum_hash(c->sums[i].tid, c->sums[i].node) & (cap - 1);
		while (t[j].count)
			j = (j + 1) & (cap - 1);
		t[j] = c->sums[i];
	}
	free(c->sums);
	c->sums = t;
	c->sums_cap = cap;
	return true;
}

static bool add_sample(struct fk_capture *c, uint32_t tid, uint32_t node, uint64_t weight)
{
	if ((c->nsums + 1) * 2 > c->sums_cap && !sums_grow(c))
		return false;
	size_t i = sum_hash(tid, node) & (c->sums_cap - 1);
	while (c->sums[i].count && (c->sums[i].tid != tid || c->sums[i].node != node))
		i = (i + 1) & (c->sums_cap - 1);
	if (!c->sums[i].count) {
		c->sums[i] = (struct fk_cap_sample_sum){ tid, node, 0, 0 };
		c->nsums++;
	}
	c->sums[i].weight += weight;
	c->sums[i].count++;
	return true;
}

static void saw_time(struct fk_capture *c, uint64_t t)
{
	if (!c->first_t_ns || t < c->first_t_ns)
		c->first_t_ns = t;
	if (t > c->last_t_ns)
		c->last_t_ns = t;
}

static bool samples(struct fk_capture *c, struct fk_cap_cursor *k)
{
	uint64_t t = fk_cap_get_uvarint(k);
	while (fk_cap_more(k)) {
		uint64_t tid = fk_cap_get_uvarint(k), node = fk_cap_get_uvarint(k);
		uint64_t weight = fk_cap_get_uvarint(k);
		t += (uint64_t)fk_cap_get_svarint(k);
		if (k->bad)
			break;
		if (node >= c->nnodes && node != 0)
			c->missing_nodes++;
		if (!add_sample(c, (uint32_t)tid, (uint32_t)node, weight))
			return false;
		c->samples++;
		c->sample_weight += weight;
		saw_time(c, t);
	}
	return !k->bad;
}

static bool allocs(struct fk_capture *c, struct fk_cap_cursor *k)
{
	uint64_t t = fk_cap_get_uvarint(k);
	while (fk_cap_more(k)) {
		struct fk_cap_alloc a = { 0 };
		a.kind = fk_cap_get_u8(k);
		t += (uint64_t)fk_cap_get_svarint(k);
		a.t_ns = t;
		a.tid = (uint32_t)fk_cap_get_uvarint(k);
		a.addr = fk_cap_get_uvarint(k);
		if (a.kind == FK_CAP_ALLOC) {
			a.size = fk_cap_get_uvarint(k);
			a.node = (uint32_t)fk_cap_get_uvarint(k);
		} else if (a.kind != FK_CAP_FREE) {
			k->bad = true;
		}
		if (k->bad)
			break;
		if (!grow((void **)&c->allocs, &c->allocs_cap, c->nallocs + 1, sizeof *c->allocs))
			return false;
		c->allocs[c->nallocs++] = a;
		saw_time(c, t);
	}
	return !k->bad;
}

struct load_ctx {
	struct fk_capture *c;
	size_t node_cap;
	bool nomem;
};

static bool on_chunk(void *ctx, uint16_t type, uint64_t seq, const uint8_t *p, size_t n)
{
	(void)seq;
	struct load_ctx *l = ctx;
	struct fk_capture *c = l->c;
	struct fk_cap_cursor k = { p, p + n, false };
	bool ok = true;
	switch (type) {
	case FK_CAP_META: ok = meta(c, &k); break;
	case FK_CAP_MODULES: ok = modules(c, &k); break;
	case FK_CAP_STACKS: ok = stacks(c, &k, &l->node_cap); break;
	case FK_CAP_THREADS: ok = threads(c, &k); break;
	case FK_CAP_SAMPLES: ok = samples(c, &k); break;
	case FK_CAP_ALLOCS: ok = allocs(c, &k); break;
	case FK_CAP_DROPS:
		while (fk_cap_more(&k)) {
			fk_cap_get_uvarint(&k);
			c->dropped_samples += fk_cap_get_uvarint(&k);
			c->dropped_events += fk_cap_get_uvarint(&k);
		}
		break;
	case FK_CAP_CLOCK: {
		uint64_t mono = fk_cap_get_uvarint(&k), real = fk_cap_get_uvarint(&k);
		if (!k.bad)
			c->real_minus_mono = real - mono;
		break;
	}
	case FK_CAP_END:
		fk_cap_get_uvarint(&k), fk_cap_get_uvarint(&k), fk_cap_get_uvarint(&k);
		c->end_untracked = fk_cap_get_uvarint(&k);
		break;
	default: /* GPU and later chunk types: not read here */
		break;
	}
	if (!ok || k.bad)
		c->bad_records++;
	return true;
}

bool fk_capture_load(const char *path, const char *name, struct fk_capture *c,
		     struct fk_diag *d)
{
	memset(c, 0, sizeof *c);
	struct load_ctx l = { c, 0, false };
	if (!fk_cap_read(path, name, &c->hdr, on_chunk, &l, &c->status, d))
		return false;
	if (!c->real_minus_mono)
		c->real_minus_mono = c->hdr.start_real_ns - c->hdr.start_mono_ns;
	if (c->bad_records)
		fk_diag_warn(d, "%s: %llu chunk%s did not decode (skipped in part)", name,
			     (unsigned long long)c->bad_records, c->bad_records == 1 ? "" : "s");
	return true;
}

void fk_capture_free(struct fk_capture *c)
{
	free(c->command);
	for (size_t i = 0; i < c->nmodules; i++) {
		free(c->modules[i].path);
		free(c->modules[i].build_id);
	}
	free(c->modules);
	free(c->parent);
	free(c->ip);
	for (size_t i = 0; i < c->nthreads; i++)
		free(c->threads[i].name);
	free(c->threads);
	free(c->sums);
	free(c->allocs);
	memset(c, 0, sizeof *c);
}
