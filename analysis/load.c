/* load.c - stack text files into a stacks table (see load.h). */
#include "load.h"

#include <stdlib.h>

#include "../formats/stacktext.h"

struct load_ctx {
	struct fk_stacks *stacks;
	struct fk_seq *seq;
	struct fk_diag *d;
	const char *name;
	bool failed;
};

static bool seq_push(struct fk_seq *s, const struct fk_seq_item *it)
{
	if (s->count == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct fk_seq_item *g = realloc(s->items, cap * sizeof *g);
		if (!g)
			return false;
		s->items = g;
		s->cap = cap;
	}
	s->items[s->count++] = *it;
	return true;
}

static bool on_line(void *arg, const char *line, size_t len, uint64_t lineno)
{
	struct load_ctx *c = arg;
	struct fk_stackline sl;
	const char *why = NULL;
	switch (fk_stackline_parse(line, len, &sl, &why)) {
	case FK_STACKLINE_SKIP:
		return true;
	case FK_STACKLINE_INVALID:
		return fk_diag_line(c->d, c->name, lineno, "%s", why);
	case FK_STACKLINE_STACK:
		break;
	}
	uint32_t id;
	enum fk_stacks_status st = fk_stacks_add(c->stacks, sl.stack, sl.stack_len, sl.before,
						 sl.value, sl.nvalues, &id);
	if (st == FK_STACKS_OK && c->seq) {
		struct fk_seq_item it = {
			.stack = id,
			.nvalues = (uint8_t)sl.nvalues, .before = sl.before, .value = sl.value,
		};
		if (!seq_push(c->seq, &it))
			st = FK_STACKS_NOMEM;
	}
	if (st == FK_STACKS_OVERFLOW) {
		fk_diag_error(c->d, "%s:%llu: sum of values passes 64 bits", c->name,
			      (unsigned long long)lineno);
		c->failed = true;
		return false;
	}
	if (st == FK_STACKS_NOMEM) {
		fk_diag_error(c->d, "%s:%llu: out of memory", c->name, (unsigned long long)lineno);
		c->failed = true;
		return false;
	}
	return true;
}

enum fk_input_result fk_load_stacktext(const char *path, struct fk_stacks *into,
				       struct fk_seq *seq, struct fk_diag *d)
{
	struct load_ctx c = {
		.stacks = into, .seq = seq, .d = d, .name = fk_input_display_name(path),
	};
	enum fk_input_result r = fk_input_lines(path, c.name, on_line, &c, d);
	return c.failed ? FK_INPUT_ERROR : r;
}

void fk_seq_free(struct fk_seq *s)
{
	free(s->items);
	*s = (struct fk_seq){ 0 };
}
