/* test_layout.c - render/layout.h: stacks merged into frame rectangles.
 *
 * Covers fk_layout_push/finish on small stack sequences: merging of shared
 * prefixes (flamegraph.pl's flow()), the root frame and timemax, depthmax,
 * Perl-split frame rules (trailing empty frames dropped), min_time pruning
 * and the omitted count, differential deltas (only the frame a line ends at
 * carries its delta; other frames it opens have has_delta with delta 0),
 * frames shared with the previous stack by bytes (not by prefix), the
 * final order (depth, then start), and exact counts (fk_layout_push_count:
 * past 2^53 and 2^64, lost after a decimal or double width, not for a root
 * widened by timemax).
 *
 * Expected layouts were checked against `perl flamegraph.pl --flamechart
 * --minwidth 0` on the same lines (frame x and y read back from the SVG).
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "render/layout.h"

static void push(struct fk_layout *L, const char *stack, double width)
{
	assert_true(fk_layout_push(L, stack, strlen(stack), width, false, 0));
}

static void push_delta(struct fk_layout *L, const char *stack, double width, double delta)
{
	assert_true(fk_layout_push(L, stack, strlen(stack), width, true, delta));
}

/* The frames as "depth:name:start-end|..." in their final order. */
static char *dump(const struct fk_layout *L)
{
	size_t cap = 64;
	for (size_t i = 0; i < L->count; i++)
		cap += fk_strtab_get(&L->names, L->frames[i].name)->len + 64;
	char *out = calloc(cap, 1);
	assert_non_null(out);
	size_t o = 0;
	for (size_t i = 0; i < L->count; i++) {
		const struct fk_frame *f = &L->frames[i];
		const struct fk_str *n = fk_strtab_get(&L->names, f->name);
		o += (size_t)snprintf(out + o, cap - o, "%s%u:%.*s:%g-%g", i ? "|" : "", f->depth,
				      (int)n->len, n->p, f->start, f->end);
	}
	return out;
}

static void assert_layout(const struct fk_layout *L, const char *want)
{
	char *got = dump(L);
	assert_string_equal(got, want);
	free(got);
}

/* The frame at this depth and start. */
static const struct fk_frame *frame_at(const struct fk_layout *L, uint32_t depth, double start)
{
	for (size_t i = 0; i < L->count; i++)
		if (L->frames[i].depth == depth && L->frames[i].start == start)
			return &L->frames[i];
	fail_msg("no frame at depth %u start %g", depth, start);
	return NULL;
}

static void assert_sorted(const struct fk_layout *L)
{
	for (size_t i = 1; i < L->count; i++) {
		const struct fk_frame *a = &L->frames[i - 1], *b = &L->frames[i];
		assert_true(a->depth < b->depth || (a->depth == b->depth && a->start < b->start));
	}
}

static void test_merge_shared_prefix(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push(&L, "a;b", 1);
	push(&L, "a;b;c", 2);
	push(&L, "a;d", 3);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-6|1:a:0-6|2:b:0-3|2:d:3-6|3:c:1-3");
	assert_int_equal(L.depthmax, 3);
	assert_true(L.time == 6);
	assert_int_equal(L.omitted, 0);
	assert_sorted(&L);
	fk_layout_free(&L);
}

static void test_no_merge_when_not_consecutive(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push(&L, "a;x", 1);
	push(&L, "b;x", 1);
	push(&L, "a;x", 1); /* "a" again, but not next to the first one */
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-3|1:a:0-1|1:b:1-2|1:a:2-3|2:x:0-1|2:x:1-2|2:x:2-3");
	/* The same name is one id. */
	assert_int_equal(L.frames[4].name, L.frames[5].name);
	assert_int_equal(L.frames[1].name, L.frames[3].name);
	fk_layout_free(&L);
}

static void test_same_stack_merges(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push(&L, "a;b", 1);
	push(&L, "a;b", 2.5);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-3.5|1:a:0-3.5|2:b:0-3.5");
	fk_layout_free(&L);
}

static void test_byte_prefix_is_not_a_frame_prefix(void **state)
{
	(void)state;
	/* Frames shared with the previous stack are whole frames only. */
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push(&L, "a;bc", 1);
	push(&L, "a;b", 1);
	push(&L, "a;bc", 1);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-3|1:a:0-3|2:bc:0-1|2:b:1-2|2:bc:2-3");
	fk_layout_free(&L);

	fk_layout_init(&L, 0);
	push(&L, "ab;c", 1);
	push(&L, "a;c", 1);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-2|1:ab:0-1|1:a:1-2|2:c:0-1|2:c:1-2");
	fk_layout_free(&L);

	fk_layout_init(&L, 0);
	push(&L, "a;b;c", 1);
	push(&L, "a;b;cd;e", 1);
	push(&L, "a;b", 1);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-3|1:a:0-3|2:b:0-3|3:c:0-1|3:cd:1-2|4:e:1-2");
	fk_layout_free(&L);
}

