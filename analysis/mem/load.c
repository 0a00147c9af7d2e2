/* load.c - reading memtimeline's inputs (see load.h). */
#include "analysis/mem/load.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/input.h"
#include "analysis/mem/torch.h"
#include "analysis/capture/model.h"
#include "analysis/trace/memory.h"

static bool before(const struct fk_mem_timeline *tl, size_t a, size_t b)
{
	return tl->t_ns[a] < tl->t_ns[b] ||
	       (tl->t_ns[a] == tl->t_ns[b] && (tl->kind[a] & 0xf) < (tl->kind[b] & 0xf));
}

/* A torch trace's [memory] events (profile_memory=True). */
static bool load_trace(struct fk_input *input, const char *name, int16_t *device,
		       struct fk_mem_timeline *tl, struct fk_diag *d)
{
	struct fk_trace t;
	bool ok = fk_trace_load(input, &t, d);
	fk_input_close(input);
	if (ok && t.nmem == 0) {
		fk_diag_error(d, "%s: this trace has no [memory] events (torch.profiler.profile("
			      "profile_memory=True) records them)", name);
		ok = false;
	}
	/* No --device: like torch, cuda:0 when there is GPU memory, else the host. */
	if (ok && *device == FK_MEM_DEVICE_ANY)
		*device = fk_trace_memory_device(&t);
	if (ok && !fk_trace_memory(&t, *device, tl)) {
		fk_diag_error(d, "%s: out of memory", name);
		ok = false;
	}
	fk_trace_free(&t);
	return ok;
}

bool fk_mem_load(struct fk_mem_timeline *tl, struct fk_mem_inputs *in, char *const *paths,
		 size_t npaths, int16_t device, const struct fk_py_opts *py, struct fk_diag *d)
{
	in->sources = calloc(npaths ? npaths : 1, sizeof *in->sources);
	in->count = 0;
	in->order = NULL;
	in->filtered = false;
	in->loss[0] = 0;
	if (!in->sources) {
		fk_diag_error(d, "out of memory");
		return false;
	}
	for (size_t i = 0; i < npaths; i++) {
		const char *name = fk_input_display_name(paths[i]);
		size_t first = tl->count;
		uint64_t disorder = tl->out_of_order;
		in->sources[in->count++] = (struct fk_mem_source){ name, first };
		struct fk_input input;
		if (!fk_input_open(&input, paths[i], d))
			return false;
		if (input.kind == FK_KIND_CAPTURE) {
			/* A stackcap capture: its host heap, by address, with stacks. */
			struct fk_capture c;
			bool loaded = fk_capture_load_input(&input, &c, false, d);
			fk_input_close(&input);
			if (!loaded)
				return false;
			struct fk_cap_fold_opts names = { 0 };
			if (py)
				names.python = *py;
			bool ok = fk_capture_memory_opts(&c, &names, tl, d);
			char lost[400];
			if (fk_capture_loss(&c, lost, sizeof lost)) {
				size_t k = strlen(in->loss);
				snprintf(in->loss + k, sizeof in->loss - k, "%s%s: %s", k ? "; " : "",
					 name, lost);
			}
			/* No --device: like torch, cuda:0 when there is GPU memory, else the host. */
			if (device == FK_MEM_DEVICE_ANY)
				device = c.ngmem ? 0 : FK_MEM_DEVICE_CPU;
			if (device >= 0)
				tl->max_reserved = fk_capture_max_reserved(&c, (uint32_t)device);
			fk_capture_free(&c);
			if (!ok)
				return false;
		} else if (input.kind == FK_KIND_CHROME_TRACE) {
			if (!load_trace(&input, name, &device, tl, d))
				return false;
		} else if (input.kind == FK_KIND_PERF) {
			/* Known kinds of other commands; anything else gets the
			 * JSON reader's own precise complaint. */
			fk_diag_error(d, "%s: this is %s, not a torch memory timeline or a "
				      "stackcap capture", name, fk_input_kind_description(input.kind));
			fk_input_close(&input);
			return false;
		} else {
			bool read = fk_mem_read_torch_raw(&input, tl, d);
			fk_input_close(&input);
			if (!read)
				return false;
		}
		disorder = tl->out_of_order - disorder;
		/* Files follow each other in any order; only disorder inside one
		 * is a problem. */
		if (first > 0 && first < tl->count && before(tl, first, first - 1))
			disorder--;
		if (disorder && !fk_diag_warn(d, "%s: %" PRIu64 " event%s out of time order; "
					      "sorted by (time, action) as torch orders its timeline",
					      name, disorder, disorder == 1 ? "" : "s"))
			return false;
	}
	if (!fk_mem_sort(tl, &in->order)) {
		fk_diag_error(d, "out of memory");
		return false;
	}
	if (device != FK_MEM_DEVICE_ANY) {
		size_t before = tl->count;
		fk_mem_select_device(tl, device);
		in->filtered = tl->count != before;
	}
	return true;
}

