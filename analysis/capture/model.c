/* model.c - reading a capture into struct fk_capture (see model.h). */
#include "analysis/capture/model.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/bsearch.h"
#include "formats/grow.h"
#include "formats/input.h"
#include "analysis/capture/windows.h"

static char *dup_bytes(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);
	if (s) {
		memcpy(s, p, n);
		s[n] = 0;
	}
	return s;
}

/* ---- per-chunk decoders ---- */

static bool key_is(const uint8_t *key, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(key, want, len) == 0;
}

/* A META count: its leading digits (a count past 64 bits stops growing). */
static uint64_t decimal(const uint8_t *val, size_t vl)
{
	uint64_t n = 0;
	for (size_t i = 0; i < vl && val[i] >= '0' && val[i] <= '9' && n <= (UINT64_MAX - 9) / 10; i++)
		n = n * 10 + (uint64_t)(val[i] - '0');
	return n;
}

static bool meta(struct fk_capture *c, struct fk_cap_cursor *k)
{
	while (fk_cap_more(k)) {
		size_t kl, vl;
		const uint8_t *key = fk_cap_get_bytes(k, &kl), *val = fk_cap_get_bytes(k, &vl);
		if (k->bad)
			break;
		if (key_is(key, kl, "command")) {
			free(c->command);
			c->command = dup_bytes(val, vl);
		} else if (key_is(key, kl, "gpu")) {
			free(c->gpu_status);
			c->gpu_status = dup_bytes(val, vl);
		} else if (key_is(key, kl, "gpu_clock")) {
			c->gpu_monotonic = key_is(val, vl, "monotonic");
		} else if (key_is(key, kl, "alloc_waits")) {
			c->alloc_waits = decimal(val, vl);
		} else if (key_is(key, kl, "python")) {
			free(c->python_status);
			c->python_status = dup_bytes(val, vl);
		} else if (key_is(key, kl, "cwd")) {
			free(c->cwd);
			c->cwd = dup_bytes(val, vl);
		} else if (key_is(key, kl, "unwind")) {
			free(c->unwinder);
			c->unwinder = dup_bytes(val, vl);
		} else if (key_is(key, kl, "window")) {
			free(c->window_spec);
			c->window_spec = dup_bytes(val, vl);
		} else if (key_is(key, kl, "python_faults")) {
			c->python_faults = decimal(val, vl);
		} else if (key_is(key, kl, "unwind_fallbacks")) {
			c->unwind_fallbacks = decimal(val, vl);
		}
	}
	return !k->bad;
}

/* ---- Python frames ---- */

static int python_frame_cmp(const void *key, const void *element)
{
	uint64_t id = *(const uint64_t *)key, other = ((const struct fk_cap_python_frame *)element)->id;
	return (id > other) - (id < other);
}

const struct fk_cap_python_frame *fk_capture_python_frame(const struct fk_capture *c, uint64_t id)
{
	size_t at = fk_lower_bound(c->pyframes, c->npyframes, sizeof *c->pyframes, &id,
				   python_frame_cmp);
	return at < c->npyframes && c->pyframes[at].id == id ? &c->pyframes[at] : NULL;
}

/* Frames are appended as read; *unsorted is set when one does not follow
 * the last in id order (then pyframes_sort puts them in order). */
static bool pyframes(struct fk_capture *c, struct fk_cap_cursor *k, bool *unsorted)
{
	struct fk_cap_pyframe f;
	while (fk_cap_more(k) && fk_cap_get_pyframe(k, &f)) {
		if (c->npyframes && c->pyframes[c->npyframes - 1].id >= f.id)
			*unsorted = true;
		if (!FK_GROW(c->pyframes, c->pyframes_cap, c->npyframes + 1, 256))
			return false;
		struct fk_cap_python_frame d = {
			f.id, dup_bytes(f.file, f.file_len), dup_bytes(f.qualname, f.qualname_len),
			dup_bytes(f.name, f.name_len), f.first_line, f.line, c->npyframes,
		};
		if (!d.file || !d.qualname || !d.name) {
			free(d.file), free(d.qualname), free(d.name);
			return false;
		}
		c->pyframes[c->npyframes++] = d;
	}
	return !k->bad;
}