static void test_stacks_from_other_buffers(void **state)
{
	(void)state;
	/* Equal bytes merge wherever they live. */
	char one[] = "m;f;g", two[] = "m;f;h", three[] = "m;f;h";
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push(&L, one, 1);
	push(&L, two, 1);
	push(&L, three, 1);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-3|1:m:0-3|2:f:0-3|3:g:0-1|3:h:1-3");
	fk_layout_free(&L);
}

static void test_root(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push(&L, "", 5); /* an empty stack counts towards the root only */
	push(&L, "a", 1);
	push(&L, "", 2);
	push(&L, "a", 1);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-9|1:a:5-6|1:a:8-9");
	assert_int_equal(L.frames[0].depth, 0);
	assert_int_equal(fk_strtab_get(&L.names, L.frames[0].name)->len, 0);
	assert_int_equal(L.depthmax, 1);
	fk_layout_free(&L);

	fk_layout_init(&L, 0);
	push(&L, "", 4);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-4");
	assert_int_equal(L.depthmax, 0);
	fk_layout_free(&L);
}

static void test_timemax(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push(&L, "a", 2);
	push(&L, "b", 4);
	assert_true(fk_layout_finish(&L, 10)); /* --total larger than the sum */
	assert_layout(&L, "0::0-10|1:a:0-2|1:b:2-6");
	fk_layout_free(&L);

	fk_layout_init(&L, 0);
	push(&L, "a", 2);
	push(&L, "b", 4);
	assert_true(fk_layout_finish(&L, 3)); /* smaller: ignored */
	assert_layout(&L, "0::0-6|1:a:0-2|1:b:2-6");
	fk_layout_free(&L);
}

static void test_perl_split_frames(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push(&L, "a;b;", 1);  /* trailing empty frames dropped: same as "a;b" */
	push(&L, "a;b;;", 1);
	push(&L, "a;;c", 1);  /* inner empty frames stay */
	push(&L, ";a", 1);    /* and leading ones */
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-4|1:a:0-3|1::3-4|2:b:0-2|2::2-3|2:a:3-4|3:c:2-3");
	assert_int_equal(L.depthmax, 3);
	fk_layout_free(&L);

	/* Only semicolons: the root alone. */
	fk_layout_init(&L, 0);
	push(&L, ";;;", 2);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-2");
	fk_layout_free(&L);

	/* A trailing ';' does not stop the next stack from merging. */
	fk_layout_init(&L, 0);
	push(&L, "a;b;", 1);
	push(&L, "a;b;c", 1);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-2|1:a:0-2|2:b:0-2|3:c:1-2");
	fk_layout_free(&L);
}

static void test_min_time_pruning(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 1);
	push(&L, "a", 10);
	push(&L, "b", 1);      /* exactly the minimum: kept */
	push(&L, "c;d", 0.5);  /* both narrower: omitted */
	push(&L, "e;f", 0.6);
	push(&L, "e;g", 0.6);  /* e is 1.2 wide: kept; f and g are judged alone */
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-12.7|1:a:0-10|1:b:10-11|1:e:11.5-12.7");
	assert_int_equal(L.omitted, 4);
	assert_int_equal(L.depthmax, 1); /* dropped frames do not count */
	fk_layout_free(&L);

	/* Everything narrower than the minimum, the root included. */
	fk_layout_init(&L, 100);
	push(&L, "a;b", 1);
	assert_true(fk_layout_finish(&L, 0));
	assert_int_equal(L.count, 0);
	assert_int_equal(L.omitted, 3);
	fk_layout_free(&L);
}

static void test_differential_deltas(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push_delta(&L, "a;b", 5, 2);
	push_delta(&L, "a;c", 3, -4);
	push(&L, "e", 1);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-9|1:a:0-8|1:e:8-9|2:b:0-5|2:c:5-8");
	const struct fk_frame *root = frame_at(&L, 0, 0), *a = frame_at(&L, 1, 0),
			      *e = frame_at(&L, 1, 8), *b = frame_at(&L, 2, 0),
			      *c = frame_at(&L, 2, 5);
	/* Frames a differential line opens above its leaf: no change. */
	assert_true(root->has_delta);
	assert_true(root->delta == 0);
	assert_true(a->has_delta);
	assert_true(a->delta == 0);
	/* The leaf of each line carries the line's delta. */
	assert_true(b->has_delta);
	assert_true(b->delta == 2);
	assert_true(c->has_delta);
	assert_true(c->delta == -4);
	/* A plain line's frames have none. */
	assert_false(e->has_delta);
	assert_true(L.maxdelta == 4);
	fk_layout_free(&L);
}

