/* fold.c - what is made of a capture: folded stacks for a metric, the
 * host heap as memory events, and the info summary (see model.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/core/arena.h"
#include "analysis/capture/liveblocks.h"
#include "analysis/capture/model.h"
#include "analysis/capture/windows.h"
#include "analysis/sym/demangle.h"
#include "analysis/sym/symbolize.h"
#include "formats/bsearch.h"
#include "formats/grow.h"

bool fk_cap_metric_parse(const char *name, enum fk_cap_metric *m)
{
	static const struct { const char *name; enum fk_cap_metric m; } names[] = {
		{ "self_cpu_time_total", FK_METRIC_SELF_CPU },
		{ "samples", FK_METRIC_SAMPLES },
		{ "alloc_bytes", FK_METRIC_ALLOC_BYTES },
		{ "alloc_count", FK_METRIC_ALLOC_COUNT },
		{ "self_cuda_time_total", FK_METRIC_SELF_CUDA },
		{ "self_device_time_total", FK_METRIC_SELF_CUDA }, /* torch >= 2.4's name */
		{ "gpu_alloc_bytes", FK_METRIC_GPU_ALLOC_BYTES },
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (strcmp(name, names[i].name) == 0) {
			*m = names[i].m;
			return true;
		}
	return false;
}

const char *fk_cap_metric_name(enum fk_cap_metric m)
{
	static const char *const names[] = {
		[FK_METRIC_SELF_CPU] = "self_cpu_time_total",
		[FK_METRIC_SAMPLES] = "samples",
		[FK_METRIC_ALLOC_BYTES] = "alloc_bytes",
		[FK_METRIC_ALLOC_COUNT] = "alloc_count",
		[FK_METRIC_SELF_CUDA] = "self_cuda_time_total",
		[FK_METRIC_GPU_ALLOC_BYTES] = "gpu_alloc_bytes",
	};
	return names[m];
}

const char *fk_capture_lacks(const struct fk_capture *c, enum fk_cap_metric m)
{
	switch (m) {
	case FK_METRIC_SELF_CUDA:
		return c->nops ? NULL : "no GPU kernels, copies or sets (a run without CUDA, "
					"or CUPTI could not start: see stackcap info)";
	case FK_METRIC_GPU_ALLOC_BYTES:
		return c->ngmem ? NULL : "no GPU allocations";
	case FK_METRIC_ALLOC_BYTES:
	case FK_METRIC_ALLOC_COUNT:
		/* Traced, but none made (or, sampled, none kept): an empty fold. */
		return c->nallocs || (c->hdr.flags & FK_CAP_HDR_ALLOCS)
			       ? NULL
			       : "no allocations (record them with stackcap --alloc)";
	case FK_METRIC_SELF_CPU:
	case FK_METRIC_SAMPLES:
		break;
	}
	return NULL;
}

/* ---- stack texts, one per prefix-tree node, memoized ---- */

struct texts {
	const struct fk_capture *c;
	const struct fk_py_opts *py;
	struct fk_py_opts py_own; /* the options, the script's directory added */
	char *script_dir;
	struct fk_symbolizer *sym;
	struct fk_arena arena;
	const char **text; /* per node; NULL until made */
	uint32_t *len;
	/* per node: 1 + the length of its text through its innermost Python
	 * frame; 0 when it has none (what --python-only keeps of it) */
	uint32_t *py_end;
	char *frame;       /* one Python frame's text */
	size_t frame_cap;
	char *scratch;
	size_t scratch_len, scratch_cap;
	bool nomem;
};

static void scratch_add(struct texts *t, const char *p, size_t n)
{
	if (!FK_GROW(t->scratch, t->scratch_cap, t->scratch_len + n + 1, 4096)) {
		t->nomem = true;
		return;
	}
	memcpy(t->scratch + t->scratch_len, p, n);
	t->scratch_len += n;
}

static void on_frame(void *ctx, const char *text, size_t len)
{
	struct texts *t = ctx;
	if (t->scratch_len)
		scratch_add(t, ";", 1);
	scratch_add(t, text, len);
}

/* A module not found, or not the capture's (a capture read on another
 * machine): its frames read "lib.so+0x...". Said once (each fold of the
 * capture opens the modules again), not counted as a bad line: nothing of
 * the input is skipped. */
static void on_sym_warning(void *ctx, const char *message)
{
	fk_diag_note_once(ctx, message);
}

static bool texts_open(struct texts *t, const struct fk_capture *c, unsigned sym_flags,
		       const struct fk_py_opts *py, struct fk_diag *d)
{
	memset(t, 0, sizeof *t);
	t->c = c;
	t->py = py;
	/* torch strips sys.path's prefixes, the script's directory first among
	 * them: so do Python frames of the script and its neighbours. */
	t->script_dir = fk_capture_script_dir(c);
	if (t->script_dir && !py->full_paths && py->nprefix < FK_PY_PREFIX_MAX) {
		t->py_own = *py;
		t->py_own.prefix[t->py_own.nprefix++] = t->script_dir;
		t->py = &t->py_own;
	}
	struct fk_sym_module *mods = calloc(c->nmodules ? c->nmodules : 1, sizeof *mods);
	size_t n = c->nnodes ? c->nnodes : 1;
	t->text = calloc(n, sizeof *t->text);
	t->len = calloc(n, sizeof *t->len);
	t->py_end = calloc(n, sizeof *t->py_end);
	if (!mods || !t->text || !t->len || !t->py_end) {
		free(mods);
		return false;
	}
	for (size_t i = 0; i < c->nmodules; i++)
		mods[i] = (struct fk_sym_module){ c->modules[i].path, c->modules[i].start,
						  c->modules[i].end, c->modules[i].bias,
						  c->modules[i].build_id, c->modules[i].build_id_len };
	t->sym = fk_sym_open(mods, c->nmodules, sym_flags, on_sym_warning, d);
	free(mods);
	return t->sym != NULL;
}