static int by_id_then_order(const void *x, const void *y)
{
	const struct fk_cap_python_frame *a = x, *b = y;
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->order > b->order) - (a->order < b->order);
}

static void free_pyframe(struct fk_cap_python_frame *f)
{
	free(f->file);
	free(f->qualname);
	free(f->name);
}

/* In id order (one sort, however they came); an id defined again is a bad
 * record: the first definition read stays. */
static void pyframes_sort(struct fk_capture *c)
{
	if (c->npyframes) /* none: no array */
		qsort(c->pyframes, c->npyframes, sizeof *c->pyframes, by_id_then_order);
	size_t kept = 0;
	for (size_t i = 0; i < c->npyframes; i++) {
		if (kept && c->pyframes[kept - 1].id == c->pyframes[i].id) {
			free_pyframe(&c->pyframes[i]);
			c->bad_records++;
			continue;
		}
		c->pyframes[kept++] = c->pyframes[i];
	}
	c->npyframes = kept;
}

/* Stack nodes naming Python frames no chunk defined (a damaged or missing
 * PYFRAMES chunk): they read "[lost python frame]". */
static uint64_t count_missing_pyframes(const struct fk_capture *c)
{
	uint64_t n = 0;
	for (size_t i = 1; i < c->nnodes; i++)
		if ((c->ip[i] & FK_CAP_IP_PYTHON) &&
		    !fk_capture_python_frame(c, c->ip[i] & ~FK_CAP_IP_PYTHON))
			n++;
	return n;
}

/* ---- CUDA ---- */

static bool gpu_api(struct fk_capture *c, struct fk_cap_cursor *k)
{
	uint64_t t = fk_cap_get_uvarint(k);
	while (fk_cap_more(k)) {
		uint8_t tag = fk_cap_get_u8(k);
		if (tag == FK_CAP_API_LINK) {
			uint64_t driver = fk_cap_get_uvarint(k), runtime = fk_cap_get_uvarint(k);
			if (k->bad)
				break;
			if (!FK_GROW(c->links, c->links_cap, c->nlinks + 1, 64))
				return false;
			c->links[c->nlinks][0] = (uint32_t)driver;
			c->links[c->nlinks][1] = (uint32_t)runtime;
			c->nlinks++;
			continue;
		}
		if (tag == FK_CAP_API_GRAPH_NODE || tag == FK_CAP_API_GRAPH_CLONE) {
			struct fk_cap_graph_node g = { 0 };
			g.id = fk_cap_get_uvarint(k);
			if (tag == FK_CAP_API_GRAPH_CLONE) {
				g.original = fk_cap_get_uvarint(k);
			} else {
				g.tid = (uint32_t)fk_cap_get_uvarint(k);
				g.node = (uint32_t)fk_cap_get_uvarint(k);
			}
			if (k->bad)
				break;
			if (!FK_GROW(c->graph, c->graph_cap, c->ngraph + 1, 64))
				return false;
			c->graph[c->ngraph++] = g;
			continue;
		}
		if (tag != FK_CAP_API_CALL) {
			k->bad = true;
			break;
		}
		struct fk_cap_api a = { 0 };
		a.tid = (uint32_t)fk_cap_get_uvarint(k);
		a.corr = (uint32_t)fk_cap_get_uvarint(k);
		a.domain = fk_cap_get_u8(k);
		a.cbid = (uint32_t)fk_cap_get_uvarint(k);
		a.node = (uint32_t)fk_cap_get_uvarint(k);
		t += (uint64_t)fk_cap_get_svarint(k);
		a.t_ns = t;
		if (k->bad)
			break;
		if (!FK_GROW(c->apis, c->apis_cap, c->napis + 1, 64))
			return false;
		c->apis[c->napis++] = a;
	}
	return !k->bad;
}

