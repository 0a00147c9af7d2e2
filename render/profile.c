/* profile.c - typed stack tables as one profile (see profile.h). */
#include "render/profile.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

const char *fk_profile_unit_speedscope(enum fk_profile_unit u)
{
	switch (u) {
	case FK_PUNIT_MICROSECONDS: return "microseconds";
	case FK_PUNIT_BYTES: return "bytes";
	case FK_PUNIT_NONE:
	case FK_PUNIT_COUNT: break;
	}
	return "none";
}

/* Stacks as runs of frame ids: stack i's are ids[first[i] .. first[i + 1]). */
struct frame_runs {
	uint32_t *first, *ids;
	size_t len, cap;
};

static bool runs_start(struct frame_runs *r, uint32_t n)
{
	r->cap = (size_t)n * 4 + 16;
	r->first = malloc(((size_t)n + 1) * sizeof *r->first);
	r->ids = malloc(r->cap * sizeof *r->ids);
	return r->first && r->ids;
}

static bool runs_push(struct frame_runs *r, uint32_t id)
{
	if (id == FK_STRTAB_NONE || r->len == UINT32_MAX || !FK_GROW(r->ids, r->cap, r->len + 1, 64))
		return false;
	r->ids[r->len++] = id;
	return true;
}

/* The frames of every stack of set, interned into p's frame table, each
 * name once, when a stack first uses it (so the table holds the names of
 * frames only, in order of use). An empty stack has no frames. */
static bool split_set(struct fk_profile *p, const struct fk_stackset *set, struct frame_runs *r)
{
	size_t nnames = (size_t)set->frames.count + 1;
	uint32_t *as = malloc(nnames * sizeof *as);
	bool ok = as && runs_start(r, set->count);
	if (as)
		memset(as, 0xff, nnames * sizeof *as);
	for (uint32_t i = 0; ok && i < set->count; i++) {
		const struct fk_stack_entry *e = fk_stackset_get(set, i);
		r->first[i] = (uint32_t)r->len;
		for (uint32_t k = 0; ok && e->text_len && k < e->nframes; k++) {
			uint32_t *id = &as[e->frames[k]];
			if (*id == FK_STRTAB_NONE) {
				const struct fk_str *name = fk_stackset_frame(set, e->frames[k]);
				*id = fk_strtab_intern(&p->frames, name->p, name->len, NULL);
			}
			ok = runs_push(r, *id);
		}
	}
	if (ok)
		r->first[set->count] = (uint32_t)r->len;
	free(as);
	return ok;
}

/* The same for stacks kept as text. */
static bool split_texts(struct fk_profile *p, const struct fk_strtab *keys, struct frame_runs *r)
{
	if (!runs_start(r, keys->count))
		return false;
	for (uint32_t i = 0; i < keys->count; i++) {
		const struct fk_str *s = fk_strtab_get(keys, i);
		r->first[i] = (uint32_t)r->len;
		const char *f = s->p, *end = s->p + s->len;
		while (s->len && f <= end) {
			const char *semi = memchr(f, ';', (size_t)(end - f));
			const char *stop = semi ? semi : end;
			if (!runs_push(r, fk_strtab_intern(&p->frames, f, (size_t)(stop - f), NULL)))
				return false;
			f = stop + 1;
		}
	}
	r->first[keys->count] = (uint32_t)r->len;
	return true;
}

enum fk_profile_status fk_profile_build(struct fk_profile *p)
{
	for (size_t t = 0; t < p->ntypes; t++)
		if (p->types[t].stacks->any_diff)
			return FK_PROFILE_DIFFERENTIAL;
	/* One type: its own table is the list of stacks; several: their union,
	 * the first type's stacks first. */
	uint32_t *at[FK_PROFILE_MAX_TYPES] = { 0 };
	bool ok = true;
	p->set = &p->types[0].stacks->set;
	if (p->ntypes > 1) {
		for (size_t t = 0; t < p->ntypes && ok; t++) {
			const struct fk_stackset *set = &p->types[t].stacks->set;
			ok = (at[t] = malloc(((size_t)set->count + 1) * sizeof *at[t])) != NULL &&
			     fk_stackset_merge(&p->own_set, set, at[t]);
		}
		p->set = &p->own_set;
	}
	size_t n = p->set->count;
	p->values = ok ? calloc(n * p->ntypes + 1, sizeof *p->values) : NULL;
	for (size_t t = 0; p->values && t < p->ntypes; t++) {
		const struct fk_stacks *s = p->types[t].stacks;
		for (uint32_t i = 0; i < fk_stacks_count(s); i++)
			p->values[(size_t)(at[t] ? at[t][i] : i) * p->ntypes + t] = s->sums[i].value;
	}
	for (size_t t = 0; t < p->ntypes; t++)
		free(at[t]);
	struct frame_runs runs = { 0 }, tl = { 0 };
	ok = p->values && split_set(p, p->set, &runs) &&
	     (!p->timeline || split_texts(p, &p->timeline->stacks, &tl));
	p->first = runs.first;
	p->frame_ids = runs.ids;
	p->tl_first = tl.first;
	p->tl_frame_ids = tl.ids;
	return ok ? FK_PROFILE_OK : FK_PROFILE_NOMEM;
}

void fk_profile_free(struct fk_profile *p)
{
	fk_strtab_free(&p->frames);
	fk_stackset_free(&p->own_set);
	free(p->first);
	free(p->frame_ids);
	free(p->values);
	free(p->tl_first);
	free(p->tl_frame_ids);
	p->first = p->frame_ids = p->tl_first = p->tl_frame_ids = NULL;
	p->values = NULL;
}