static void texts_close(struct texts *t)
{
	if (t->sym)
		fk_sym_close(t->sym);
	free(t->script_dir);
	fk_arena_free(&t->arena);
	free(t->text);
	free(t->len);
	free(t->py_end);
	free(t->frame);
	free(t->scratch);
}

/* Appends the Python frame of address ip (FK_CAP_IP_PYTHON set). */
static void python_frame(struct texts *t, uint64_t ip)
{
	const struct fk_cap_python_frame *f = fk_capture_python_frame(t->c, ip & ~FK_CAP_IP_PYTHON);
	if (!f) {
		on_frame(t, "[lost python frame]", 19); /* its PYFRAMES chunk was lost */
		return;
	}
	for (;;) {
		size_t n = fk_py_frame_text(t->frame, t->frame_cap, f->file, f->qualname, f->name,
					    f->first_line, f->line, t->c->cwd, t->py);
		if (n < t->frame_cap) {
			on_frame(t, t->frame, n);
			return;
		}
		size_t cap = t->frame_cap;
		if (!FK_GROW(t->frame, cap, n + 1, 256)) {
			t->nomem = true;
			return;
		}
		t->frame_cap = cap;
	}
}

/* The folded text of a node: its parent's, then its own frames. */
static const char *node_text(struct texts *t, uint32_t node, uint32_t *len)
{
	const struct fk_capture *c = t->c;
	if (node == 0) {
		*len = 10;
		return "[stackcap]"; /* sampled while inside the shim itself */
	}
	if (node >= c->nnodes || (c->parent[node] == 0 && c->ip[node] == 0)) {
		*len = 12;
		return "[lost stack]"; /* defined in a damaged chunk */
	}
	if (c->parent[node] == 0 && c->ip[node] == FK_CAP_IP_SIGNAL_BLOCKED) {
		*len = 16;
		return "[signal blocked]";
	}
	if (t->text[node]) {
		*len = t->len[node];
		return t->text[node];
	}
	/* Build the unnamed ancestors first, root down, without recursion. */
	uint32_t path[256], depth = 0;
	for (uint32_t n = node; n && !t->text[n] && depth < 256; n = c->parent[n])
		path[depth++] = n;
	while (depth-- > 0) {
		uint32_t n = path[depth], p = c->parent[n];
		bool python = c->ip[n] & FK_CAP_IP_PYTHON;
		t->scratch_len = 0;
		if (p) {
			uint32_t pl;
			const char *pt = node_text(t, p, &pl);
			/* --python-only: a Python frame follows its parent's Python
			 * part, or nothing: native frames before it go. */
			if (python && t->py->only)
				pl = t->py_end[p] ? t->py_end[p] - 1 : 0;
			scratch_add(t, pt, pl);
		}
		if (python)
			python_frame(t, c->ip[n]);
		else if (c->ip[n] == FK_CAP_IP_UNSAMPLED)
			on_frame(t, "[unsampled]", 11);
		else
			fk_sym_frames(t->sym, c->ip[n], false, on_frame, t);
		t->py_end[n] = python ? (uint32_t)t->scratch_len + 1 : p ? t->py_end[p] : 0;
		char *s = fk_arena_dup(&t->arena, t->scratch ? t->scratch : "", t->scratch_len);
		if (!s) {
			t->nomem = true;
			*len = 0;
			return "";
		}
		t->text[n] = s;
		t->len[n] = (uint32_t)t->scratch_len;
	}
	*len = t->len[node];
	return t->text[node] ? t->text[node] : "";
}

static const char *thread_name(const struct fk_capture *c, uint32_t tid)
{
	for (size_t i = c->nthreads; i-- > 0;)
		if (c->threads[i].tid == tid)
			return c->threads[i].name;
	return "thread";
}

/* ---- CUDA: correlation ids to the API calls that made them ---- */

struct corr_index {
	const struct fk_capture *c;
	uint32_t *slots; /* apis index + 1; 0 empty */
	size_t mask;
	uint32_t *link_from, *link_to; /* driver -> runtime, open addressing */
	size_t link_mask;
};

static size_t corr_hash(uint32_t corr)
{
	return (size_t)(((uint64_t)corr * 0x9E3779B97F4A7C15u) >> 32);
}

static bool corr_index_build(struct corr_index *x, const struct fk_capture *c)
{
	memset(x, 0, sizeof *x);
	x->c = c;
	size_t cap = 16, lcap = 16;
	while (cap < c->napis * 2)
		cap <<= 1;
	while (lcap < c->nlinks * 2)
		lcap <<= 1;
	x->slots = calloc(cap, sizeof *x->slots);
	x->link_from = calloc(lcap, sizeof *x->link_from);
	x->link_to = calloc(lcap, sizeof *x->link_to);
	if (!x->slots || !x->link_from || !x->link_to)
		return false;
	x->mask = cap - 1;
	x->link_mask = lcap - 1;
	for (size_t i = 0; i < c->napis; i++) { /* a later call with the same id wins */
		size_t j = corr_hash(c->apis[i].corr) & x->mask;
		while (x->slots[j] && c->apis[x->slots[j] - 1].corr != c->apis[i].corr)
			j = (j + 1) & x->mask;
		x->slots[j] = (uint32_t)i + 1;
	}
	for (size_t i = 0; i < c->nlinks; i++) {
		uint32_t from = c->links[i][0];
		size_t j = corr_hash(from) & x->link_mask;
		while (x->link_to[j] && x->link_from[j] != from)
			j = (j + 1) & x->link_mask;
		x->link_from[j] = from;
		x->link_to[j] = c->links[i][1];
	}
	return true;
}

