/* fold_text.h - a capture folded as stackfold prints it (root first, sorted
 * by stack), as one malloc'd string, for unit tests to compare. Header-only;
 * include after cmocka.h.
 */
#ifndef FK_TEST_FOLD_TEXT_H
#define FK_TEST_FOLD_TEXT_H

#include <stdio.h>
#include <stdlib.h>

#include "analysis/capture/model.h"
#include "analysis/core/folded_write.h"

static char *fold_text(const struct fk_capture *c, const struct fk_cap_fold_opts *o)
{
	struct fk_diag d;
	fk_diag_init(&d, "test");
	d.quiet = true;
	struct fk_stacks s = { 0 };
	assert_true(fk_capture_fold(c, o, &s, &d));
	uint32_t *ids = fk_stacks_sorted(&s, FK_ORDER_STACK);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct fk_folded_opts wo = { .order = ids, .count = fk_stacks_count(&s) };
	uint64_t written;
	fk_folded_write(f, &s, &wo, &written);
	fclose(f);
	free(ids);
	fk_stacks_free(&s);
	return text;
}

#endif