static void test_delta_of_frame_kept_open(void **state)
{
	(void)state;
	/* "a;b" ends at b (delta 2); "a;b;c" keeps b open and opens c (delta
	 * 3): b keeps its own delta, as in flamegraph.pl's flow(). */
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push_delta(&L, "a;b", 1, 2);
	push_delta(&L, "a;b;c", 1, 3);
	push(&L, "a;b;d", 1);
	assert_true(fk_layout_finish(&L, 0));
	assert_layout(&L, "0::0-3|1:a:0-3|2:b:0-3|3:c:1-2|3:d:2-3");
	assert_true(frame_at(&L, 2, 0)->delta == 2);
	assert_true(frame_at(&L, 3, 1)->has_delta);
	assert_true(frame_at(&L, 3, 1)->delta == 3);
	assert_false(frame_at(&L, 3, 2)->has_delta);
	assert_true(L.maxdelta == 3);
	fk_layout_free(&L);
}

static void test_maxdelta_at_least_one(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 0);
	push_delta(&L, "a", 1, 0.5);
	push_delta(&L, "b", 1, -0.25);
	assert_true(fk_layout_finish(&L, 0));
	assert_true(L.maxdelta == 1);
	assert_true(frame_at(&L, 1, 0)->delta == 0.5);
	fk_layout_free(&L);

	fk_layout_init(&L, 0);
	push_delta(&L, "a", 1, -7.5);
	assert_true(fk_layout_finish(&L, 0));
	assert_true(L.maxdelta == 7.5);
	fk_layout_free(&L);
}

static void test_sorted_by_depth_then_start(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 0);
	/* Deep stacks closing in an order unlike the final one. */
	const char *stacks[] = { "a;b;c;d", "a;b;e", "a;f;g;h;i", "j", "j;k;l", "a" };
	for (size_t i = 0; i < sizeof stacks / sizeof *stacks; i++)
		push(&L, stacks[i], (double)(i + 1));
	assert_true(fk_layout_finish(&L, 0));
	assert_sorted(&L);
	assert_int_equal(L.depthmax, 5);
	assert_int_equal(L.frames[0].depth, 0);
	assert_true(L.frames[L.count - 1].depth == 5);
	fk_layout_free(&L);
}

static void push_count(struct fk_layout *L, const char *stack, fk_u128 mant, uint8_t scale)
{
	struct fk_num n = { mant, scale };
	assert_true(fk_layout_push_count(L, stack, strlen(stack), n, false, 0));
}

/* The frame named name at depth; fails when there is none. */
static const struct fk_frame *frame(const struct fk_layout *L, const char *name, uint32_t depth)
{
	for (size_t i = 0; i < L->count; i++) {
		const struct fk_str *n = fk_strtab_get(&L->names, L->frames[i].name);
		if (L->frames[i].depth == depth && n->len == strlen(name) &&
		    memcmp(n->p, name, n->len) == 0)
			return &L->frames[i];
	}
	fail_msg("no frame %s at depth %u", name, depth);
	return NULL;
}

static void assert_count(const struct fk_frame *f, fk_u128 want)
{
	assert_true(f->exact);
	assert_true(f->count == want);
}

static void test_exact_counts(void **state)
{
	(void)state;
	struct fk_layout L;
	fk_layout_init(&L, 0);
	/* 2^53 + 1 and 2^64 - 1: doubles round both, counts do not. */
	fk_u128 p53 = ((fk_u128)1 << 53) + 1, max = UINT64_MAX;
	push_count(&L, "a;b", p53, 0);
	push_count(&L, "a;c", max, 0);
	push_count(&L, "a;c;d", max, 0);
	assert_true(fk_layout_finish(&L, 0));
	assert_count(frame(&L, "b", 2), p53);
	assert_count(frame(&L, "c", 2), 2 * max);
	assert_count(frame(&L, "d", 3), max);
	assert_count(frame(&L, "a", 1), p53 + 2 * max);
	assert_count(frame(&L, "", 0), p53 + 2 * max);
	/* The doubles still follow flamegraph.pl: end - start has rounded. */
	const struct fk_frame *b = frame(&L, "b", 2);
	assert_true((fk_u128)(b->end - b->start) != p53);
	fk_layout_free(&L);
}