static void corr_index_free(struct corr_index *x)
{
	free(x->slots);
	free(x->link_from);
	free(x->link_to);
}

/* A driver id inside a runtime call: the runtime call has the stack. The
 * shim writes links one step deep; a damaged capture's may go round in a
 * circle (a -> b -> a was a loop that never ended), so a few steps at most. */
#define MAX_LINK_STEPS 4

static const struct fk_cap_api *api_of(const struct corr_index *x, uint32_t corr)
{
	for (int step = 0; corr && step <= MAX_LINK_STEPS; step++) {
		size_t j = corr_hash(corr) & x->mask;
		for (; x->slots[j]; j = (j + 1) & x->mask)
			if (x->c->apis[x->slots[j] - 1].corr == corr)
				return &x->c->apis[x->slots[j] - 1];
		uint32_t runtime = 0;
		j = corr_hash(corr) & x->link_mask;
		for (; x->link_to[j]; j = (j + 1) & x->link_mask)
			if (x->link_from[j] == corr && x->link_to[j] != corr) {
				runtime = x->link_to[j];
				break;
			}
		corr = runtime;
	}
	return NULL;
}

static int graph_by_id(const void *x, const void *y)
{
	const struct fk_cap_graph_node *a = x, *b = y;
	return (a->id > b->id) - (a->id < b->id);
}

/* By id, a clone before a node made with the same id: instantiation
 * reports each clone as made (at cudaGraphInstantiate) and as cloned, and
 * the clone leads to the code that made the original. Records alike in
 * that go by their other fields, so the one a lookup finds never depends
 * on the sort. */
static int graph_by_id_clones_first(const void *x, const void *y)
{
	const struct fk_cap_graph_node *a = x, *b = y;
	int c = graph_by_id(a, b);
	if (!c)
		c = (b->original != 0) - (a->original != 0);
	if (!c)
		c = (a->original > b->original) - (a->original < b->original);
	if (!c)
		c = (a->node > b->node) - (a->node < b->node);
	if (!c)
		c = (a->tid > b->tid) - (a->tid < b->tid);
	return c;
}

/* The capture's graph records, sorted by graph_by_id_clones_first. NULL:
 * out of memory. */
static struct fk_cap_graph_node *graph_index(const struct fk_capture *c)
{
	struct fk_cap_graph_node *graph = malloc(c->ngraph * sizeof *graph);
	if (graph) {
		memcpy(graph, c->graph, c->ngraph * sizeof *graph);
		qsort(graph, c->ngraph, sizeof *graph, graph_by_id_clones_first);
	}
	return graph;
}

/* The node that made a graph kernel: through clones to the original; where
 * an original is missing (made outside the capture), the nearest clone's
 * own record, made at instantiation, if any. sorted: graph_index's. */
static const struct fk_cap_graph_node *graph_node_of(const struct fk_cap_graph_node *sorted,
						     size_t n, uint64_t id)
{
	const struct fk_cap_graph_node *fallback = NULL;
	for (int hops = 0; id && hops < 16; hops++) {
		struct fk_cap_graph_node key = { .id = id };
		size_t at = fk_lower_bound(sorted, n, sizeof key, &key, graph_by_id);
		if (at == n || sorted[at].id != id)
			return fallback;
		if (!sorted[at].original)
			return &sorted[at];
		if (at + 1 < n && sorted[at + 1].id == id && !sorted[at + 1].original)
			fallback = &sorted[at + 1];
		id = sorted[at].original;
	}
	return fallback;
}

static const char *copy_kind_name(uint8_t kind)
{
	static const char *const names[] = { "[memcpy]", "[memcpy HtoD]", "[memcpy DtoH]",
					     "[memcpy HtoA]", "[memcpy AtoH]", "[memcpy AtoA]",
					     "[memcpy AtoD]", "[memcpy DtoA]", "[memcpy DtoD]",
					     "[memcpy HtoH]", "[memcpy PtoP]" };
	return kind < sizeof names / sizeof *names ? names[kind] : names[0];
}

/* ---- folding ---- */

/* A sampled allocation stands for 1 / (probability it was sampled) of its
 * kind: unbiased estimates of bytes and counts. */
static double sample_scale(const struct fk_capture *c, uint64_t size)
{
	double mean = (double)c->hdr.alloc_sample;
	if (mean <= 0)
		return 1;
	double p = 1 - exp(-(double)size / mean);
	return p > 0 ? 1 / p : 1;
}

/* One stack's text into *key (its length to *n): NVTX prefix, thread
 * root (--threads), the node's frames, an optional leaf. */
