/* chromeexport.c - stackcap captures as a Chrome / Perfetto trace (see
 * chromeexport.h). */
#include "render/chromeexport.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/capture/liveblocks.h"
#include "analysis/capture/slices.h"
#include "formats/grow.h"
#include "render/xml.h"

/* Kineto lists GPUs after the host processes with these sort indexes. */
#define GPU_SORT_BASE 16777216

struct track { uint32_t device, stream; };

struct writer {
	struct fk_sink *s;
	struct fk_chrome_stats *st;
	int64_t base;          /* ns: the trace's time 0 */
	char *quoted;          /* a string's JSON literal */
	size_t quoted_cap;
	bool nomem;
	/* the capture being written */
	const struct fk_capture *c;
	struct fk_cap_names *names;
	uint32_t pid;
	uint64_t corr_offset;
	uint8_t *launched;     /* per API call: some GPU op names it */
	/* what the GPU ops used, for the metadata */
	struct track *tracks;
	size_t ntracks, tracks_cap;
};

/* ---- JSON pieces ---- */

static void put(struct writer *w, const char *s)
{
	fk_sink_str(w->s, s);
}

static void put_u64(struct writer *w, uint64_t v)
{
	char buf[24];
	char *p = buf + sizeof buf;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	fk_sink_write(w->s, p, (size_t)(buf + sizeof buf - p));
}

static void put_i64(struct writer *w, int64_t v)
{
	fk_sink_i64(w->s, v);
}