static void test_exact_counts_lost(void **state)
{
	(void)state;
	struct fk_layout L;
	/* A decimal count: frames that end before it stay exact, the others
	 * (and the root) keep only their doubles. */
	fk_layout_init(&L, 0);
	push_count(&L, "a", 5, 0);
	push_count(&L, "b", 15, 1); /* 1.5 */
	push_count(&L, "c", 2, 0);
	assert_true(fk_layout_finish(&L, 0));
	assert_count(frame(&L, "a", 1), 5);
	assert_false(frame(&L, "b", 1)->exact);
	assert_false(frame(&L, "c", 1)->exact);
	assert_false(frame(&L, "", 0)->exact);
	fk_layout_free(&L);

	/* A width without a count (fk_layout_push) does the same. */
	fk_layout_init(&L, 0);
	push_count(&L, "a", 5, 0);
	push(&L, "b", 2);
	assert_true(fk_layout_finish(&L, 0));
	assert_count(frame(&L, "a", 1), 5);
	assert_false(frame(&L, "b", 1)->exact);
	fk_layout_free(&L);

	/* A root widened by timemax is the user's double, not a count. */
	fk_layout_init(&L, 0);
	push_count(&L, "a", 5, 0);
	assert_true(fk_layout_finish(&L, 8));
	assert_count(frame(&L, "a", 1), 5);
	assert_false(frame(&L, "", 0)->exact);
	fk_layout_free(&L);
	fk_layout_init(&L, 0);
	push_count(&L, "a", 5, 0);
	assert_true(fk_layout_finish(&L, 3)); /* narrower: the root keeps its count */
	assert_count(frame(&L, "", 0), 5);
	fk_layout_free(&L);
}

/* Stacks given as frame ids lay out as their text does: the same frames,
 * names, counts and exactness, with shared prefixes merged. */
static void test_frames_as_text(void **state)
{
	(void)state;
	static const char *const stacks[] = { "main;a;b", "main;a;c", "main;a", "main;d",
					      ";x", "", "main;a;b" };
	static const unsigned counts[] = { 3, 2, 5, 1, 4, 2, 7 };
	struct fk_layout by_text, by_ids;
	fk_layout_init(&by_text, 0);
	fk_layout_init(&by_ids, 0);
	for (size_t i = 0; i < sizeof stacks / sizeof stacks[0]; i++) {
		struct fk_num n = { counts[i], 0 };
		assert_true(fk_layout_push_count(&by_text, stacks[i], strlen(stacks[i]), n, false, 0));
		uint32_t ids[8];
		size_t k = 0;
		for (const char *p = stacks[i]; *stacks[i];) {
			const char *semi = strchr(p, ';');
			size_t len = semi ? (size_t)(semi - p) : strlen(p);
			ids[k] = fk_layout_name(&by_ids, p, len);
			assert_int_not_equal(ids[k++], FK_STRTAB_NONE);
			if (!semi)
				break;
			p = semi + 1;
		}
		assert_true(fk_layout_push_frames(&by_ids, ids, k, n, false, 0));
	}
	assert_true(fk_layout_finish(&by_text, 0));
	assert_true(fk_layout_finish(&by_ids, 0));
	char *want = dump(&by_text);
	assert_layout(&by_ids, want);
	assert_int_equal(by_ids.count, by_text.count);
	for (size_t i = 0; i < by_ids.count; i++) {
		assert_true(by_ids.frames[i].exact == by_text.frames[i].exact);
		assert_true(by_ids.frames[i].count == by_text.frames[i].count);
	}
	assert_count(frame(&by_ids, "a", 2), 10);
	free(want);
	fk_layout_free(&by_text);
	fk_layout_free(&by_ids);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_merge_shared_prefix),
		cmocka_unit_test(test_no_merge_when_not_consecutive),
		cmocka_unit_test(test_same_stack_merges),
		cmocka_unit_test(test_byte_prefix_is_not_a_frame_prefix),
		cmocka_unit_test(test_stacks_from_other_buffers),
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_timemax),
		cmocka_unit_test(test_perl_split_frames),
		cmocka_unit_test(test_min_time_pruning),
		cmocka_unit_test(test_differential_deltas),
		cmocka_unit_test(test_delta_of_frame_kept_open),
		cmocka_unit_test(test_maxdelta_at_least_one),
		cmocka_unit_test(test_sorted_by_depth_then_start),
		cmocka_unit_test(test_exact_counts),
		cmocka_unit_test(test_exact_counts_lost),
		cmocka_unit_test(test_frames_as_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
