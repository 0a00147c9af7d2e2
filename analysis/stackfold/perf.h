/* perf.h - perf script samples (formats/perfscript.h) summed into a stacks
 * table, with --inline answered by analysis/sym/perfinline: what
 * stackcollapse-perf.pl prints, before sorting.
 *
 * Owns: nothing beyond a call.
 */
#ifndef FK_STACKFOLD_PERF_H
#define FK_STACKFOLD_PERF_H

#include "analysis/core/stacks.h"
#include "formats/perfscript.h"

enum fk_input_result fk_perf_load_input(struct fk_input *in, const struct fk_perf_opts *o,
					struct fk_stacks *into, struct fk_diag *d);
/* The same, opening path ("-": stdin) itself. */
enum fk_input_result fk_perf_load(const char *path, const struct fk_perf_opts *o,
				  struct fk_stacks *into, struct fk_diag *d);

#endif
