/* stacktext.h - one line of folded stack text, as written by torch's
 * export_stacks, the stackcollapse tools and stackfold:
 *
 *     frame;frame;...;leaf VALUE            (or "... VALUE1 VALUE2": differential)
 *
 * Owns: the line grammar (see formats/STACKTEXT.md). Parsing never allocates;
 * the stack in the result points into the caller's line.
 */
#ifndef FK_STACKTEXT_H
#define FK_STACKTEXT_H

#include <stddef.h>

#include "formats/num.h"

enum fk_stackline_kind {
	FK_STACKLINE_STACK,   /* a stack and one or two values */
	FK_STACKLINE_SKIP,    /* blank or '#' comment: ignore silently */
	FK_STACKLINE_INVALID, /* reason in why */
};

struct fk_stackline {
	const char *stack; /* frames separated by ';', may be empty */
	size_t stack_len;
	struct fk_num value;  /* the last value: width in flame graphs */
	struct fk_num before; /* the first of two values (differential), else = value */
	int nvalues;          /* 1 or 2 */
};

enum fk_stackline_kind fk_stackline_parse(const char *line, size_t len,
					  struct fk_stackline *out, const char **why);

#endif