/* Kernel names are numbered 1, 2, ... in the order the shim first met
 * them, each defined before its first use: a new id passes the last one
 * only by what lost chunks could have defined, so a damaged id cannot make
 * the name table huge (as for stack nodes below). */
#define NAMES_PER_CHUNK_MAX (FK_CAP_CHUNK_MAX / 2)

static bool gpu_kernels(struct fk_capture *c, struct fk_cap_cursor *k, uint64_t lost)
{
	while (fk_cap_more(k)) {
		uint8_t tag = fk_cap_get_u8(k);
		struct fk_cap_gpu_op op = { .tag = tag };
		switch (tag) {
		case FK_CAP_GPU_NAME: {
			uint64_t id = fk_cap_get_uvarint(k);
			size_t len;
			const uint8_t *name = fk_cap_get_bytes(k, &len);
			if (k->bad || id == 0 || id > UINT32_MAX)
				return false;
			uint64_t first = c->nnames ? c->nnames : 1;
			if (id > first && id - first > lost * NAMES_PER_CHUNK_MAX)
				return false;
			if (id >= c->nnames) {
				if (!FK_RESIZE(c->names, id + 1))
					return false;
				memset(c->names + c->nnames, 0, (id + 1 - c->nnames) * sizeof *c->names);
				c->nnames = id + 1;
			}
			free(c->names[id]);
			c->names[id] = dup_bytes(name, len);
			continue;
		}
		case FK_CAP_GPU_KERNEL:
			op.corr = (uint32_t)fk_cap_get_uvarint(k);
			op.device = (uint32_t)fk_cap_get_uvarint(k);
			op.stream = (uint32_t)fk_cap_get_uvarint(k);
			op.start = fk_cap_get_uvarint(k);
			op.dur = fk_cap_get_uvarint(k);
			op.name = (uint32_t)fk_cap_get_uvarint(k);
			op.graph_node = fk_cap_get_uvarint(k);
			break;
		case FK_CAP_GPU_MEMCPY:
			op.corr = (uint32_t)fk_cap_get_uvarint(k);
			op.runtime_corr = (uint32_t)fk_cap_get_uvarint(k);
			op.device = (uint32_t)fk_cap_get_uvarint(k);
			op.stream = (uint32_t)fk_cap_get_uvarint(k);
			op.start = fk_cap_get_uvarint(k);
			op.dur = fk_cap_get_uvarint(k);
			op.bytes = fk_cap_get_uvarint(k);
			op.copy_kind = fk_cap_get_u8(k);
			break;
		case FK_CAP_GPU_MEMSET:
			op.corr = (uint32_t)fk_cap_get_uvarint(k);
			op.device = (uint32_t)fk_cap_get_uvarint(k);
			op.stream = (uint32_t)fk_cap_get_uvarint(k);
			op.start = fk_cap_get_uvarint(k);
			op.dur = fk_cap_get_uvarint(k);
			op.bytes = fk_cap_get_uvarint(k);
			break;
		case FK_CAP_GPU_SYNC:
			op.corr = (uint32_t)fk_cap_get_uvarint(k);
			op.start = fk_cap_get_uvarint(k);
			op.dur = fk_cap_get_uvarint(k);
			fk_cap_get_u8(k);
			break;
		case FK_CAP_GPU_OVERHEAD:
			fk_cap_get_uvarint(k), fk_cap_get_uvarint(k), fk_cap_get_uvarint(k);
			continue;
		case FK_CAP_GPU_DROPPED:
			c->gpu_dropped += fk_cap_get_uvarint(k);
			continue;
		case FK_CAP_GPU_NO_TIMESTAMP:
			c->gpu_no_timestamp += fk_cap_get_uvarint(k);
			continue;
		default:
			k->bad = true;
		}
		if (k->bad)
			break;
		if (!FK_GROW(c->ops, c->ops_cap, c->nops + 1, 64))
			return false;
		c->ops[c->nops++] = op;
	}
	return !k->bad;
}

