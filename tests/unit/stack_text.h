/* stack_text.h - a stack table's stacks as text, for assertions.
 *
 * Tables keep stacks as frame ids; these give a stack's text back (in one
 * of a few buffers reused in turn, so two may be compared) and find a stack
 * by its text.
 */
#ifndef TEST_STACK_TEXT_H
#define TEST_STACK_TEXT_H

#include <stdint.h>

#include "analysis/core/stacks.h"

/* Stack id's text, valid until the fourth call after this one. */
static inline const struct fk_str *stack_text(const struct fk_stacks *s, uint32_t id)
{
	static char *bufs[4];
	static size_t caps[4];
	static struct fk_str strs[4];
	static unsigned next;
	unsigned k = next++ % 4;
	size_t len = fk_stacks_text(s, id, &bufs[k], &caps[k]);
	assert_true(len != SIZE_MAX);
	strs[k] = (struct fk_str){ .p = bufs[k], .len = (uint32_t)len };
	return &strs[k];
}

/* The id of the stack p[0..len), or FK_STACKSET_NONE. */
static inline uint32_t stack_find(const struct fk_stacks *s, const char *p, size_t len)
{
	return fk_stackset_find(&s->set, len, fk_text_hash(p, len));
}

#endif