static bool make_key(struct texts *t, const struct fk_cap_fold_opts *o, const char *prefix,
		     uint32_t tid, uint32_t node, const char *leaf, char **key, size_t *cap,
		     int *n_out)
{
	if (!prefix)
		prefix = "";
	uint32_t len;
	const char *text = node == UINT32_MAX ? "[no host stack]" : node_text(t, node, &len);
	if (node == UINT32_MAX)
		len = 15;
	const char *name = o->threads && tid ? thread_name(t->c, tid) : NULL;
	size_t need = len + strlen(prefix) + (name ? strlen(name) : 0) + (leaf ? strlen(leaf) : 0) + 40;
	if (!FK_GROW(*key, *cap, need, 256))
		return false;
	int n = 0;
	if (*prefix)
		n = snprintf(*key, *cap, "%s;", prefix);
	if (name)
		n += snprintf(*key + n, *cap - (size_t)n, "%s-%u;", name, tid);
	n += snprintf(*key + n, *cap - (size_t)n, "%.*s", (int)len, text);
	if (leaf) {
		/* Frames never hold ';' (the folded separator). */
		n += snprintf(*key + n, *cap - (size_t)n, ";");
		for (const char *p = leaf; *p && (size_t)n + 1 < *cap; p++)
			(*key)[n++] = *p == ';' ? ':' : *p;
		(*key)[n] = 0;
	}
	*n_out = n;
	return true;
}

/* One stack's value (an integer scaled by 10^-scale), keyed by make_key. */
static bool add_leaf(struct fk_stacks *into, struct texts *t, const struct fk_cap_fold_opts *o,
		     const char *prefix, uint32_t tid, uint32_t node, const char *leaf,
		     uint64_t value, uint8_t scale, char **key, size_t *cap)
{
	int n;
	if (value == 0)
		return true;
	if (!make_key(t, o, prefix, tid, node, leaf, key, cap, &n))
		return false;
	struct fk_num zero = { 0, 0 }, v = { value, scale };
	return fk_stacks_add(into, *key, (size_t)n, zero, v, 1, NULL) == FK_STACKS_OK;
}

static bool add(struct fk_stacks *into, struct texts *t, const struct fk_cap_fold_opts *o,
		uint32_t tid, uint32_t node, uint64_t value, char **key, size_t *cap)
{
	return add_leaf(into, t, o, NULL, tid, node, NULL, value, 0, key, cap);
}

/* A (thread, time) key against a struct fk_cap_when, by thread then time. */
static int when_cmp(const void *key, const void *element)
{
	const struct fk_cap_when *k = key, *e = element;
	if (k->tid != e->tid)
		return k->tid < e->tid ? -1 : 1;
	return k->t_ns < e->t_ns ? -1 : k->t_ns > e->t_ns;
}

/* Kernel name id's leaf frame: CUPTI gives C++ kernels mangled
 * (_Z10vector_addPfS_S_i); named as host frames are (no argument list), the
 * mangled name kept when it does not demangle. Each id demangled once, into
 * shown (c->nnames entries, freed by the caller). */
static const char *kernel_name(const struct fk_capture *c, uint32_t id, char **shown)
{
	if (id >= c->nnames || !c->names[id])
		return "[kernel]";
	if (!shown[id])
		shown[id] = fk_demangle(c->names[id], strlen(c->names[id]), FK_DEMANGLE_NAME);
	return shown[id] ? shown[id] : c->names[id];
}

/* GPU time (ns, written as us with 3 decimals) or GPU bytes allocated, per
 * stack that launched or allocated. */
static bool fold_gpu(const struct fk_capture *c, const struct fk_cap_fold_opts *o,
		     struct texts *t, struct fk_stacks *into, char **key, size_t *cap)
{
	struct corr_index x;
	bool ok = corr_index_build(&x, c);
	/* --nvtx: the ranges open where each API call was made. */
	struct fk_cap_when *when = NULL;
	const char **api_path = NULL;
	struct fk_arena arena = { 0 };
	if (ok && o->nvtx && c->napis) {
		when = malloc(c->napis * sizeof *when);
		api_path = calloc(c->napis, sizeof *api_path);
		ok = when && api_path;
		for (size_t i = 0; ok && i < c->napis; i++)
			when[i] = (struct fk_cap_when){ c->apis[i].t_ns, c->apis[i].tid, NULL };
		/* Paths come back in (thread, time) order: match them by (tid, t). */
		ok = ok && fk_capture_nvtx_paths(c, when, c->napis, &arena);
		for (size_t i = 0; ok && i < c->napis; i++) {
			struct fk_cap_when api = { c->apis[i].t_ns, c->apis[i].tid, NULL };
			size_t at = fk_lower_bound(when, c->napis, sizeof *when, &api, when_cmp);
			api_path[i] = at < c->napis ? when[at].path : "";
		}
	}
#define PATH_OF(a) (api_path && (a) ? api_path[(a) - c->apis] : NULL)
	struct fk_cap_graph_node *graph = NULL;
	if (ok && c->ngraph)
		ok = (graph = graph_index(c)) != NULL;
	char **shown = NULL;
	if (ok && o->metric == FK_METRIC_SELF_CUDA && c->nnames)
		ok = (shown = calloc(c->nnames, sizeof *shown)) != NULL;
	if (o->metric == FK_METRIC_SELF_CUDA) {
		for (size_t i = 0; ok && i < c->nops; i++) {
			const struct fk_cap_gpu_op *op = &c->ops[i];
			if (op->tag == FK_CAP_GPU_SYNC)
				continue; /* waiting, not work */
			const struct fk_cap_api *a = api_of(&x, op->corr);
			if (!a && op->runtime_corr)
				a = api_of(&x, op->runtime_corr);
			/* A windowed capture: GPU work launched inside a window (by
			 * its host call's time, else its own start). */
			uint64_t at = a ? a->t_ns : c->gpu_monotonic ? op->start
						  : op->start - c->real_minus_mono;
			if (!fk_cap_in_windows(c, at))
				continue;
			/* A graph replay: the code that captured the node, when known. */
			const struct fk_cap_graph_node *g =
				graph ? graph_node_of(graph, c->ngraph, op->graph_node) : NULL;
			const char *leaf = op->tag == FK_CAP_GPU_MEMSET ? "[memset]"
					   : op->tag == FK_CAP_GPU_MEMCPY ? copy_kind_name(op->copy_kind)
					   : kernel_name(c, op->name, shown);
			uint32_t tid = g ? g->tid : a ? a->tid : 0;
			uint32_t node = g ? g->node : a ? a->node : UINT32_MAX;
			ok = add_leaf(into, t, o, PATH_OF(a), tid, node,
				      o->no_kernel_frames ? NULL : leaf, op->dur, 3, key, cap);
		}
	} else {
		for (size_t i = 0; ok && i < c->ngmem; i++) {
			const struct fk_cap_gpu_mem *m = &c->gmem[i];
			if (m->kind != FK_CAP_ALLOC)
				continue;
			const struct fk_cap_api *a = api_of(&x, m->corr);
			ok = add_leaf(into, t, o, PATH_OF(a), a ? a->tid : 0, a ? a->node : UINT32_MAX,
				      NULL, m->bytes, 0, key, cap);
		}
	}
#undef PATH_OF
	for (size_t i = 0; shown && i < c->nnames; i++)
		free(shown[i]);
	free(shown);
	free(graph);
	free(when);
	free(api_path);
	fk_arena_free(&arena);
	corr_index_free(&x);
	return ok;
}