static bool nvtx(struct fk_capture *c, struct fk_cap_cursor *k)
{
	uint64_t t = fk_cap_get_uvarint(k);
	while (fk_cap_more(k)) {
		struct fk_cap_nvtx v = { 0 };
		v.op = fk_cap_get_u8(k);
		v.tid = (uint32_t)fk_cap_get_uvarint(k);
		t += (uint64_t)fk_cap_get_svarint(k);
		v.t_ns = t;
		v.id = fk_cap_get_uvarint(k);
		size_t len;
		const uint8_t *name = fk_cap_get_bytes(k, &len);
		if (k->bad || v.op < FK_CAP_NVTX_PUSH || v.op > FK_CAP_NVTX_END) {
			k->bad = true;
			break;
		}
		if (!FK_GROW(c->nvtx, c->nvtx_cap, c->nnvtx + 1, 64))
			return false;
		if (v.op != FK_CAP_NVTX_POP && v.op != FK_CAP_NVTX_END)
			v.name = dup_bytes(name, len);
		c->nvtx[c->nnvtx++] = v;
	}
	return !k->bad;
}

static bool gpu_memory(struct fk_capture *c, struct fk_cap_cursor *k)
{
	while (fk_cap_more(k)) {
		struct fk_cap_gpu_mem m = { 0 };
		bool host = false;
		m.kind = fk_cap_get_u8(k);
		if (m.kind == FK_CAP_POOL) {
			m.device = (uint32_t)fk_cap_get_uvarint(k);
			m.addr = fk_cap_get_uvarint(k);
			m.pool_op = fk_cap_get_u8(k);
			m.bytes = fk_cap_get_uvarint(k);
			m.t = fk_cap_get_uvarint(k);
		} else {
			m.corr = (uint32_t)fk_cap_get_uvarint(k);
			m.device = (uint32_t)fk_cap_get_uvarint(k);
			m.addr = fk_cap_get_uvarint(k);
			m.bytes = fk_cap_get_uvarint(k);
			m.t = fk_cap_get_uvarint(k);
			uint8_t memory_kind = fk_cap_get_u8(k);
			host = memory_kind == FK_CAP_MEM_PAGEABLE || memory_kind == FK_CAP_MEM_PINNED;
			m.async = fk_cap_get_u8(k);
		}
		if (k->bad || m.kind < FK_CAP_ALLOC || m.kind > FK_CAP_POOL) {
			k->bad = true;
			break;
		}
		if (host) { /* cudaMallocHost and the like: counted, not GPU memory */
			c->cuda_host_allocs += m.kind == FK_CAP_ALLOC;
			c->cuda_host_bytes += m.kind == FK_CAP_ALLOC ? m.bytes : 0;
			continue;
		}
		if (!FK_GROW(c->gmem, c->gmem_cap, c->ngmem + 1, 64))
			return false;
		c->gmem[c->ngmem++] = m;
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
		if (!FK_GROW(c->modules, cap, c->nmodules + 1, 64))
			return false;
		m.path = dup_bytes(path, pl);
		m.build_id = bl ? (uint8_t *)dup_bytes(id, bl) : NULL;
		m.build_id_len = bl;
		c->modules[c->nmodules++] = m;
	}
	return !k->bad;
}

/* A chunk holds at most this many nodes (each is two varints, 2+ bytes). */
#define NODES_PER_CHUNK_MAX (FK_CAP_CHUNK_MAX / 2)

/* Nodes continue where the last STACKS chunk stopped: a chunk may start
 * further on only by what the chunks lost before it could have defined
 * (lost: how many), so a damaged id cannot make the tables huge. */
