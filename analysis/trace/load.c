/* load.c - a trace's events into the compact records of model.h. */
#include "analysis/trace/model.h"

#include <string.h>

#include "formats/grow.h"

struct loader {
	struct fk_trace *t;
	struct fk_diag *d;
	const char *name;
	/* (pid, tid) -> thread index: open addressing, index + 1 (0: empty) */
	uint32_t *slots;
	size_t mask;
	bool nomem;
};

static uint64_t thread_hash(int64_t pid, int64_t tid)
{
	uint64_t h = (uint64_t)pid * 0x9E3779B97F4A7C15ull ^ (uint64_t)tid * 0xC2B2AE3D27D4EB4Full;
	return h ^ h >> 29;
}

static bool rehash(struct loader *l, size_t size)
{
	uint32_t *slots = calloc(size, sizeof *slots);
	if (!slots)
		return false;
	for (size_t i = 0; i < l->t->nthreads; i++) {
		const struct fk_trace_thread *th = &l->t->threads[i];
		size_t at = thread_hash(th->pid, th->tid) & (size - 1);
		while (slots[at])
			at = (at + 1) & (size - 1);
		slots[at] = (uint32_t)i + 1;
	}
	free(l->slots);
	l->slots = slots;
	l->mask = size - 1;
	return true;
}

static uint32_t thread_of(struct loader *l, int64_t pid, int64_t tid)
{
	struct fk_trace *t = l->t;
	if (!l->slots && !rehash(l, 64))
		return FK_TRACE_NONE;
	size_t at = thread_hash(pid, tid) & l->mask;
	for (uint32_t s; (s = l->slots[at]); at = (at + 1) & l->mask) {
		const struct fk_trace_thread *th = &t->threads[s - 1];
		if (th->pid == pid && th->tid == tid)
			return s - 1;
	}
	if ((t->nthreads + 1) * 2 > l->mask + 1 && !rehash(l, (l->mask + 1) * 2))
		return FK_TRACE_NONE;
	if (!FK_GROW(t->threads, t->threads_cap, t->nthreads + 1, 16))
		return FK_TRACE_NONE;
	t->threads[t->nthreads] = (struct fk_trace_thread){ pid, tid, FK_TRACE_NONE };
	at = thread_hash(pid, tid) & l->mask;
	while (l->slots[at])
		at = (at + 1) & l->mask;
	l->slots[at] = (uint32_t)t->nthreads + 1;
	return (uint32_t)t->nthreads++;
}

static bool is_cpu(enum fk_trace_cat c)
{
	return c == FK_TCAT_CPU_OP || c == FK_TCAT_USER_ANNOTATION || c == FK_TCAT_PYTHON ||
	       c == FK_TCAT_RUNTIME || c == FK_TCAT_DRIVER;
}

static bool is_gpu_work(enum fk_trace_cat c)
{
	return c == FK_TCAT_KERNEL || c == FK_TCAT_MEMCPY || c == FK_TCAT_MEMSET;
}

static int64_t arg_or(const struct fk_trace_event *e, enum fk_trace_arg a, int64_t none)
{
	return fk_trace_has(e, a) ? e->args[a] : none;
}

static bool add_memory(struct fk_trace *t, const struct fk_trace_event *e)
{
	if (!fk_trace_has(e, FK_TARG_BYTES))
		return true; /* nothing to count */
	if (!FK_GROW(t->mem, t->mem_cap, t->nmem + 1, 1024))
		return false;
	t->mem[t->nmem++] = (struct fk_trace_mem){
		.ts = e->ts_ns,
		.addr = (uint64_t)e->args[FK_TARG_ADDR],
		.has_addr = fk_trace_has(e, FK_TARG_ADDR),
		.bytes = e->args[FK_TARG_BYTES],
		.total_allocated = arg_or(e, FK_TARG_TOTAL_ALLOCATED, -1),
		.total_reserved = arg_or(e, FK_TARG_TOTAL_RESERVED, -1),
		.device_type = (int32_t)arg_or(e, FK_TARG_DEVICE_TYPE, 0),
		.device_id = (int32_t)arg_or(e, FK_TARG_DEVICE_ID, -1),
	};
	return true;
}

