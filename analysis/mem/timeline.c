/* timeline.c - memtimeline's inputs into one replayed timeline (see
 * timeline.h). */
#include "analysis/mem/timeline.h"

bool fk_memtimeline_build(struct fk_memtimeline *m, char *const *paths, size_t npaths,
			  int16_t device, const struct fk_py_opts *py, struct fk_diag *d)
{
	*m = (struct fk_memtimeline){ 0 };
	fk_mem_init(&m->tl);
	if (!fk_mem_load(&m->tl, &m->in, paths, npaths, device, py, d) ||
	    !fk_mem_check(&m->tl, &m->in, &m->rep, d))
		return false;
	m->warnings = d->bad_lines;
	if (d->bad_lines && !d->quiet)
		fk_diag_error(d, "%llu warning%s%s", (unsigned long long)d->bad_lines,
			      d->bad_lines == 1 ? "" : "s",
			      d->bad_lines > d->max_shown ? " (the first 5 shown)" : "");
	return true;
}

void fk_memtimeline_free(struct fk_memtimeline *m)
{
	fk_mem_report_free(&m->rep);
	fk_mem_inputs_free(&m->in);
	fk_mem_free(&m->tl);
}
