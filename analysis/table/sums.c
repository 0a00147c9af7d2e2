/* sums.c - per-frame sums of folded stacks (see sums.h). */
#include "analysis/table/sums.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

/* The row of a name, added when new; its index or FK_STRTAB_NONE. */
static uint32_t row_of(struct fk_table *t, const char *name, size_t len)
{
	bool added = false;
	uint32_t id = fk_strtab_intern(&t->names, name, len, &added);
	if (id == FK_STRTAB_NONE || !FK_GROW(t->rows, t->cap, (size_t)id + 1, 1024))
		return FK_STRTAB_NONE;
	if (added)
		t->rows[id] = (struct fk_table_row){ .name = fk_strtab_get(&t->names, id)->p,
						     .len = (uint32_t)len };
	return id;
}

/* Adds s's stacks. Each of s's frame names is looked up in the table once
 * (rows_of maps s's frame ids to rows), not once per stack. */
static bool add_stacks(struct fk_table *t, int metric, const struct fk_stacks *s,
		       enum fk_table_calls calls, uint32_t *rows_of)
{
	for (uint32_t id = 0; id < fk_stacks_count(s); id++) {
		const struct fk_stack_entry *e = fk_stackset_get(&s->set, id);
		const struct fk_stack_sums *sums = &s->sums[id];
		uint64_t serial = ++t->stacks;
		uint64_t n = calls != FK_CALLS_NONE ? sums->lines : 0;
		if (!fk_num_add(&t->grand[metric], sums->value))
			return false;
		t->grand_calls += n;
		struct fk_table_row *r = NULL;
		for (uint32_t f = 0; f < e->nframes; f++) {
			uint32_t *row = &rows_of[e->frames[f]];
			if (*row == FK_STRTAB_NONE) {
				const struct fk_str *name = fk_stackset_frame(&s->set, e->frames[f]);
				if ((*row = row_of(t, name->p, name->len)) == FK_STRTAB_NONE)
					return false;
			}
			r = &t->rows[*row];
			if (r->seen != serial) { /* once per stack, even when it recurses */
				r->seen = serial;
				if (!fk_num_add(&r->total[metric], sums->value))
					return false;
				r->calls += calls == FK_CALLS_HELD ? n : 0;
			}
		}
		if (r) { /* the leaf */
			r->leaf[metric] = true;
			r->calls += calls == FK_CALLS_LEAF ? n : 0;
			if (!fk_num_add(&r->self[metric], sums->value))
				return false;
		}
	}
	return true;
}

bool fk_table_add(struct fk_table *t, int metric, const struct fk_stacks *s,
		  enum fk_table_calls calls)
{
	uint32_t *rows_of = malloc(((size_t)s->set.frames.count + 1) * sizeof *rows_of);
	if (!rows_of)
		return false;
	memset(rows_of, 0xff, ((size_t)s->set.frames.count + 1) * sizeof *rows_of);
	bool ok = add_stacks(t, metric, s, calls, rows_of);
	free(rows_of);
	return ok;
}

static double avg_of(const struct fk_table_row *r, int m)
{
	return r->calls ? fk_num_to_double(r->total[m]) / (double)r->calls : 0;
}

static int by_key(const void *x, const void *y, void *ctx)
{
	const struct fk_table_row *a = *(const struct fk_table_row *const *)x;
	const struct fk_table_row *b = *(const struct fk_table_row *const *)y;
	const struct fk_table_sort *sort = ctx;
	int m = sort->metric, c = 0;
	switch (sort->key) {
	case FK_TABLE_SELF: c = fk_num_cmp(b->self[m], a->self[m]); break;
	case FK_TABLE_TOTAL: c = fk_num_cmp(b->total[m], a->total[m]); break;
	case FK_TABLE_CALLS: c = (b->calls > a->calls) - (b->calls < a->calls); break;
	case FK_TABLE_AVG: c = (avg_of(b, m) > avg_of(a, m)) - (avg_of(b, m) < avg_of(a, m)); break;
	case FK_TABLE_NAME: break;
	}
	if (c)
		return c;
	size_t n = a->len < b->len ? a->len : b->len;
	c = memcmp(a->name, b->name, n);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

size_t fk_table_select(const struct fk_table *t, enum fk_table_by by, struct fk_table_sort sort,
		       const struct fk_table_row ***out)
{
	uint32_t n = t->names.count, k = 0;
	const struct fk_table_row **rows = malloc(((size_t)n + 1) * sizeof *rows);
	if (!rows)
		return SIZE_MAX;
	for (uint32_t i = 0; i < n; i++) {
		const struct fk_table_row *r = &t->rows[i];
		bool keep = by == FK_TABLE_BY_FRAME ? true
			    : by == FK_TABLE_BY_LEAF ? r->leaf[0] || r->leaf[1]
			    : r->leaf[1];
		if (keep)
			rows[k++] = r;
	}
	qsort_r(rows, k, sizeof *rows, by_key, &sort);
	*out = rows;
	return k;
}

void fk_table_free(struct fk_table *t)
{
	fk_strtab_free(&t->names);
	free(t->rows);
	*t = (struct fk_table){ 0 };
}