static bool stacks(struct fk_capture *c, struct fk_cap_cursor *k, size_t *node_cap, uint64_t lost)
{
	uint64_t id = fk_cap_get_uvarint(k);
	uint64_t first = c->nnodes ? c->nnodes : 1;
	if (id > first && id - first > lost * NODES_PER_CHUNK_MAX)
		return false;
	while (fk_cap_more(k) && id > 0 && id < UINT32_MAX) {
		uint64_t parent = fk_cap_get_uvarint(k), ip = fk_cap_get_uvarint(k);
		if (k->bad || parent >= id)
			return false; /* a parent is always defined first */
		size_t cap_p = *node_cap, cap_i = *node_cap;
		if (!FK_GROW(c->parent, cap_p, id + 1, 64) || !FK_GROW(c->ip, cap_i, id + 1, 64))
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
		if (!FK_GROW(c->threads, cap, c->nthreads + 1, 64))
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
		if (node < c->nnodes && c->ip[node] == FK_CAP_IP_UNSAMPLED)
			c->unsampled_weight += weight;
		saw_time(c, t);
		if (c->keep_samples) {
			if (!FK_GROW(c->raw, c->raw_cap, c->nraw + 1, 64))
				return false;
			c->raw[c->nraw++] = (struct fk_cap_sample){ t, (uint32_t)tid, (uint32_t)node,
								   (uint32_t)weight };
		}
	}
	return !k->bad;
}

/* Records of the NEAR kinds (on the thread of the one before, their
 * address relative to its) are read as the plain kinds. */
