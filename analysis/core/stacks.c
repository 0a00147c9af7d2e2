/* stacks.c - unique stacks and their exact sums (see stacks.h). */
#include "analysis/core/stacks.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

static bool ensure_sums(struct fk_stacks *s, uint32_t id)
{
	return FK_GROW(s->sums, s->cap, (size_t)id + 1, 256);
}

/* The sums of a stack already interned as id (added: new to the table). */
static enum fk_stacks_status add_at(struct fk_stacks *s, uint32_t id, bool added,
				    const struct fk_stack_sums *add, struct fk_num total,
				    struct fk_num total_before)
{
	if (id == FK_STACKSET_NONE || !ensure_sums(s, id))
		return FK_STACKS_NOMEM;
	struct fk_stack_sums *e = &s->sums[id];
	if (added)
		*e = (struct fk_stack_sums){ 0 };
	fk_num_add(&e->value, add->value);
	fk_num_add(&e->before, add->before);
	e->diff |= add->diff;
	e->lines += add->lines;
	s->total = total;
	s->total_before = total_before;
	s->any_diff |= add->diff;
	return FK_STACKS_OK;
}

/* A stack's sums never exceed the totals, so checking the totals first
 * refuses an overflow before anything is added. */
static bool totals_after(const struct fk_stacks *s, const struct fk_stack_sums *add,
			 struct fk_num *total, struct fk_num *total_before)
{
	*total = s->total;
	*total_before = s->total_before;
	return fk_num_add(total, add->value) && fk_num_add(total_before, add->before);
}

enum fk_stacks_status fk_stacks_add_sums(struct fk_stacks *s, const char *stack, size_t len,
					 const struct fk_stack_sums *add, uint32_t *id_out)
{
	struct fk_num total, total_before;
	if (!totals_after(s, add, &total, &total_before))
		return FK_STACKS_OVERFLOW;
	bool added;
	uint32_t id = fk_stackset_intern(&s->set, stack, len, fk_text_hash(stack, len), &added);
	enum fk_stacks_status st = add_at(s, id, added, add, total, total_before);
	if (st == FK_STACKS_OK && id_out)
		*id_out = id;
	return st;
}

enum fk_stacks_status fk_stacks_add_batch(struct fk_stacks *s, struct fk_stacks_pending *p,
					  size_t n, bool lazy, size_t *done)
{
	/* The slots were prefetched when the lines were hashed; now the
	 * entries, and the sums of the stacks they guess (a line known by its
	 * hash needs nothing else). */
	for (size_t i = 0; i < n; i++) {
		uint32_t id = fk_stackset_prefetch_entry(&s->set, p[i].hash.hash);
		if (id < s->cap) { /* its first and last bytes: it may span two lines */
			__builtin_prefetch(&s->sums[id]);
			__builtin_prefetch((const char *)&s->sums[id + 1] - 1);
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct fk_stack_sums one = {
			.value = p[i].value,
			.before = p[i].nvalues == 2 ? p[i].before : p[i].value,
			.diff = p[i].nvalues == 2,
			.lines = 1,
		};
		struct fk_num total, total_before;
		if (!totals_after(s, &one, &total, &total_before)) {
			*done = i;
			return FK_STACKS_OVERFLOW;
		}
		bool added;
		uint32_t id = lazy ? fk_stackset_intern_lazy(&s->set, p[i].stack, p[i].len, p[i].hash, &added)
				   : fk_stackset_intern(&s->set, p[i].stack, p[i].len, p[i].hash, &added);
		enum fk_stacks_status st = add_at(s, id, added, &one, total, total_before);
		if (st != FK_STACKS_OK) {
			*done = i;
			return st;
		}
		p[i].id = id;
		s->lines++;
	}
	*done = n;
	return FK_STACKS_OK;
}

enum fk_stacks_status fk_stacks_merge(struct fk_stacks *s, struct fk_stacks *from)
{
	/* A merge whose totals would pass 128 bits adds nothing (every stack's
	 * sums are within the totals). */
	struct fk_stack_sums all = { .value = from->total, .before = from->total_before };
	struct fk_num total, total_before;
	if (!totals_after(s, &all, &total, &total_before)) {
		fk_stacks_free(from);
		return FK_STACKS_OVERFLOW;
	}
	uint32_t n = fk_stacks_count(from), had = fk_stacks_count(s);
	uint32_t *into = malloc(((size_t)n + 1) * sizeof *into);
	bool merged = into && fk_stackset_take(&s->set, &from->set, into);
	/* Stacks new to s (ids past what it had) start from zero sums, also
	 * when the merge stopped half way. */
	uint32_t now = fk_stacks_count(s);
	if (now > had && ensure_sums(s, now - 1))
		memset(&s->sums[had], 0, (size_t)(now - had) * sizeof *s->sums);
	else if (now > had)
		merged = false;
	enum fk_stacks_status st = merged ? FK_STACKS_OK : FK_STACKS_NOMEM;
	for (uint32_t id = 0; id < n && st == FK_STACKS_OK; id++) {
		if (id + 16 < n) /* s's sums are in another order: fetch ahead */
			__builtin_prefetch(&s->sums[into[id + 16]]);
		/* The running totals stay within the final ones, checked above. */
		struct fk_num run = s->total, run_before = s->total_before;
		fk_num_add(&run, from->sums[id].value);
		fk_num_add(&run_before, from->sums[id].before);
		st = add_at(s, into[id], false, &from->sums[id], run, run_before);
	}
	free(into);
	s->lines += from->lines;
	fk_stacks_free(from);
	return st;
}

enum fk_stacks_status fk_stacks_add(struct fk_stacks *s, const char *stack, size_t len,
				    struct fk_num before, struct fk_num value, int nvalues,
				    uint32_t *id)
{
	struct fk_stack_sums one = {
		.value = value,
		.before = nvalues == 2 ? before : value,
		.diff = nvalues == 2,
		.lines = 1,
	};
	enum fk_stacks_status st = fk_stacks_add_sums(s, stack, len, &one, id);
	if (st == FK_STACKS_OK)
		s->lines++;
	return st;
}


size_t fk_stacks_text(const struct fk_stacks *s, uint32_t id, char **buf, size_t *cap)
{
	size_t len = fk_stackset_get(&s->set, id)->text_len;
	if (!FK_GROW(*buf, *cap, len + 1, 256))
		return SIZE_MAX;
	return fk_stackset_text(&s->set, id, *buf);
}

void fk_stacks_free(struct fk_stacks *s)
{
	fk_stackset_free(&s->set);
	free(s->sums);
	*s = (struct fk_stacks){ 0 };
}
