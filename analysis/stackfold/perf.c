/* perf.c - perf script samples into a stacks table (see perf.h). */
#include "analysis/stackfold/perf.h"

#include "analysis/sym/perfinline.h"

struct perf_sum {
	struct fk_stacks *into;
	struct fk_perf_inline *inl; /* --inline */
};

static bool add_sample(void *ctx, const char *stack, size_t len, uint64_t period)
{
	struct perf_sum *p = ctx;
	struct fk_num zero = { 0, 0 }, v = { period, 0 };
	return fk_stacks_add(p->into, stack, len, zero, v, 1, NULL) == FK_STACKS_OK;
}

static const char *inline_frames(void *ctx, const char *pc, size_t pclen, const char *rawfunc,
				 size_t rflen, const char *mod, size_t modlen, bool *failed)
{
	struct perf_sum *p = ctx;
	return fk_perf_inline_frames(p->inl, pc, pclen, rawfunc, rflen, mod, modlen, failed);
}

enum fk_input_result fk_perf_load_input(struct fk_input *in, const struct fk_perf_opts *o,
					struct fk_stacks *into, struct fk_diag *d)
{
	struct perf_sum p = { .into = into };
	if (o->inlined && !(p.inl = fk_perf_inline_new(o->context, d))) {
		fk_diag_error(d, "out of memory");
		return FK_INPUT_ERROR;
	}
	struct fk_perf_emit e = {
		.sample = add_sample, .inline_frames = p.inl ? inline_frames : NULL, .ctx = &p,
	};
	enum fk_input_result r = fk_perf_read(in, o, &e, d);
	fk_perf_inline_free(p.inl);
	return r;
}

enum fk_input_result fk_perf_load(const char *path, const struct fk_perf_opts *o,
				  struct fk_stacks *into, struct fk_diag *d)
{
	struct fk_input in;
	if (!fk_input_open(&in, path, d))
		return FK_INPUT_ERROR;
	enum fk_input_result r = fk_perf_load_input(&in, o, into, d);
	fk_input_close(&in);
	return r;
}
