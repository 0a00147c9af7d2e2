/* test_load_oom.c - a mapped stack file loaded while memory runs out at
 * every allocation in turn (reading, merging, splitting the stacks the
 * readers left unsplit): the load succeeds or says it failed, and the
 * table it leaves holds only split stacks whose texts read back as they
 * were, each found again by its text. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/core/stackload.h"
#include "scratch_dir.h"
#include "stack_text.h"

/* Linked with --wrap=malloc,realloc,calloc (Makefile): while armed, every
 * allocation from the fail_from-th on fails. A build where the wraps do
 * not reach the library makes no wrapped call, and the test is skipped. */
static unsigned long fail_from, counted;
static unsigned long wrapped;
void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void *__real_calloc(size_t k, size_t n);

static int fails(void)
{
	wrapped++;
	return fail_from && ++counted >= fail_from;
}

void *__wrap_malloc(size_t n)
{
	return fails() ? NULL : __real_malloc(n);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fails() ? NULL : __real_realloc(p, n);
}

void *__wrap_calloc(size_t k, size_t n)
{
	return fails() ? NULL : __real_calloc(k, n);
}

static int setup(void **state)
{
	(void)state;
	return scratch_make("fk_test_load_oom");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

/* 400 lines of 60 stacks that share their outer frames. */
static const char *write_stacks(void)
{
	static char text[400 * 96];
	size_t len = 0;
	for (int i = 0; i < 400; i++)
		len += (size_t)snprintf(text + len, sizeof text - len, "main;run_%d;step_%d;leaf_%d %d\n",
					i % 7, i % 60, i % 13, i + 1);
	const char *path = path_of("stacks.txt");
	write_file(path, text, len);
	return path;
}

static void test_out_of_memory_everywhere(void **state)
{
	(void)state;
	const char *path = write_stacks();
	setenv("FLAMEKIT_THREADS", "1", 1);
	struct fk_stacks want = { 0 };
	struct fk_diag d;
	fk_diag_init(&d, "test_load_oom");
	d.quiet = true;
	assert_int_equal(fk_load_stacktext(path, &want, NULL, &d), FK_INPUT_OK);
	if (wrapped == 0) {
		fk_stacks_free(&want);
		skip();
	}
	bool finished = false;
	unsigned partial = 0;
	/* The failures' "out of memory" messages go nowhere. */
	fflush(stderr);
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	assert_true(saved >= 0 && null >= 0);
	dup2(null, 2);
	for (unsigned long k = 1; k < 100000 && !finished; k++) {
		struct fk_stacks s = { 0 };
		fk_diag_init(&d, "test_load_oom");
		d.quiet = true;
		counted = 0;
		fail_from = k;
		enum fk_input_result r = fk_load_stacktext(path, &s, NULL, &d);
		fail_from = 0;
		finished = r == FK_INPUT_OK;
		partial += !finished && fk_stacks_count(&s) > 0 && fk_stacks_count(&s) < fk_stacks_count(&want);
		if (finished)
			assert_int_equal(fk_stacks_count(&s), fk_stacks_count(&want));
		for (uint32_t id = 0; id < fk_stacks_count(&s); id++) {
			assert_false(fk_stackset_is_lazy(&s.set, id));
			const struct fk_str *text = stack_text(&s, id);
			uint32_t in_want = stack_find(&want, text->p, text->len);
			assert_int_not_equal(in_want, FK_STACKSET_NONE);
			assert_int_equal(stack_find(&s, text->p, text->len), id);
		}
		fk_stacks_free(&s);
	}
	dup2(saved, 2);
	close(saved);
	close(null);
	assert_true(finished);
	assert_true(partial > 0); /* some loads failed while splitting */
	fk_stacks_free(&want);
	unsetenv("FLAMEKIT_THREADS");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_of_memory_everywhere),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