static bool on_event(void *ctx, const struct fk_trace_event *e)
{
	struct loader *l = ctx;
	struct fk_trace *t = l->t;
	bool ok = true;
	if (t->ncpu >= FK_TRACE_NONE - 1 || t->ngpu >= FK_TRACE_NONE - 1) {
		fk_diag_error(l->d, "%s: more than 2^32 CPU or GPU events", l->name);
		return false;
	}
	if (e->ph == 'X' && (is_cpu(e->cat) || is_gpu_work(e->cat))) {
		uint32_t name = fk_strtab_intern(&t->names, e->name, e->name_len, NULL);
		ok = name != FK_STRTAB_NONE;
		if (ok && is_cpu(e->cat)) {
			uint32_t th = thread_of(l, e->pid, e->tid);
			ok = th != FK_TRACE_NONE && FK_GROW(t->cpu, t->cpu_cap, t->ncpu + 1, 4096);
			if (ok)
				t->cpu[t->ncpu++] = (struct fk_trace_cpu){
					.ts = e->ts_ns, .dur = e->dur_ns,
					.corr = arg_or(e, FK_TARG_CORRELATION, -1),
					.thread = th, .name = name, .parent = FK_TRACE_NONE,
					.cat = (uint8_t)e->cat,
					.self = t->ncpu /* its place in the file, until nested */ };
		} else if (ok) {
			ok = FK_GROW(t->gpu, t->gpu_cap, t->ngpu + 1, 4096);
			if (ok)
				t->gpu[t->ngpu++] = (struct fk_trace_gpu){
					.ts = e->ts_ns, .dur = e->dur_ns,
					.corr = arg_or(e, FK_TARG_CORRELATION, -1),
					.device = arg_or(e, FK_TARG_DEVICE, e->pid),
					.name = name, .launch = FK_TRACE_NONE, .cat = (uint8_t)e->cat };
		}
	} else if ((e->ph == 's' || e->ph == 'f') && e->cat == FK_TCAT_FWDBWD && e->has_id &&
		   e->has_ts) {
		uint32_t th = thread_of(l, e->pid, e->tid);
		ok = th != FK_TRACE_NONE && FK_GROW(t->flows, t->flows_cap, t->nflows + 1, 256);
		if (ok)
			t->flows[t->nflows++] = (struct fk_trace_flow){ e->id, e->ts_ns, th, e->ph == 's' };
	} else if (e->ph == 'i' && strcmp(e->name, "[memory]") == 0) {
		ok = add_memory(t, e);
	} else if (e->ph == 'M' && strcmp(e->name, "thread_name") == 0 && *e->meta_name) {
		uint32_t th = thread_of(l, e->pid, e->tid);
		uint32_t name = fk_strtab_intern(&t->names, e->meta_name, strlen(e->meta_name), NULL);
		ok = th != FK_TRACE_NONE && name != FK_STRTAB_NONE;
		if (ok)
			t->threads[th].name = name;
	}
	if (!ok) {
		fk_diag_error(l->d, "%s: out of memory", l->name);
		l->nomem = true;
	}
	return ok;
}

bool fk_trace_load(struct fk_input *in, struct fk_trace *t, struct fk_diag *d)
{
	*t = (struct fk_trace){ 0 };
	struct loader l = { .t = t, .d = d, .name = in->name };
	bool ok = fk_chrometrace_read(in, on_event, &l, &t->info, d);
	free(l.slots);
	/* Counted like bad lines: fatal under --strict. */
	if (ok && t->info.skipped)
		ok = fk_diag_warn(d, "%s: %llu events without the times their kind needs skipped",
				  in->name, (unsigned long long)t->info.skipped);
	if (ok && t->info.control_chars)
		fk_diag_note(d, "%s: %llu control characters in names read as spaces", in->name,
			     (unsigned long long)t->info.control_chars);
	return ok;
}

void fk_trace_free(struct fk_trace *t)
{
	fk_strtab_free(&t->names);
	free(t->cpu);
	free(t->gpu);
	free(t->mem);
	free(t->threads);
	free(t->flows);
	*t = (struct fk_trace){ 0 };
}