static bool allocs(struct fk_capture *c, struct fk_cap_cursor *k)
{
	uint64_t t = fk_cap_get_uvarint(k), tid = 0, addr = 0;
	bool any = false;
	while (fk_cap_more(k)) {
		struct fk_cap_alloc a = { 0 };
		uint8_t kind = fk_cap_get_u8(k);
		bool near = kind == FK_CAP_ALLOC_NEAR || kind == FK_CAP_FREE_NEAR;
		a.kind = near ? (uint8_t)(kind - (FK_CAP_ALLOC_NEAR - FK_CAP_ALLOC)) : kind;
		t += (uint64_t)fk_cap_get_svarint(k);
		a.t_ns = t;
		if (near) {
			k->bad |= !any; /* nothing before it to be near */
			addr += (uint64_t)fk_cap_get_svarint(k);
		} else {
			tid = fk_cap_get_uvarint(k);
			addr = fk_cap_get_uvarint(k);
		}
		a.tid = (uint32_t)tid;
		a.addr = addr;
		any = true;
		if (a.kind == FK_CAP_ALLOC) {
			a.size = fk_cap_get_uvarint(k);
			a.node = (uint32_t)fk_cap_get_uvarint(k);
		} else if (a.kind != FK_CAP_FREE) {
			k->bad = true;
		}
		if (k->bad)
			break;
		if (!FK_GROW(c->allocs, c->allocs_cap, c->nallocs + 1, 64))
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
	uint64_t next_seq;     /* the sequence number the next chunk should have */
	bool pyframes_unsorted;
	uint64_t last_cycle;   /* the latest cycle_time() read */
	bool in_loss;          /* records were lost since last_cycle */
};

/* The base time of a chunk that opens a writer cycle's records (SAMPLES,
 * ALLOCS: the cycle's start; CLOCK: the last cycle's end), else 0. Every
 * record of an earlier cycle is older than a later cycle's base, so the
 * first such time past the one before a loss bounds what was lost. */
static uint64_t cycle_time(uint16_t type, const uint8_t *p, size_t n)
{
	if (type != FK_CAP_SAMPLES && type != FK_CAP_ALLOCS && type != FK_CAP_CLOCK)
		return 0;
	struct fk_cap_cursor k = { p, p + n, false };
	uint64_t t = fk_cap_get_uvarint(&k);
	return k.bad ? 0 : t;
}

static void loss_begins(struct load_ctx *l)
{
	l->in_loss = true;
	l->c->loss_until_ns = UINT64_MAX; /* until a later cycle says when it ended */
}

static bool on_chunk(void *ctx, uint16_t type, uint64_t seq, const uint8_t *p, size_t n)
{
	struct load_ctx *l = ctx;
	uint64_t lost = seq > l->next_seq ? seq - l->next_seq : 0; /* chunks missing before this */
	l->next_seq = seq + 1;
	struct fk_capture *c = l->c;
	struct fk_cap_cursor k = { p, p + n, false };
	bool ok = true;
	if (lost)
		loss_begins(l);
	uint64_t cycle = cycle_time(type, p, n);
	if (cycle > l->last_cycle) {
		if (l->in_loss)
			c->loss_until_ns = cycle;
		l->in_loss = false;
		l->last_cycle = cycle;
	}
	uint64_t dropped_events = c->dropped_events;
	switch (type) {
	case FK_CAP_META: ok = meta(c, &k); break;
	case FK_CAP_MODULES: ok = modules(c, &k); break;
	case FK_CAP_STACKS: ok = stacks(c, &k, &l->node_cap, lost); break;
	case FK_CAP_THREADS: ok = threads(c, &k); break;
	case FK_CAP_SAMPLES: ok = samples(c, &k); break;
	case FK_CAP_ALLOCS: ok = allocs(c, &k); break;
	case FK_CAP_GPU_API: ok = gpu_api(c, &k); break;
	case FK_CAP_GPU_KERNELS: ok = gpu_kernels(c, &k, lost); break;
	case FK_CAP_GPU_MEMORY: ok = gpu_memory(c, &k); break;
	case FK_CAP_NVTX: ok = nvtx(c, &k); break;
	case FK_CAP_PYFRAMES: ok = pyframes(c, &k, &l->pyframes_unsorted); break;
	case FK_CAP_WINDOWS: ok = fk_cap_windows_chunk(c, &k); break;
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
	default: /* chunk types of later versions */
		break;
	}
	if (!ok || k.bad)
		c->bad_records++;
	if (c->dropped_events != dropped_events || (type == FK_CAP_ALLOCS && (!ok || k.bad)))
		loss_begins(l);
	return true;
}

bool fk_capture_load_input(struct fk_input *in, struct fk_capture *c, bool keep_samples,
			   struct fk_diag *d)
{
	const char *name = in->name;
	memset(c, 0, sizeof *c);
	c->keep_samples = keep_samples;
	struct load_ctx l = { .c = c };
	if (!fk_cap_read_input(in, &c->hdr, on_chunk, &l, &c->status, d))
		return false;
	if (!c->real_minus_mono)
		c->real_minus_mono = c->hdr.start_real_ns - c->hdr.start_mono_ns;
	if (l.pyframes_unsorted)
		pyframes_sort(c);
	c->missing_pyframes = count_missing_pyframes(c);
	if (!fk_cap_windows_finish(c)) {
		fk_diag_error(d, "out of memory");
		fk_capture_free(c);
		return false;
	}
	if (c->bad_records)
		fk_diag_warn(d, "%s: %llu chunk%s did not decode (skipped in part)", name,
			     (unsigned long long)c->bad_records, c->bad_records == 1 ? "" : "s");
	if (c->window_spec && !c->nwindows)
		fk_diag_note(d, "%s: the capture window (%s) never opened: nothing was recorded",
			     name, c->window_spec);
	/* Whatever reads a capture says what it lacks: its answers are partial. */
	char loss[400];
	if (fk_capture_loss(c, loss, sizeof loss)) {
		if (d->strict) {
			fk_diag_error(d, "%s: incomplete capture (--strict): %s", name, loss);
			fk_capture_free(c);
			return false;
		}
		fk_diag_note(d, "%s: incomplete capture: %s", name, loss);
	}
	return true;
}

/* Appends "; " and a formatted part to buf at *k, when there is room. */
static void add_part(char *buf, size_t n, int *k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void add_part(char *buf, size_t n, int *k, const char *fmt, ...)
{
	if (*k < 0 || (size_t)*k >= n)
		return;
	if (*k > 0)
		*k += snprintf(buf + *k, n - (size_t)*k, "; ");
	if (*k < 0 || (size_t)*k >= n)
		return;
	va_list ap;
	va_start(ap, fmt);
	*k += vsnprintf(buf + *k, n - (size_t)*k, fmt, ap);
	va_end(ap);
}

bool fk_capture_loss(const struct fk_capture *c, char *buf, size_t n)
{
	const struct fk_cap_status *st = &c->status;
	int k = 0;
	buf[0] = 0;
	if (!st->clean)
		add_part(buf, n, &k, "no END chunk (the program was killed, crashed or exec'd "
			 "without one, or is still running)");
	if (st->damaged)
		add_part(buf, n, &k, "%" PRIu64 " damaged chunk%s skipped (%" PRIu64 " bytes)",
			 st->damaged, st->damaged == 1 ? "" : "s", st->skipped_bytes);
	if (st->lost_seq)
		add_part(buf, n, &k, "%" PRIu64 " chunk%s missing", st->lost_seq,
			 st->lost_seq == 1 ? "" : "s");
	if (c->dropped_samples || c->dropped_events)
		add_part(buf, n, &k, "%" PRIu64 " samples and %" PRIu64 " events dropped (rings full)",
			 c->dropped_samples, c->dropped_events);
	if (c->gpu_dropped)
		add_part(buf, n, &k, "%" PRIu64 " GPU records dropped by CUPTI", c->gpu_dropped);
	if (c->missing_pyframes)
		add_part(buf, n, &k, "%" PRIu64 " stack frame%s name%s a Python frame no chunk "
			 "defined ([lost python frame])", c->missing_pyframes,
			 c->missing_pyframes == 1 ? "" : "s", c->missing_pyframes == 1 ? "s" : "");
	return k != 0;
}

static bool load(const char *path, const char *name, struct fk_capture *c, struct fk_diag *d,
		 bool keep_samples)
{
	struct fk_input in;
	if (!fk_input_open(&in, path, d))
		return false;
	in.name = name;
	bool ok = fk_capture_load_input(&in, c, keep_samples, d);
	fk_input_close(&in);
	return ok;
}

bool fk_capture_load(const char *path, const char *name, struct fk_capture *c,
		     struct fk_diag *d)
{
	return load(path, name, c, d, false);
}

bool fk_capture_load_samples(const char *path, const char *name, struct fk_capture *c,
			     struct fk_diag *d)
{
	return load(path, name, c, d, true);
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
	free(c->gpu_status);
	free(c->apis);
	free(c->links);
	free(c->graph);
	free(c->ops);
	free(c->gmem);
	for (size_t i = 0; i < c->nnames; i++)
		free(c->names[i]);
	free(c->names);
	for (size_t i = 0; i < c->nnvtx; i++)
		free(c->nvtx[i].name);
	free(c->nvtx);
	free(c->raw);
	free(c->python_status);
	free(c->cwd);
	free(c->unwinder);
	for (size_t i = 0; i < c->npyframes; i++)
		free_pyframe(&c->pyframes[i]);
	free(c->pyframes);
	free(c->window_spec);
	free(c->edges);
	free(c->windows);
	memset(c, 0, sizeof *c);
}

char *fk_capture_script_dir(const struct fk_capture *c)
{
	if (!c->command)
		return NULL;
	/* The first word after the program's own that ends in ".py". */
	const char *p = c->command + strcspn(c->command, " ");
	while (*p) {
		p += strspn(p, " ");
		size_t n = strcspn(p, " ");
		if (n > 3 && memcmp(p + n - 3, ".py", 3) == 0) {
			const char *slash = memrchr(p, '/', n);
			size_t dirlen = slash ? (size_t)(slash - p) : 0;
			bool relative = p[0] != '/';
			if (relative && !c->cwd)
				return NULL;
			size_t cwdlen = relative ? strlen(c->cwd) : 0;
			char *dir = malloc(cwdlen + 1 + dirlen + 1);
			if (!dir)
				return NULL;
			size_t k = 0;
			if (relative) {
				memcpy(dir, c->cwd, cwdlen);
				k = cwdlen;
				if (dirlen)
					dir[k++] = '/';
			}
			memcpy(dir + k, p, dirlen);
			dir[k + dirlen] = 0;
			return dir;
		}
		p += n;
	}
	return NULL;
}
