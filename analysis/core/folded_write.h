/* folded_write.h - writing aggregated stacks as folded text ("stack VALUE" or
 * "stack BEFORE AFTER" when the input was differential), which flamegraph.pl,
 * speedscope and our own readers accept.
 *
 * Owns: nothing. Returns -1 on a write error (errno set).
 */
#ifndef FK_FOLDED_H
#define FK_FOLDED_H

#include <stdio.h>

#include "analysis/core/stacks.h"

struct fk_folded_opts {
	const uint32_t *order;  /* ids to write, in this order (count of them) */
	uint32_t count;
	struct fk_num min;      /* skip stacks whose value is below this */
};

/* Writes the stacks; *written gets how many lines were written. */
int fk_folded_write(FILE *out, const struct fk_stacks *s, const struct fk_folded_opts *o,
		    uint64_t *written);

#endif