/* ---- the names, for other views of a capture ---- */

struct fk_cap_names {
	struct texts t;
	struct corr_index x;
	char **shown; /* kernel names demangled, by id */
};

struct fk_cap_names *fk_cap_names_open(const struct fk_capture *c,
				       const struct fk_cap_fold_opts *o, struct fk_diag *d)
{
	struct fk_cap_names *n = calloc(1, sizeof *n);
	if (!n) {
		fk_diag_error(d, "out of memory");
		return NULL;
	}
	bool texts = texts_open(&n->t, c, o->sym_flags, &o->python, d);
	bool corrs = texts && corr_index_build(&n->x, c);
	n->shown = calloc(c->nnames ? c->nnames : 1, sizeof *n->shown);
	if (!texts || !corrs || !n->shown) {
		fk_diag_error(d, "out of memory");
		if (texts)
			corr_index_free(&n->x);
		texts_close(&n->t);
		free(n->shown);
		free(n);
		return NULL;
	}
	return n;
}

const char *fk_cap_names_stack(struct fk_cap_names *n, uint32_t node, uint32_t *len)
{
	if (node == UINT32_MAX) {
		*len = 15;
		return "[no host stack]";
	}
	return node_text(&n->t, node, len);
}

const char *fk_cap_names_op(struct fk_cap_names *n, const struct fk_cap_gpu_op *op)
{
	return op->tag == FK_CAP_GPU_MEMSET ? "[memset]"
	       : op->tag == FK_CAP_GPU_MEMCPY ? copy_kind_name(op->copy_kind)
	       : kernel_name(n->t.c, op->name, n->shown);
}

const struct fk_cap_api *fk_cap_names_api(const struct fk_cap_names *n, uint32_t corr)
{
	return api_of(&n->x, corr);
}

bool fk_cap_names_failed(const struct fk_cap_names *n)
{
	return n->t.nomem;
}

void fk_cap_names_close(struct fk_cap_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->t.c->nnames; i++)
		free(n->shown[i]);
	free(n->shown);
	corr_index_free(&n->x);
	texts_close(&n->t);
	free(n);
}

static int sample_by_thread_time(const void *x, const void *y)
{
	const struct fk_cap_sample *a = x, *b = y;
	if (a->tid != b->tid)
		return a->tid < b->tid ? -1 : 1;
	return (a->t_ns > b->t_ns) - (a->t_ns < b->t_ns);
}