struct check_ctx {
	const struct fk_mem_timeline *tl;
	const struct fk_mem_inputs *in;
	struct fk_diag *d;
	bool stop;
};

/* The INCREMENT_VERSION events among events [from, to) as read: each was two
 * rows in the file. */
static uint64_t pairs_between(const struct check_ctx *c, size_t from, size_t to)
{
	uint64_t pairs = 0;
	if (!c->in->order) {
		for (size_t k = from; k < to; k++)
			pairs += (c->tl->kind[k] & 0xf) == FK_MEM_INCREMENT_VERSION;
		return pairs;
	}
	for (size_t k = 0; k < c->tl->count; k++) /* sorted: find them by read index */
		pairs += c->in->order[k] >= from && c->in->order[k] < to &&
			 (c->tl->kind[k] & 0xf) == FK_MEM_INCREMENT_VERSION;
	return pairs;
}

/* "file: event N" for event i: N counts the file's rows from 1. */
static void where(const struct check_ctx *c, size_t i, char *buf, size_t n)
{
	if (c->in->filtered || c->in->count == 0) {
		snprintf(buf, n, "event at t=%" PRId64 " ns", c->tl->t_ns[i]);
		return;
	}
	size_t read = c->in->order ? c->in->order[i] : i;
	size_t s = c->in->count - 1;
	while (s > 0 && c->in->sources[s].first_event > read)
		s--;
	size_t first = c->in->sources[s].first_event;
	uint64_t row = 1 + (read - first) + pairs_between(c, first, read);
	snprintf(buf, n, "%s: event %" PRIu64, c->in->sources[s].name, row);
}

static void on_warning(void *ctx, size_t i, const char *message)
{
	struct check_ctx *c = ctx;
	char at[300];
	if (c->stop)
		return;
	bool shown = !c->d->quiet && (c->d->strict || c->d->bad_lines < c->d->max_shown);
	if (shown)
		where(c, i, at, sizeof at);
	else
		at[0] = 0;
	if (!fk_diag_warn(c->d, "%s: %s", at, message))
		c->stop = true;
}

bool fk_mem_check(const struct fk_mem_timeline *tl, const struct fk_mem_inputs *in,
		  struct fk_mem_report *rep, struct fk_diag *d)
{
	struct check_ctx c = { tl, in, d, false };
	size_t bad = 0;
	enum fk_mem_replay_result res = fk_mem_replay(tl, rep, on_warning, &c, &bad);
	if (res == FK_MEM_REPLAY_OVERFLOW) {
		char at[300];
		where(&c, bad, at, sizeof at);
		fk_diag_error_at(d, "%s: live bytes do not fit in 64 bits", at);
		return false;
	}
	if (res == FK_MEM_REPLAY_NOMEM) {
		fk_diag_error(d, "out of memory");
		return false;
	}
	return !c.stop;
}

void fk_mem_inputs_free(struct fk_mem_inputs *in)
{
	free(in->sources);
	free(in->order);
	in->order = NULL;
	in->sources = NULL;
	in->count = 0;
}
