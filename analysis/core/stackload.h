/* stackload.h - reading stack text files (torch export_stacks, folded) into an
 * fk_stacks table, reporting bad lines through fk_diag.
 *
 * Owns: nothing beyond the call. The optional sequence records every line's
 * stack id and values in input order, for flame charts (which keep order).
 */
#ifndef FK_LOAD_H
#define FK_LOAD_H

#include "formats/diag.h"
#include "formats/input.h"
#include "analysis/core/stacks.h"

struct fk_seq_item {
	uint32_t stack;
	uint8_t nvalues;
	struct fk_num before, value;
};

struct fk_seq {
	struct fk_seq_item *items;
	size_t count, cap;
};

/* The stack text of an open input (any kind is read as stack text).
 * FK_INPUT_ERROR also covers a sum passing 128 bits (a wrong result). */
enum fk_input_result fk_load_stacktext_input(struct fk_input *in, struct fk_stacks *into,
					     struct fk_seq *seq, struct fk_diag *d);
/* The same, opening path ("-": stdin) itself. */
enum fk_input_result fk_load_stacktext(const char *path, struct fk_stacks *into,
				       struct fk_seq *seq, struct fk_diag *d);

void fk_seq_free(struct fk_seq *s);

#endif