bool fk_capture_fold(const struct fk_capture *c, const struct fk_cap_fold_opts *o,
		     struct fk_stacks *into, struct fk_diag *d)
{
	struct texts t;
	if (!texts_open(&t, c, o->sym_flags, &o->python, d)) {
		texts_close(&t);
		fk_diag_error(d, "out of memory");
		return false;
	}
	char *key = NULL;
	size_t cap = 0;
	bool ok = true;
	double us_per_tick = c->hdr.sample_hz ? 1e6 / c->hdr.sample_hz : 0;
	if (o->metric == FK_METRIC_SELF_CUDA || o->metric == FK_METRIC_GPU_ALLOC_BYTES) {
		ok = fold_gpu(c, o, &t, into, &key, &cap);
	} else if ((o->metric == FK_METRIC_SELF_CPU || o->metric == FK_METRIC_SAMPLES) && o->nvtx) {
		/* Each sample under the NVTX ranges open on its thread then. */
		struct fk_arena arena = { 0 };
		struct fk_cap_when *when = malloc((c->nraw ? c->nraw : 1) * sizeof *when);
		ok = when != NULL;
		for (size_t i = 0; ok && i < c->nraw; i++)
			when[i] = (struct fk_cap_when){ c->raw[i].t_ns, c->raw[i].tid, NULL };
		ok = ok && fk_capture_nvtx_paths(c, when, c->nraw, &arena);
		/* Same order as when[]: sort the samples alike, by (tid, t). */
		struct fk_cap_sample *raw = ok ? malloc((c->nraw ? c->nraw : 1) * sizeof *raw) : NULL;
		ok = ok && raw;
		if (ok && c->nraw) { /* c->raw is NULL without samples */
			memcpy(raw, c->raw, c->nraw * sizeof *raw);
			qsort(raw, c->nraw, sizeof *raw, sample_by_thread_time);
		}
		for (size_t i = 0; ok && i < c->nraw; i++) {
			uint64_t v = o->metric == FK_METRIC_SAMPLES
					     ? raw[i].weight
					     : (uint64_t)llround((double)raw[i].weight * us_per_tick);
			ok = add_leaf(into, &t, o, when[i].path, raw[i].tid, raw[i].node, NULL, v, 0,
				      &key, &cap);
		}
		free(raw);
		free(when);
		fk_arena_free(&arena);
	} else if (o->metric == FK_METRIC_SELF_CPU || o->metric == FK_METRIC_SAMPLES) {
		for (size_t i = 0; i < c->sums_cap && ok; i++) {
			const struct fk_cap_sample_sum *s = &c->sums[i];
			if (!s->count)
				continue;
			uint64_t v = o->metric == FK_METRIC_SAMPLES
					     ? s->weight
					     : (uint64_t)llround((double)s->weight * us_per_tick);
			ok = add(into, &t, o, s->tid, s->node, v, &key, &cap);
		}
	} else {
		for (size_t i = 0; i < c->nallocs && ok; i++) {
			const struct fk_cap_alloc *a = &c->allocs[i];
			if (a->kind != FK_CAP_ALLOC)
				continue;
			double scale = sample_scale(c, a->size);
			double v = o->metric == FK_METRIC_ALLOC_BYTES ? (double)a->size * scale : scale;
			ok = add(into, &t, o, a->tid, a->node, (uint64_t)llround(v), &key, &cap);
		}
	}
	if (!ok || t.nomem)
		fk_diag_error(d, "out of memory, or a sum past 64 bits");
	free(key);
	texts_close(&t);
	return ok && !t.nomem;
}

bool fk_capture_each_sample(const struct fk_capture *c, const struct fk_cap_fold_opts *o,
			    fk_cap_sample_fn fn, void *ctx, struct fk_diag *d)
{
	struct texts t;
	if (!texts_open(&t, c, o->sym_flags, &o->python, d)) {
		texts_close(&t);
		fk_diag_error(d, "out of memory");
		return false;
	}
	size_t n = c->nraw;
	struct fk_cap_sample *raw = malloc((n ? n : 1) * sizeof *raw);
	struct fk_cap_when *when = o->nvtx ? malloc((n ? n : 1) * sizeof *when) : NULL;
	struct fk_arena arena = { 0 };
	bool ok = raw && (!o->nvtx || when);
	if (ok && n) {
		memcpy(raw, c->raw, n * sizeof *raw);
		qsort(raw, n, sizeof *raw, sample_by_thread_time);
	}
	/* --nvtx: paths come back in the same (thread, time) order. */
	for (size_t i = 0; ok && when && i < n; i++)
		when[i] = (struct fk_cap_when){ raw[i].t_ns, raw[i].tid, NULL };
	if (ok && when)
		ok = fk_capture_nvtx_paths(c, when, n, &arena);
	char *key = NULL;
	size_t cap = 0;
	int len;
	bool stopped = false;
	const char *thread = NULL; /* the name of raw[i - 1]'s thread */
	for (size_t i = 0; ok && !stopped && i < n; i++) {
		if (!thread || raw[i].tid != raw[i - 1].tid)
			thread = thread_name(c, raw[i].tid);
		ok = make_key(&t, o, when ? when[i].path : NULL, raw[i].tid, raw[i].node, NULL, &key,
			      &cap, &len);
		stopped = ok && !fn(ctx, &raw[i], thread, key, (size_t)len);
	}
	if (!ok || t.nomem)
		fk_diag_error(d, "out of memory");
	free(key);
	free(raw);
	free(when);
	fk_arena_free(&arena);
	texts_close(&t);
	return ok && !t.nomem && !stopped;
}

/* ---- the host heap ---- */

bool fk_capture_memory(const struct fk_capture *c, unsigned sym_flags,
		       struct fk_mem_timeline *tl, struct fk_diag *d)
{
	struct fk_cap_fold_opts o = { .sym_flags = sym_flags };
	return fk_capture_memory_opts(c, &o, tl, d);
}

