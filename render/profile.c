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

/* The frames of every stack of keys, interned into p's frame table;
 * stack i's are (*frame_ids)[(*first)[i] .. (*first)[i + 1]). */
static bool split_frames(struct fk_profile *p, const struct fk_strtab *keys, uint32_t **first,
			 uint32_t **frame_ids)
{
	uint32_t n = keys->count;
	size_t cap = (size_t)n * 4 + 16, len = 0;
	*first = malloc(((size_t)n + 1) * sizeof **first);
	*frame_ids = malloc(cap * sizeof **frame_ids);
	if (!*first || !*frame_ids)
		return false;
	for (uint32_t i = 0; i < n; i++) {
		const struct fk_str *s = fk_strtab_get(keys, i);
		(*first)[i] = (uint32_t)len;
		const char *f = s->p, *end = s->p + s->len;
		while (s->len && f <= end) {
			const char *semi = memchr(f, ';', (size_t)(end - f));
			const char *stop = semi ? semi : end;
			uint32_t id = fk_strtab_intern(&p->frames, f, (size_t)(stop - f), NULL);
			if (id == FK_STRTAB_NONE || len == UINT32_MAX ||
			    !FK_GROW(*frame_ids, cap, len + 1, 64))
				return false;
			(*frame_ids)[len++] = id;
			f = stop + 1;
		}
	}
	(*first)[n] = (uint32_t)len;
	return true;
}

enum fk_profile_status fk_profile_build(struct fk_profile *p)
{
	for (size_t t = 0; t < p->ntypes; t++)
		if (p->types[t].stacks->any_diff)
			return FK_PROFILE_DIFFERENTIAL;
	/* One type: its own table is the list of stacks; several: their union,
	 * the first type's stacks first. */
	p->keys = &p->types[0].stacks->keys;
	if (p->ntypes > 1) {
		for (size_t t = 0; t < p->ntypes; t++) {
			const struct fk_strtab *k = &p->types[t].stacks->keys;
			for (uint32_t i = 0; i < k->count; i++) {
				const struct fk_str *s = fk_strtab_get(k, i);
				if (fk_strtab_intern_hashed(&p->own_keys, s->p, s->len, s->hash, NULL) ==
				    FK_STRTAB_NONE)
					return FK_PROFILE_NOMEM;
			}
		}
		p->keys = &p->own_keys;
	}
	size_t n = p->keys->count;
	p->values = calloc(n * p->ntypes + 1, sizeof *p->values);
	if (!p->values)
		return FK_PROFILE_NOMEM;
	for (size_t t = 0; t < p->ntypes; t++) {
		const struct fk_stacks *s = p->types[t].stacks;
		for (uint32_t i = 0; i < fk_stacks_count(s); i++) {
			uint32_t at = i;
			if (p->ntypes > 1) {
				const struct fk_str *k = fk_strtab_get(&s->keys, i);
				at = fk_strtab_intern_hashed(&p->own_keys, k->p, k->len, k->hash, NULL);
			}
			p->values[(size_t)at * p->ntypes + t] = s->sums[i].value;
		}
	}
	bool ok = split_frames(p, p->keys, &p->first, &p->frame_ids) &&
		  (!p->timeline ||
		   split_frames(p, &p->timeline->stacks, &p->tl_first, &p->tl_frame_ids));
	return ok ? FK_PROFILE_OK : FK_PROFILE_NOMEM;
}

void fk_profile_free(struct fk_profile *p)
{
	fk_strtab_free(&p->frames);
	fk_strtab_free(&p->own_keys);
	free(p->first);
	free(p->frame_ids);
	free(p->values);
	free(p->tl_first);
	free(p->tl_frame_ids);
	p->first = p->frame_ids = p->tl_first = p->tl_frame_ids = NULL;
	p->values = NULL;
}
