/* folded_write.c - folded text output (see folded_write.h). */
#include "analysis/core/folded_write.h"

int fk_folded_write(FILE *out, const struct fk_stacks *s, const struct fk_folded_opts *o,
		    uint64_t *written)
{
	char num[FK_NUM_TEXT_MAX];
	uint64_t n = 0;
	flockfile(out);
	for (uint32_t i = 0; i < o->count; i++) {
		uint32_t id = o->order[i];
		const struct fk_stack_sums *v = &s->sums[id];
		if (fk_num_cmp(v->value, o->min) < 0)
			continue;
		/* One writer, so the stream's lock is taken once, not per call. */
		const struct fk_stack_entry *e = fk_stackset_get(&s->set, id);
		for (uint32_t f = 0; f < e->nframes; f++) {
			const struct fk_str *name = fk_stackset_frame(&s->set, e->frames[f]);
			if (f)
				putc_unlocked(';', out);
			fwrite_unlocked(name->p, 1, name->len, out);
		}
		if (s->any_diff) {
			putc_unlocked(' ', out);
			fwrite_unlocked(num, 1, fk_num_format(v->before, num), out);
		}
		putc_unlocked(' ', out);
		fwrite_unlocked(num, 1, fk_num_format(v->value, num), out);
		putc_unlocked('\n', out);
		n++;
	}
	funlockfile(out);
	*written = n;
	return ferror(out) ? -1 : 0;
}