bool fk_capture_memory_opts(const struct fk_capture *c, const struct fk_cap_fold_opts *o,
			    struct fk_mem_timeline *tl, struct fk_diag *d)
{
	struct texts t;
	const struct fk_cap_alloc **order = malloc((c->nallocs ? c->nallocs : 1) * sizeof *order);
	struct fk_live_map live;
	bool have_live = fk_live_init(&live, c->nallocs);
	bool ok = order && have_live && texts_open(&t, c, o->sym_flags, &o->python, d);
	for (size_t i = 0; ok && i < c->nallocs; i++)
		order[i] = &c->allocs[i];
	if (ok)
		qsort(order, c->nallocs, sizeof *order, fk_cap_alloc_by_time);
	for (size_t i = 0; ok && i < c->nallocs; i++) {
		const struct fk_cap_alloc *a = order[i];
		struct fk_mem_event ev = { .t_ns = (int64_t)(a->t_ns + c->real_minus_mono),
					   .category = FK_MEM_UNKNOWN, .category_to = FK_MEM_UNKNOWN,
					   .device = FK_MEM_DEVICE_CPU, .address = a->addr };
		if (a->addr == 0)
			continue;
		size_t slot = fk_live_find(&live, a->addr);
		if (a->kind == FK_CAP_ALLOC) {
			uint32_t len;
			const char *text = node_text(&t, a->node, &len);
			ev.action = FK_MEM_CREATE;
			ev.bytes = (uint64_t)llround((double)a->size * sample_scale(c, a->size));
			ev.stack = fk_mem_stack(tl, text, len);
			live.slot[slot] = (struct fk_live_block){ a->addr, ev.bytes };
		} else if (live.slot[slot].addr) {
			ev.action = FK_MEM_DESTROY;
			ev.bytes = live.slot[slot].bytes;
			fk_live_remove(&live, slot);
		} else {
			/* Allocated before the capture, not sampled, outside the
			 * capture windows (the shim records no such free, unless
			 * its set of recorded blocks filled), or lost. */
			tl->unmatched_frees += c->hdr.alloc_sample == 0 && !c->window_spec;
			continue;
		}
		if (!fk_mem_add(tl, &ev))
			ok = false;
	}
	/* Host blocks live at the end that a loss may have freed unseen. */
	int64_t lost_before = !c->status.clean || c->loss_until_ns == UINT64_MAX ? INT64_MAX
			      : c->loss_until_ns ? (int64_t)(c->loss_until_ns + c->real_minus_mono)
			      : INT64_MIN;
	if (lost_before > tl->lost_before_ns)
		tl->lost_before_ns = lost_before;
	tl->no_end |= !c->status.clean;
	/* GPU memory (CUPTI MEMORY2), by device, each allocation with the stack
	 * of the call that made it. */
	struct corr_index x;
	if (ok && c->ngmem && corr_index_build(&x, c)) {
		for (size_t i = 0; ok && i < c->ngmem; i++) {
			const struct fk_cap_gpu_mem *m = &c->gmem[i];
			if (m->kind == FK_CAP_POOL)
				continue; /* reserved memory: fk_capture_max_reserved */
			const struct fk_cap_api *a = api_of(&x, m->corr);
			struct fk_mem_event ev = {
				.t_ns = (int64_t)(m->t + (c->gpu_monotonic ? c->real_minus_mono : 0)),
				.bytes = m->bytes, .category = FK_MEM_UNKNOWN,
				.category_to = FK_MEM_UNKNOWN, .device = (int16_t)m->device,
				.address = m->addr,
				.action = m->kind == FK_CAP_ALLOC ? FK_MEM_CREATE : FK_MEM_DESTROY,
			};
			if (a && m->kind == FK_CAP_ALLOC) {
				uint32_t len;
				const char *text = node_text(&t, a->node, &len);
				ev.stack = fk_mem_stack(tl, text, len);
			}
			ok = fk_mem_add(tl, &ev);
		}
		corr_index_free(&x);
	}
	if (!ok)
		fk_diag_error(d, "out of memory");
	if (order && have_live)
		texts_close(&t);
	free(order);
	fk_live_free(&live);
	return ok;
}

/* ---- reserved GPU memory ---- */

int64_t fk_capture_max_reserved(const struct fk_capture *c, uint32_t device)
{
	size_t n = 0;
	bool pools = false;
	for (size_t i = 0; i < c->ngmem; i++)
		if (c->gmem[i].device == device) {
			n++;
			pools |= c->gmem[i].kind == FK_CAP_POOL;
		}
	if (!pools)
		return -1;
	const struct fk_cap_gpu_mem **order = malloc(n * sizeof *order);
	struct { uint64_t addr, size; } *pool = calloc(n, sizeof *pool);
	struct { uint64_t addr, bytes; } *direct = calloc(n, sizeof *direct);
	int64_t max = -1;
	if (order && pool && direct) {
		size_t k = 0, npools = 0, ndirect = 0;
		for (size_t i = 0; i < c->ngmem; i++)
			if (c->gmem[i].device == device)
				order[k++] = &c->gmem[i];
		qsort(order, n, sizeof *order, fk_cap_gmem_by_time);
		/* Reserved: every pool's size, plus what was allocated outside pools. */
		int64_t reserved = 0;
		for (size_t i = 0; i < n; i++) {
			const struct fk_cap_gpu_mem *m = order[i];
			if (m->kind == FK_CAP_POOL) {
				size_t j = 0;
				while (j < npools && pool[j].addr != m->addr)
					j++;
				if (j == npools)
					pool[npools++].addr = m->addr;
				uint64_t size = m->pool_op == 2 ? 0 : m->bytes; /* destroyed */
				reserved += (int64_t)size - (int64_t)pool[j].size;
				pool[j].size = size;
			} else if (!m->async && m->kind == FK_CAP_ALLOC) {
				direct[ndirect].addr = m->addr;
				direct[ndirect++].bytes = m->bytes;
				reserved += (int64_t)m->bytes;
			} else if (!m->async) {
				for (size_t j = ndirect; j-- > 0;)
					if (direct[j].addr == m->addr && direct[j].bytes) {
						reserved -= (int64_t)direct[j].bytes;
						direct[j].bytes = 0;
						break;
					}
			}
			if (reserved > max)
				max = reserved;
		}
	}
	free(order);
	free(pool);
	free(direct);
	return max;
}

/* ---- info ---- */

/* How the samples' stacks were walked: by the META key the shim writes
 * (eh_frame since the CPU sampler used the hooks' rules, with the count
 * of samples they left to libunwind), else by the header's flag, as
 * captures before the key say it. */
