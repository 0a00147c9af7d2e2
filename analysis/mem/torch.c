/* torch.c - timelines to and from torch's files (see torch.h). */
#include "analysis/mem/torch.h"

#include <stdlib.h>

#include "analysis/mem/coalesce.h"
#include "formats/torchmem.h"

/* The file's facts are the model's: one numbering of actions and categories. */
_Static_assert((int)FK_TORCHMEM_PREEXISTING == (int)FK_MEM_PREEXISTING &&
	       (int)FK_TORCHMEM_CREATE == (int)FK_MEM_CREATE &&
	       (int)FK_TORCHMEM_INCREMENT_VERSION == (int)FK_MEM_INCREMENT_VERSION &&
	       (int)FK_TORCHMEM_DESTROY == (int)FK_MEM_DESTROY, "torch actions");
_Static_assert(FK_TORCHMEM_NCAT == FK_MEM_NCAT && FK_TORCHMEM_COLUMNS == FK_MEM_COLUMNS,
	       "torch categories");

static bool add_event(void *ctx, const struct fk_torchmem_event *e)
{
	struct fk_mem_event ev = { .t_ns = e->t_ns, .bytes = e->bytes, .action = e->action,
				   .category = e->category, .category_to = e->category_to,
				   .device = FK_MEM_DEVICE_ANY };
	return fk_mem_add(ctx, &ev);
}

static void *fork_part(void *ctx)
{
	(void)ctx;
	struct fk_mem_timeline *part = malloc(sizeof *part);
	if (part)
		fk_mem_init(part);
	return part;
}

static void discard_part(void *part)
{
	fk_mem_free(part);
	free(part);
}

static bool join_part(void *ctx, void *part)
{
	bool ok = fk_mem_append(ctx, part);
	discard_part(part);
	return ok;
}

static const struct fk_torchmem_sink into_timeline = {
	.event = add_event, .fork = fork_part, .join = join_part, .discard = discard_part,
};

bool fk_mem_read_torch_raw(struct fk_input *in, struct fk_mem_timeline *tl, struct fk_diag *d)
{
	return fk_torchmem_read_raw(in, &into_timeline, tl, d);
}

bool fk_mem_read_torch_raw_path(const char *path, const char *name, struct fk_mem_timeline *tl,
				struct fk_diag *d)
{
	struct fk_input in;
	if (!fk_input_open(&in, path, d))
		return false;
	in.name = name;
	bool ok = fk_mem_read_torch_raw(&in, tl, d);
	fk_input_close(&in);
	return ok;
}

struct rows_ctx {
	const struct fk_mem_timeline *tl;
	struct fk_mem_rows rows;
};

static void rows_start(void *ctx)
{
	struct rows_ctx *r = ctx;
	fk_mem_rows_start(&r->rows, r->tl);
}

static bool rows_next(void *ctx, int64_t *t, const int64_t **sizes)
{
	struct rows_ctx *r = ctx;
	if (!fk_mem_rows_next(&r->rows))
		return false;
	*t = r->rows.t;
	*sizes = r->rows.sizes;
	return true;
}

void fk_mem_write_torch_json(struct fk_sink *out, const struct fk_mem_timeline *tl)
{
	struct rows_ctx r = { .tl = tl };
	struct fk_torchmem_rows rows = { rows_start, rows_next, &r };
	fk_torchmem_write_json(out, &rows);
}

struct events_ctx {
	const struct fk_mem_timeline *tl;
	size_t next;
};

static bool next_event(void *ctx, struct fk_torchmem_event *e)
{
	struct events_ctx *c = ctx;
	if (c->next == c->tl->count)
		return false;
	struct fk_mem_event ev;
	fk_mem_get(c->tl, c->next++, &ev);
	*e = (struct fk_torchmem_event){ .t_ns = ev.t_ns, .bytes = ev.bytes, .action = ev.action,
					 .category = ev.category, .category_to = ev.category_to };
	return true;
}

void fk_mem_write_torch_raw(struct fk_sink *out, const struct fk_mem_timeline *tl)
{
	struct events_ctx c = { tl, 0 };
	fk_torchmem_write_raw(out, next_event, &c);
}
