/* stacks.c - unique stacks and their exact sums (see stacks.h). */
#include "stacks.h"

#include <stdlib.h>
#include <string.h>

static bool ensure_sums(struct fk_stacks *s, uint32_t id)
{
	if (id < s->cap)
		return true;
	uint32_t cap = s->cap ? s->cap * 2 : 256;
	while (cap <= id)
		cap *= 2;
	struct fk_stack_sums *sums = realloc(s->sums, (size_t)cap * sizeof *sums);
	if (!sums)
		return false;
	s->sums = sums;
	s->cap = cap;
	return true;
}

enum fk_stacks_status fk_stacks_add_sums(struct fk_stacks *s, const char *stack, size_t len,
					 const struct fk_stack_sums *add, uint32_t *id_out)
{
	bool added;
	uint32_t id = fk_strtab_intern(&s->keys, stack, len, &added);
	if (id == FK_STRTAB_NONE || !ensure_sums(s, id))
		return FK_STACKS_NOMEM;
	struct fk_stack_sums *e = &s->sums[id];
	if (added)
		*e = (struct fk_stack_sums){ 0 };
	struct fk_stack_sums next = *e;
	struct fk_num total = s->total;
	if (!fk_num_add(&next.value, add->value) || !fk_num_add(&next.before, add->before) ||
	    !fk_num_add(&total, add->value))
		return FK_STACKS_OVERFLOW;
	next.diff |= add->diff;
	*e = next;
	s->total = total;
	s->any_diff |= add->diff;
	if (id_out)
		*id_out = id;
	return FK_STACKS_OK;
}

enum fk_stacks_status fk_stacks_add(struct fk_stacks *s, const char *stack, size_t len,
				    struct fk_num before, struct fk_num value, int nvalues,
				    uint32_t *id)
{
	struct fk_stack_sums one = {
		.value = value,
		.before = nvalues == 2 ? before : value,
		.diff = nvalues == 2,
	};
	enum fk_stacks_status st = fk_stacks_add_sums(s, stack, len, &one, id);
	if (st == FK_STACKS_OK)
		s->lines++;
	return st;
}

/* qsort has no context argument in C11; the table being sorted is kept here
 * for the duration of one fk_stacks_sorted() call. */
static _Thread_local const struct fk_stacks *sorting;

/* Byte order. When one stack is a prefix of the other, plain order puts the
 * shorter first. Flame order compares whole lines as flamegraph.pl does:
 * each stack is followed by " " and a count, so the shorter one continues
 * with " " and a digit (the count's exact digits are gone after aggregation:
 * '0' stands for them). */
static int cmp_bytes(const struct fk_str *a, const struct fk_str *b, bool flame)
{
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->p, b->p, n);
	if (c || a->len == b->len)
		return c;
	if (!flame)
		return a->len < b->len ? -1 : 1;
	const struct fk_str *longer = a->len < b->len ? b : a;
	static const char tail[] = " 0";
	int shorter_first = -1;
	for (size_t k = 0; k < 2; k++) {
		size_t at = n + k;
		unsigned char next = at < longer->len ? (unsigned char)longer->p[at]
						      : (unsigned char)tail[at - longer->len];
		if ((unsigned char)tail[k] != next) {
			shorter_first = (unsigned char)tail[k] < next ? -1 : 1;
			break;
		}
	}
	return a->len < b->len ? shorter_first : -shorter_first;
}

static int cmp_stack(const void *x, const void *y)
{
	const struct fk_strtab *k = &sorting->keys;
	return cmp_bytes(fk_strtab_get(k, *(const uint32_t *)x),
			 fk_strtab_get(k, *(const uint32_t *)y), false);
}

static int cmp_flame(const void *x, const void *y)
{
	const struct fk_strtab *k = &sorting->keys;
	return cmp_bytes(fk_strtab_get(k, *(const uint32_t *)x),
			 fk_strtab_get(k, *(const uint32_t *)y), true);
}

static int cmp_value(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = fk_num_cmp(sorting->sums[b].value, sorting->sums[a].value);
	return c ? c : cmp_stack(x, y);
}

uint32_t *fk_stacks_sorted(const struct fk_stacks *s, enum fk_stacks_order order)
{
	uint32_t n = fk_stacks_count(s);
	uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
	if (!ids)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	sorting = s;
	qsort(ids, n, sizeof *ids,
	      order == FK_ORDER_STACK ? cmp_stack : order == FK_ORDER_FLAME ? cmp_flame : cmp_value);
	sorting = NULL;
	return ids;
}

void fk_stacks_free(struct fk_stacks *s)
{
	fk_strtab_free(&s->keys);
	free(s->sums);
	*s = (struct fk_stacks){ 0 };
}