static void put_unwinder(FILE *out, const struct fk_capture *c)
{
	if (c->hdr.flags & FK_CAP_HDR_FRAME_POINTERS) {
		fputs("frame pointers", out);
	} else if (!c->unwinder || strcmp(c->unwinder, "eh_frame") != 0) {
		fputs("libunwind", out);
	} else {
		fputs(".eh_frame rules", out);
		if (c->unwind_fallbacks)
			fprintf(out, " (libunwind for %" PRIu64 ")", c->unwind_fallbacks);
	}
}

void fk_capture_info(FILE *out, const char *name, const struct fk_capture *c)
{
	char ended[300];
	fk_cap_describe_end(&c->status, ended, sizeof ended);
	fprintf(out, "%s: pid %u (parent %u)\n", name, c->hdr.pid, c->hdr.ppid);
	fprintf(out, "command:     %s\n", c->command ? c->command : "?");
	fprintf(out, "ended:       %s\n", ended);
	double dur = c->last_t_ns > c->hdr.start_mono_ns
			     ? (double)(c->last_t_ns - c->hdr.start_mono_ns) / 1e9 : 0;
	fprintf(out, "duration:    %.3f s (to the last record)\n", dur);
	fk_cap_windows_info(out, c);
	double cpu = c->hdr.sample_hz ? (double)c->sample_weight / c->hdr.sample_hz : 0;
	fprintf(out, "sampling:    %u Hz, ", c->hdr.sample_hz);
	put_unwinder(out, c);
	fprintf(out, "; %" PRIu64 " samples standing for %.3f s of CPU\n", c->samples, cpu);
	if (c->hdr.sample_hz) { /* the threads' own clocks, as they ended */
		double unsampled = (double)c->unsampled_weight / c->hdr.sample_hz;
		fprintf(out, "cpu:         %.3f s measured by the threads' clocks: %.3f s sampled, "
			"%.3f s [unsampled] (threads shorter than a period, the rest of each)\n",
			cpu, cpu - unsampled, unsampled);
	}
	fprintf(out, "threads:     %zu", c->nthreads);
	for (size_t i = 0; i < c->nthreads && i < 16; i++)
		fprintf(out, "%s %u %s", i ? "," : ":", c->threads[i].tid, c->threads[i].name);
	fprintf(out, "%s\n", c->nthreads > 16 ? ", ..." : "");
	if (c->hdr.flags & FK_CAP_HDR_ALLOCS) {
		uint64_t allocs = 0;
		for (size_t i = 0; i < c->nallocs; i++)
			allocs += c->allocs[i].kind == FK_CAP_ALLOC;
		fprintf(out, "allocations: %" PRIu64 " allocations, %" PRIu64 " frees", allocs,
			(uint64_t)c->nallocs - allocs);
		if (c->hdr.alloc_sample)
			fprintf(out, " (sampled: one per %" PRIu64 " bytes on average)", c->hdr.alloc_sample);
		fputc('\n', out);
	} else {
		fprintf(out, "allocations: not traced (stackcap --alloc)\n");
	}
	fprintf(out, "lost:        %" PRIu64 " samples and %" PRIu64 " events dropped (rings full), "
		"%" PRIu64 " allocations on untraced threads\n", c->dropped_samples, c->dropped_events,
		c->end_untracked);
	if (c->alloc_waits)
		fprintf(out, "waited:      %" PRIu64 " times for the writer (a full ring: --alloc "
			"loses nothing)\n", c->alloc_waits);
	fprintf(out, "modules:     %zu; stack nodes: %zu\n", c->nmodules,
		c->nnodes ? c->nnodes - 1 : 0);
	if (c->python_status || c->npyframes) {
		fprintf(out, "python:      %s; %zu distinct Python frames",
			c->python_status ? c->python_status : "not recorded", c->npyframes);
		if (c->python_faults)
			fprintf(out, "; %" PRIu64 " walks stopped by the fault guard", c->python_faults);
		fputc('\n', out);
	}
	fprintf(out, "gpu:         %s\n", c->gpu_status ? c->gpu_status : "not recorded");
	if (c->nops || c->ngmem || c->napis) {
		uint64_t kernels = 0, kernel_ns = 0, copies = 0, copied = 0, sets = 0;
		for (size_t i = 0; i < c->nops; i++) {
			const struct fk_cap_gpu_op *op = &c->ops[i];
			kernels += op->tag == FK_CAP_GPU_KERNEL;
			kernel_ns += op->tag == FK_CAP_GPU_KERNEL ? op->dur : 0;
			copies += op->tag == FK_CAP_GPU_MEMCPY;
			copied += op->tag == FK_CAP_GPU_MEMCPY ? op->bytes : 0;
			sets += op->tag == FK_CAP_GPU_MEMSET;
		}
		fprintf(out, "gpu work:    %" PRIu64 " kernels (%.3f ms), %" PRIu64 " copies (%" PRIu64
			" bytes), %" PRIu64 " memsets, %zu allocation events, %zu API calls with stacks\n",
			kernels, (double)kernel_ns / 1e6, copies, copied, sets, c->ngmem, c->napis);
		if (c->cuda_host_allocs)
			fprintf(out, "host memory: %" PRIu64 " allocations (%" PRIu64 " bytes) by "
				"cudaMallocHost and the like, not counted as GPU memory\n",
				c->cuda_host_allocs, c->cuda_host_bytes);
		fprintf(out, "gpu lost:    %" PRIu64 " records dropped by CUPTI, %" PRIu64
			" without timestamps\n", c->gpu_dropped, c->gpu_no_timestamp);
	}
}