/* ns as microseconds, exact: "12", "12.3", "12.345". */
static void put_us(struct writer *w, int64_t ns)
{
	if (ns < 0) {
		put(w, "-");
		ns = -ns;
	}
	put_u64(w, (uint64_t)ns / 1000);
	unsigned frac = (unsigned)((uint64_t)ns % 1000);
	if (!frac)
		return;
	char d[4] = { '.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10), (char)('0' + frac % 10) };
	size_t n = 4;
	while (d[n - 1] == '0')
		n--;
	fk_sink_write(w->s, d, n);
}

static void put_str(struct writer *w, const char *p, size_t len)
{
	if (!FK_GROW(w->quoted, w->quoted_cap, FK_JSON_QUOTED_MAX(len), 256)) {
		w->nomem = true;
		put(w, "\"\"");
		return;
	}
	fk_sink_write(w->s, w->quoted, fk_json_quote(w->quoted, p, len));
}

static void put_cstr(struct writer *w, const char *s)
{
	put_str(w, s, strlen(s));
}

/* The start of an event: `{"ph":"X",` after the separator. */
static void event(struct writer *w, const char *ph)
{
	put(w, w->st->events++ ? ",\n{\"ph\":\"" : "\n{\"ph\":\"");
	put(w, ph);
	put(w, "\",");
}

static void pid_tid(struct writer *w, uint64_t pid, uint64_t tid)
{
	put(w, "\"pid\":");
	put_u64(w, pid);
	put(w, ",\"tid\":");
	put_u64(w, tid);
}

static void at(struct writer *w, int64_t ns)
{
	put(w, ",\"ts\":");
	put_us(w, ns - w->base);
}

static void metadata(struct writer *w, const char *what, uint64_t pid, uint64_t tid,
		     const char *key, const char *text, int64_t number)
{
	event(w, "M");
	put(w, "\"name\":\"");
	put(w, what);
	put(w, "\",");
	pid_tid(w, pid, tid);
	put(w, ",\"args\":{\"");
	put(w, key);
	put(w, "\":");
	if (text)
		put_cstr(w, text);
	else
		put_i64(w, number);
	put(w, "}}");
}

/* ---- CUDA API names ---- */

/* The functions CUPTI calls back for most often (ids from cupti_runtime_cbid.h
 * and cupti_driver_cbid.h); the others by number. */
static const char *api_name(const struct fk_cap_api *a, char *buf, size_t n)
{
	static const struct { uint8_t domain; uint16_t cbid; const char *name; } known[] = {
		{ 1, 20, "cudaMalloc" }, { 1, 22, "cudaFree" }, { 1, 25, "cudaMallocHost" },
		{ 1, 31, "cudaMemcpy" }, { 1, 41, "cudaMemcpyAsync" }, { 1, 49, "cudaMemset" },
		{ 1, 51, "cudaMemsetAsync" }, { 1, 206, "cudaMallocManaged" },
		{ 1, 211, "cudaLaunchKernel" }, { 1, 311, "cudaGraphLaunch" },
		{ 1, 373, "cudaMallocAsync" }, { 1, 375, "cudaFreeAsync" },
		{ 1, 430, "cudaLaunchKernelExC" }, { 2, 243, "cuMemAlloc_v2" },
		{ 2, 245, "cuMemFree_v2" }, { 2, 276, "cuMemcpyHtoD_v2" }, { 2, 307, "cuLaunchKernel" },
		{ 2, 442, "cuLaunchKernel_ptsz" }, { 2, 652, "cuLaunchKernelEx" },
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (known[i].domain == a->domain && known[i].cbid == a->cbid)
			return known[i].name;
	snprintf(buf, n, "%s call %u", a->domain == 2 ? "CUDA driver" : "CUDA runtime", a->cbid);
	return buf;
}

/* ---- the threads: slices, API calls, NVTX ranges ---- */

static bool on_slices(void *ctx, uint32_t tid, const struct fk_cap_slice *sl, size_t n)
{
	struct writer *w = ctx;
	for (size_t i = 0; i < n; i++) {
		const struct fk_cap_slice *s = &sl[i];
		if (s->kind == FK_SLICE_RANGE_BEGIN || s->kind == FK_SLICE_RANGE_END) {
			event(w, s->kind == FK_SLICE_RANGE_BEGIN ? "B" : "E");
			put(w, "\"cat\":\"nvtx\",\"name\":");
			put_str(w, s->name, s->len);
			put(w, ",");
			pid_tid(w, w->pid, tid);
			at(w, s->start);
			put(w, "}");
			continue;
		}
		const struct fk_cap_api *a = s->kind == FK_SLICE_CALL ? &w->c->apis[s->ref] : NULL;
		char buf[48];
		event(w, "X");
		put(w, !a ? "\"cat\":\"cpu_op\",\"name\":"
		    : a->domain == 2 ? "\"cat\":\"cuda_driver\",\"name\":" : "\"cat\":\"cuda_runtime\",\"name\":");
		if (a)
			put_cstr(w, api_name(a, buf, sizeof buf));
		else
			put_str(w, s->name, s->len);
		put(w, ",");
		pid_tid(w, w->pid, tid);
		at(w, s->start);
		put(w, ",\"dur\":");
		put_us(w, s->end - s->start);
		if (!a) {
			put(w, "}");
			continue;
		}
		put(w, ",\"args\":{\"cbid\":");
		put_u64(w, a->cbid);
		put(w, ",\"correlation\":");
		put_u64(w, a->corr + w->corr_offset);
		put(w, "}}");
		if (w->launched[s->ref]) { /* the start of its ops' flows */
			event(w, "s");
			put(w, "\"id\":");
			put_u64(w, a->corr + w->corr_offset);
			put(w, ",");
			pid_tid(w, w->pid, tid);
			at(w, s->start);
			put(w, ",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
		}
	}
	return !w->nomem;
}

static int by_id(const void *x, const void *y)
{
	const struct fk_cap_nvtx *a = *(const struct fk_cap_nvtx *const *)x;
	const struct fk_cap_nvtx *b = *(const struct fk_cap_nvtx *const *)y;
	return (a->id > b->id) - (a->id < b->id);
}

/* NVTX marks (instants) and start/end ranges (async: they may cross
 * threads and need not nest). */
static bool nvtx_others(struct writer *w)
{
	const struct fk_capture *c = w->c;
	size_t nstarts = 0;
	for (size_t i = 0; i < c->nnvtx; i++)
		nstarts += c->nvtx[i].op == FK_CAP_NVTX_START;
	const struct fk_cap_nvtx **starts = malloc((nstarts ? nstarts : 1) * sizeof *starts);
	if (!starts)
		return false;
	nstarts = 0;
	for (size_t i = 0; i < c->nnvtx; i++)
		if (c->nvtx[i].op == FK_CAP_NVTX_START)
			starts[nstarts++] = &c->nvtx[i];
	qsort(starts, nstarts, sizeof *starts, by_id);
	for (size_t i = 0; i < c->nnvtx; i++) {
		const struct fk_cap_nvtx *v = &c->nvtx[i];
		const char *name = v->name ? v->name : "";
		if (v->op == FK_CAP_NVTX_END) { /* named as its start */
			const struct fk_cap_nvtx *key = v;
			const struct fk_cap_nvtx **s = bsearch(&key, starts, nstarts, sizeof *starts, by_id);
			if (!s)
				continue; /* its start was lost: a lone end draws nothing */
			name = (*s)->name ? (*s)->name : "";
		}
		if (v->op == FK_CAP_NVTX_MARK) {
			event(w, "i");
			put(w, "\"s\":\"t\",");
		} else if (v->op == FK_CAP_NVTX_START || v->op == FK_CAP_NVTX_END) {
			event(w, v->op == FK_CAP_NVTX_START ? "b" : "e");
			put(w, "\"id\":");
			put_u64(w, v->id);
			put(w, ",");
		} else {
			continue; /* push and pop: the slices' B and E */
		}
		put(w, "\"cat\":\"nvtx\",\"name\":");
		put_cstr(w, name);
		put(w, ",");
		pid_tid(w, w->pid, v->tid);
		at(w, (int64_t)v->t_ns);
		put(w, "}");
	}
	free(starts);
	return true;
}

/* ---- GPU work ---- */

/* Whether GPU times are CLOCK_MONOTONIC. META says; when its chunk was
 * lost, the clock whose start the first GPU time is nearer to. */
static bool gpu_monotonic(const struct fk_capture *c)
{
	if (c->gpu_status || (!c->nops && !c->ngmem))
		return c->gpu_monotonic;
	uint64_t t = c->nops ? c->ops[0].start : c->gmem[0].t;
	uint64_t mono = c->hdr.start_mono_ns, real = c->hdr.start_real_ns;
	return (t > mono ? t - mono : mono - t) < (t > real ? t - real : real - t);
}

static int64_t gpu_time(const struct fk_capture *c, uint64_t t)
{
	return gpu_monotonic(c) ? (int64_t)t : (int64_t)(t - c->real_minus_mono);
}

/* The call that launched op, or NULL. */
static const struct fk_cap_api *launch_of(const struct writer *w, const struct fk_cap_gpu_op *op)
{
	const struct fk_cap_api *a = fk_cap_names_api(w->names, op->corr);
	if (!a && op->runtime_corr)
		a = fk_cap_names_api(w->names, op->runtime_corr);
	return a;
}

static bool note_track(struct writer *w, uint32_t device, uint32_t stream)
{
	if (w->ntracks && w->tracks[w->ntracks - 1].device == device &&
	    w->tracks[w->ntracks - 1].stream == stream)
		return true;
	for (size_t i = 0; i < w->ntracks; i++)
		if (w->tracks[i].device == device && w->tracks[i].stream == stream) {
			struct track t = w->tracks[i]; /* the last one seen goes last: found first */
			w->tracks[i] = w->tracks[w->ntracks - 1];
			w->tracks[w->ntracks - 1] = t;
			return true;
		}
	if (!FK_GROW(w->tracks, w->tracks_cap, w->ntracks + 1, 16))
		return false;
	w->tracks[w->ntracks++] = (struct track){ device, stream };
	return true;
}

static bool gpu_ops(struct writer *w)
{
	const struct fk_capture *c = w->c;
	static const char *const cats[] = { [FK_CAP_GPU_KERNEL] = "kernel",
					    [FK_CAP_GPU_MEMCPY] = "gpu_memcpy",
					    [FK_CAP_GPU_MEMSET] = "gpu_memset" };
	for (size_t i = 0; i < c->nops; i++) {
		const struct fk_cap_gpu_op *op = &c->ops[i];
		if (op->tag == FK_CAP_GPU_SYNC) {
			w->st->syncs++;
			continue;
		}
		if (op->tag > FK_CAP_GPU_MEMSET)
			continue;
		if (!note_track(w, op->device, op->stream))
			return false;
		const struct fk_cap_api *a = launch_of(w, op);
		uint64_t corr = (a ? a->corr : op->corr) + w->corr_offset;
		int64_t start = gpu_time(c, op->start);
		event(w, "X");
		put(w, "\"cat\":\"");
		put(w, cats[op->tag]);
		put(w, "\",\"name\":");
		put_cstr(w, fk_cap_names_op(w->names, op));
		put(w, ",");
		pid_tid(w, op->device, op->stream);
		at(w, start);
		put(w, ",\"dur\":");
		put_us(w, (int64_t)op->dur);
		put(w, ",\"args\":{\"device\":");
		put_u64(w, op->device);
		put(w, ",\"stream\":");
		put_u64(w, op->stream);
		put(w, ",\"correlation\":");
		put_u64(w, corr);
		if (op->tag != FK_CAP_GPU_KERNEL) {
			put(w, ",\"bytes\":");
			put_u64(w, op->bytes);
		}
		if (op->graph_node) {
			put(w, ",\"graph node\":");
			put_u64(w, op->graph_node);
		}
		put(w, "}}");
		w->st->gpu_ops++;
		if (!a) {
			w->st->no_launch++;
			continue;
		}
		event(w, "f");
		put(w, "\"id\":");
		put_u64(w, corr);
		put(w, ",");
		pid_tid(w, op->device, op->stream);
		at(w, start);
		put(w, ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
		w->st->flows++;
	}
	return true;
}

/* ---- memory ---- */

/* torch's "[memory]" instant and a counter of what is allocated. */
static void memory_event(struct writer *w, uint32_t tid, int64_t t, int device, uint64_t addr,
			 int64_t bytes, int64_t total)
{
	event(w, "i");
	put(w, "\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",");
	pid_tid(w, w->pid, tid);
	at(w, t);
	put(w, ",\"args\":{\"Device Type\":");
	put(w, device < 0 ? "0" : "1");
	put(w, ",\"Device Id\":");
	put_i64(w, device);
	put(w, ",\"Addr\":");
	put_u64(w, addr);
	put(w, ",\"Bytes\":");
	put_i64(w, bytes);
	put(w, ",\"Total Allocated\":");
	put_i64(w, total);
	put(w, "}}");
	event(w, "C");
	if (device < 0) {
		put(w, "\"name\":\"CPU memory\",");
	} else {
		put(w, "\"name\":\"GPU ");
		put_i64(w, device);
		put(w, " memory\",");
	}
	put(w, "\"pid\":");
	put_u64(w, w->pid);
	at(w, t);
	put(w, ",\"args\":{\"allocated\":");
	put_i64(w, total);
	put(w, "}}");
}

static bool host_memory(struct writer *w)
{
	const struct fk_capture *c = w->c;
	if (!c->nallocs)
		return true;
	const struct fk_cap_alloc **order = malloc(c->nallocs * sizeof *order);
	struct fk_live_map live;
	if (!fk_live_init(&live, c->nallocs) || !order) {
		free(order);
		fk_live_free(&live);
		return false;
	}
	for (size_t i = 0; i < c->nallocs; i++)
		order[i] = &c->allocs[i];
	qsort(order, c->nallocs, sizeof *order, fk_cap_alloc_by_time);
	int64_t total = 0;
	for (size_t i = 0; i < c->nallocs; i++) {
		const struct fk_cap_alloc *a = order[i];
		if (!a->addr)
			continue;
		size_t slot = fk_live_find(&live, a->addr);
		int64_t bytes;
		if (a->kind == FK_CAP_ALLOC) {
			bytes = (int64_t)a->size;
			if (live.slot[slot].addr) /* its free was lost: the old block is gone */
				total -= (int64_t)live.slot[slot].bytes;
			live.slot[slot] = (struct fk_live_block){ a->addr, a->size };
		} else if (live.slot[slot].addr) {
			bytes = -(int64_t)live.slot[slot].bytes;
			fk_live_remove(&live, slot);
		} else {
			w->st->unknown_frees++; /* allocated before the capture, or lost */
			continue;
		}
		total += bytes;
		memory_event(w, a->tid, (int64_t)a->t_ns, -1, a->addr, bytes, total);
	}
	free(order);
	fk_live_free(&live);
	return true;
}

/* GPU allocations and frees (CUPTI gives both sizes), on the thread that
 * called for them (the process's main thread when that call is unknown). */
static bool gpu_memory(struct writer *w)
{
	const struct fk_capture *c = w->c;
	if (!c->ngmem)
		return true;
	const struct fk_cap_gpu_mem **order = malloc(c->ngmem * sizeof *order);
	struct { uint32_t device; int64_t total; } *dev = calloc(c->ngmem, sizeof *dev);
	if (!order || !dev) {
		free(order);
		free(dev);
		return false;
	}
	size_t n = 0, ndev = 0;
	for (size_t i = 0; i < c->ngmem; i++)
		if (c->gmem[i].kind != FK_CAP_POOL)
			order[n++] = &c->gmem[i];
	qsort(order, n, sizeof *order, fk_cap_gmem_by_time);
	for (size_t i = 0; i < n; i++) {
		const struct fk_cap_gpu_mem *m = order[i];
		size_t k = 0;
		while (k < ndev && dev[k].device != m->device)
			k++;
		if (k == ndev)
			dev[ndev++].device = m->device;
		int64_t bytes = m->kind == FK_CAP_ALLOC ? (int64_t)m->bytes : -(int64_t)m->bytes;
		dev[k].total += bytes;
		const struct fk_cap_api *a = fk_cap_names_api(w->names, m->corr);
		memory_event(w, a ? a->tid : c->hdr.pid, gpu_time(c, m->t), (int)m->device, m->addr,
			     bytes, dev[k].total);
	}
	free(order);
	free(dev);
	return true;
}

/* ---- one capture ---- */

static bool write_capture(struct writer *w, const struct fk_capture *c, const struct fk_cap_fold_opts *o,
			  struct fk_diag *d)
{
	w->c = c;
	w->pid = c->hdr.pid;
	w->names = fk_cap_names_open(c, o, d);
	w->launched = calloc(c->napis ? c->napis : 1, 1);
	if (!w->names || !w->launched) {
		fk_cap_names_close(w->names);
		free(w->launched);
		if (w->names)
			fk_diag_error(d, "out of memory");
		return false;
	}
	for (size_t i = 0; i < c->nops; i++) {
		const struct fk_cap_api *a = c->ops[i].tag != FK_CAP_GPU_SYNC ? launch_of(w, &c->ops[i]) : NULL;
		if (a)
			w->launched[a - c->apis] = 1;
	}
	metadata(w, "process_name", w->pid, 0, "name", c->command ? c->command : "?", 0);
	for (size_t i = 0; i < c->nthreads; i++)
		metadata(w, "thread_name", w->pid, c->threads[i].tid, "name", c->threads[i].name, 0);
	struct fk_cap_slice_stats ss;
	bool sliced = fk_capture_slices(c, w->names, on_slices, w, &ss, d); /* says its own */
	bool ok = sliced && nvtx_others(w) && gpu_ops(w) && host_memory(w) && gpu_memory(w);
	ok = ok && !w->nomem && !fk_cap_names_failed(w->names);
	if (!ok && (sliced || w->nomem))
		fk_diag_error(d, "out of memory");
	w->st->unmatched_pops += ss.unmatched_pops;
	w->st->unclosed_ranges += ss.unclosed_ranges;
	fk_cap_names_close(w->names);
	free(w->launched);
	w->names = NULL;
	w->launched = NULL;
	return ok;
}

/* ---- the document ---- */

static void consider(int64_t *min, int64_t t)
{
	if (t < *min)
		*min = t;
}

/* The earliest time anything is drawn at. */
static int64_t earliest(const struct fk_chrome_capture *in, size_t n)
{
	int64_t min = INT64_MAX;
	for (size_t k = 0; k < n; k++) {
		const struct fk_capture *c = in[k].c;
		uint32_t hz = c->hdr.sample_hz;
		consider(&min, (int64_t)c->hdr.start_mono_ns);
		for (size_t i = 0; i < c->nraw; i++)
			consider(&min, (int64_t)c->raw[i].t_ns -
					       (hz ? (int64_t)((uint64_t)c->raw[i].weight * 1000000000u / hz) + 1 : 0));
		for (size_t i = 0; i < c->napis; i++)
			consider(&min, (int64_t)c->apis[i].t_ns);
		for (size_t i = 0; i < c->nnvtx; i++)
			consider(&min, (int64_t)c->nvtx[i].t_ns);
		for (size_t i = 0; i < c->nallocs; i++)
			consider(&min, (int64_t)c->allocs[i].t_ns);
		for (size_t i = 0; i < c->nops; i++)
			consider(&min, gpu_time(c, c->ops[i].start));
		for (size_t i = 0; i < c->ngmem; i++)
			consider(&min, gpu_time(c, c->gmem[i].t));
	}
	return min == INT64_MAX ? 0 : min;
}

static int by_track(const void *x, const void *y)
{
	const struct track *a = x, *b = y;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return (a->stream > b->stream) - (a->stream < b->stream);
}

/* Names of the GPU tracks, as Kineto gives them. */
static void gpu_metadata(struct writer *w)
{
	if (w->ntracks) /* none: tracks is NULL */
		qsort(w->tracks, w->ntracks, sizeof *w->tracks, by_track);
	char name[40];
	for (size_t i = 0; i < w->ntracks; i++) {
		const struct track *t = &w->tracks[i];
		if (i == 0 || t->device != t[-1].device) {
			snprintf(name, sizeof name, "GPU %u", t->device);
			metadata(w, "process_name", t->device, 0, "name", name, 0);
			metadata(w, "process_sort_index", t->device, 0, "sort_index", NULL,
				 GPU_SORT_BASE + (int64_t)t->device);
		}
		snprintf(name, sizeof name, "stream %u", t->stream);
		metadata(w, "thread_name", t->device, t->stream, "name", name, 0);
	}
}

static void capture_summary(struct writer *w, const struct fk_chrome_capture *in, uint64_t offset)
{
	const struct fk_capture *c = in->c;
	char text[400];
	put(w, "{\"file\":");
	put_cstr(w, in->name);
	put(w, ",\"pid\":");
	put_u64(w, c->hdr.pid);
	put(w, ",\"command\":");
	put_cstr(w, c->command ? c->command : "");
	fk_cap_describe_end(&c->status, text, sizeof text);
	put(w, ",\"ended\":");
	put_cstr(w, text);
	put(w, ",\"loss\":");
	if (fk_capture_loss(c, text, sizeof text))
		put_cstr(w, text);
	else
		put(w, "null");
	put(w, ",\"sample_hz\":");
	put_u64(w, c->hdr.sample_hz);
	put(w, ",\"samples\":");
	put_u64(w, c->samples);
	put(w, ",\"gpu\":");
	put_cstr(w, c->gpu_status ? c->gpu_status : "not recorded");
	put(w, ",\"correlation_offset\":");
	put_u64(w, offset);
	put(w, "}");
}

bool fk_chrome_write(struct fk_sink *s, const struct fk_chrome_capture *in, size_t n,
		     const struct fk_cap_fold_opts *o, struct fk_chrome_stats *st,
		     struct fk_diag *d)
{
	*st = (struct fk_chrome_stats){ 0 };
	struct writer w = { .s = s, .st = st, .base = earliest(in, n) };
	put(&w, "{\"schemaVersion\":1,\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	bool ok = true;
	for (size_t k = 0; k < n && ok; k++) {
		w.corr_offset = (uint64_t)k << 32;
		ok = write_capture(&w, in[k].c, o, d);
	}
	if (ok)
		gpu_metadata(&w);
	/* Kineto's GPU tracks are pid = device: a process of that pid (pid 1
	 * in a container) shares the viewers' process with them. */
	for (size_t k = 0; ok && k < n; k++)
		for (size_t i = 0; i < w.ntracks; i++)
			if (w.tracks[i].device == in[k].c->hdr.pid) {
				fk_diag_note(d, "%s: pid %u is also GPU %u's process in the trace (Kineto's "
					     "pid = device): viewers show them as one", in[k].name,
					     in[k].c->hdr.pid, w.tracks[i].device);
				break;
			}
	put(&w, "\n],\n\"baseTimeNanoseconds\":");
	put_u64(&w, n ? (uint64_t)w.base + in[0].c->real_minus_mono : 0);
	if (w.ntracks) {
		put(&w, ",\n\"deviceProperties\":[");
		for (size_t i = 0; i < w.ntracks; i++) {
			if (i && w.tracks[i].device == w.tracks[i - 1].device)
				continue;
			put(&w, i ? ",{\"id\":" : "{\"id\":");
			put_u64(&w, w.tracks[i].device);
			put(&w, ",\"name\":\"CUDA device ");
			put_u64(&w, w.tracks[i].device);
			put(&w, "\"}");
		}
		put(&w, "]");
	}
	put(&w, ",\n\"flamekit\":{\"captures\":[");
	for (size_t k = 0; k < n; k++) {
		if (k)
			put(&w, ",");
		capture_summary(&w, &in[k], (uint64_t)k << 32);
	}
	put(&w, "],\"gpu_syncs_not_drawn\":");
	put_u64(&w, st->syncs);
	put(&w, ",\"host_frees_of_unseen_blocks\":");
	put_u64(&w, st->unknown_frees);
	put(&w, ",\"gpu_ops_without_launch\":");
	put_u64(&w, st->no_launch);
	put(&w, ",\"nvtx_pops_without_push\":");
	put_u64(&w, st->unmatched_pops);
	put(&w, ",\"nvtx_ranges_ended_with_thread\":");
	put_u64(&w, st->unclosed_ranges);
	put(&w, "}}\n");
	free(w.quoted);
	free(w.tracks);
	return ok && !w.nomem;
}
