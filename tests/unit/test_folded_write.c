/* test_folded_write.c - folded text output (analysis/core/folded_write.c):
 * a big output (rendered in blocks that a second thread writes) is byte for
 * byte the lines one would write one at a time, in the order given, with
 * "BEFORE AFTER" for differential input and stacks under the minimum left
 * out, also with lines about as long as a block or longer (written across
 * blocks); a small one the same; a write that fails is reported, with errno.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/core/folded_write.h"

/* Linked with --wrap=malloc (Makefile): while armed, the allocation of
 * output block number fail_block (1 MiB each, counted from 1) fails. A
 * build where the wrap does not reach the library makes no wrapped call,
 * and the test that needs it is skipped. */
static unsigned fail_block, blocks_asked, wrapped_mallocs;
void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n)
{
	wrapped_mallocs++;
	if (fail_block && n == (size_t)1 << 20 && ++blocks_asked == fail_block)
		return NULL;
	return __real_malloc(n);
}

static struct fk_num num(uint64_t v)
{
	return (struct fk_num){ .mant = v, .scale = 0 };
}

/* Lines about as long as a 1 MiB block: one that fits an empty one, and
 * two that do not (written across blocks). */
static const size_t huge_names[] = { ((size_t)1 << 20) - 600, ((size_t)1 << 20) - 100,
				     ((size_t)1 << 20) + 5000 };

/* n distinct stacks of long names (about 140 to 210 bytes a line; a name
 * past 64 bytes, or an empty one, last), stack i with value i + 1 (and
 * i + 2 before, when diff); huge: every 4,999th of them ends in a name of
 * huge_names' lengths instead. */
static void build_lines(struct fk_stacks *s, uint32_t n, bool diff, bool huge)
{
	char line[512];
	char *name = huge ? malloc(huge_names[2] + 64) : NULL;
	for (uint32_t i = 0; i < n; i++) {
		if (huge && i % 4999 == 17) {
			size_t len = huge_names[i / 4999 % 3];
			int head = snprintf(name, 64, "root;huge_%u;", i);
			memset(name + head, 'h', len);
			assert_int_equal(fk_stacks_add(s, name, (size_t)head + len, num(i + 2),
						       num(i + 1), diff ? 2 : 1, NULL),
					 FK_STACKS_OK);
			continue;
		}
		int len = snprintf(line, sizeof line,
				   "root_frame_with_a_long_name_%u;middle/module/file.py(%u):function_%u;"
				   "torch/nn/modules/very_long_module_name.py(1234):_call_impl;leaf_%u;%s",
				   i % 7, i % 113, i % 50, i,
				   i % 3 ? "" : "a_name_longer_than_sixty_four_bytes_copied_by_its_length_not_in_vectors");
		assert_int_equal(fk_stacks_add(s, line, (size_t)len, num(i + 2), num(i + 1),
					       diff ? 2 : 1, NULL),
				 FK_STACKS_OK);
	}
	free(name);
}

static void build(struct fk_stacks *s, uint32_t n, bool diff)
{
	build_lines(s, n, diff, false);
}

/* What fk_folded_write should write, line by line. */
static char *expected(const struct fk_stacks *s, const uint32_t *order, uint32_t count,
		      struct fk_num min, size_t *len, uint64_t *lines)
{
	char *out = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&out, &size);
	char *text = NULL;
	size_t cap = 0;
	char a[FK_NUM_TEXT_MAX], b[FK_NUM_TEXT_MAX];
	*lines = 0;
	for (uint32_t i = 0; i < count; i++) {
		const struct fk_stack_sums *v = &s->sums[order[i]];
		if (fk_num_cmp(v->value, min) < 0)
			continue;
		fk_stacks_text(s, order[i], &text, &cap);
		a[fk_num_format(v->before, a)] = '\0';
		b[fk_num_format(v->value, b)] = '\0';
		if (s->any_diff)
			fprintf(f, "%s %s %s\n", text, a, b);
		else
			fprintf(f, "%s %s\n", text, b);
		++*lines;
	}
	fclose(f);
	free(text);
	*len = size;
	return out;
}

static void check_lines(uint32_t n, bool diff, uint64_t min, bool huge)
{
	struct fk_stacks s = { 0 };
	build_lines(&s, n, diff, huge);
	/* Reversed, so the order given is seen to be kept. */
	uint32_t *order = malloc(n * sizeof *order);
	for (uint32_t i = 0; i < n; i++)
		order[i] = n - 1 - i;
	struct fk_folded_opts o = { .order = order, .count = n, .min = num(min) };
	size_t want_len;
	uint64_t want_lines;
	char *want = expected(&s, order, n, o.min, &want_len, &want_lines);
	char *got = NULL;
	size_t got_len = 0;
	FILE *f = open_memstream(&got, &got_len);
	uint64_t written = 0;
	assert_int_equal(fk_folded_write(f, &s, &o, &written), 0);
	fclose(f);
	assert_int_equal(written, want_lines);
	assert_int_equal(got_len, want_len);
	assert_memory_equal(got, want, want_len);
	free(got);
	free(want);
	free(order);
	fk_stacks_free(&s);
}

static void check(uint32_t n, bool diff, uint64_t min)
{
	check_lines(n, diff, min, false);
}

/* 40,000 lines: 9 MB, past the four blocks in flight many times over. */
static void test_big(void **state)
{
	(void)state;
	check(40000, false, 0);
}

static void test_big_diff_and_min(void **state)
{
	(void)state;
	check(40000, true, 0);
	check(40000, false, 30000); /* the 10,001 largest only */
}

/* Lines of about a block and longer among the others, big and small
 * outputs, with a minimum that keeps some of them. */
static void test_huge_lines(void **state)
{
	(void)state;
	check_lines(40000, false, 0, true);
	check_lines(40000, true, 20000, true);
	check_lines(15000, false, 0, true);
}

static void test_small(void **state)
{
	(void)state;
	check(100, false, 0);
	check(100, true, 50);
}

/* Output blocks that cannot all be had: the output goes through stdio,
 * the same bytes, and the blocks that were had are freed once. */
static void test_blocks_out_of_memory(void **state)
{
	(void)state;
	for (unsigned k = 1; k <= 4; k++) {
		wrapped_mallocs = 0;
		blocks_asked = 0;
		fail_block = k;
		check(40000, false, 0);
		fail_block = 0;
		if (wrapped_mallocs == 0)
			skip();
		assert_int_equal(blocks_asked, k);
	}
}

/* /dev/full takes nothing: ENOSPC, from the writing thread or not. */
static void test_write_error(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	for (uint32_t n = 100; n <= 40000; n += 39900) {
		struct fk_stacks s = { 0 };
		build(&s, n, false);
		uint32_t *order = malloc(n * sizeof *order);
		for (uint32_t i = 0; i < n; i++)
			order[i] = i;
		struct fk_folded_opts o = { .order = order, .count = n, .min = num(0) };
		uint64_t written;
		errno = 0;
		int r = fk_folded_write(f, &s, &o, &written);
		if (r == 0) /* the small one may still sit in stdio's buffer */
			r = fflush(f);
		assert_int_equal(r, -1);
		assert_int_equal(errno, ENOSPC);
		clearerr(f);
		free(order);
		fk_stacks_free(&s);
	}
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_big),
		cmocka_unit_test(test_big_diff_and_min),
		cmocka_unit_test(test_huge_lines),
		cmocka_unit_test(test_small),
		cmocka_unit_test(test_blocks_out_of_memory),
		cmocka_unit_test(test_write_error),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
