/* test_stacks.c - analysis/strtab.h, analysis/stacks.h and analysis/fold.h.
 *
 * Covers string interning (ids, growth, embedded NULs, stable copies), exact
 * sums per stack (plain, differential, past 64 bits, past 128 bits refused), the three sort
 * orders (FK_ORDER_FLAME checked against flamegraph.pl's whole-line sort),
 * and fk_fold: root tag, address stripping, reversal, include/exclude
 * filters, scaling, the id map and flamegraph.pl's chain-graph rewrite.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/core/transform.h"
#include "analysis/core/regex.h"
#include "analysis/core/stacks.h"
#include "stack_text.h"
#include "analysis/core/strtab.h"

/* ---- helpers ------------------------------------------------------------ */

static struct fk_num num(const char *s)
{
	struct fk_num n = { 0, 0 };
	assert_int_equal(fk_num_parse(s, strlen(s), &n), FK_NUM_OK);
	return n;
}

static void assert_num(struct fk_num n, const char *want)
{
	char buf[FK_NUM_TEXT_MAX];
	fk_num_format(n, buf);
	assert_string_equal(buf, want);
}

/* Adds a one-value line. */
static uint32_t add1(struct fk_stacks *s, const char *stack, const char *value)
{
	uint32_t id = FK_STRTAB_NONE;
	struct fk_num v = num(value);
	assert_int_equal(fk_stacks_add(s, stack, strlen(stack), v, v, 1, &id), FK_STACKS_OK);
	return id;
}

/* Adds a differential line "stack before after". */
static uint32_t add2(struct fk_stacks *s, const char *stack, const char *before, const char *after)
{
	uint32_t id = FK_STRTAB_NONE;
	assert_int_equal(fk_stacks_add(s, stack, strlen(stack), num(before), num(after), 2, &id),
			 FK_STACKS_OK);
	return id;
}

static const struct fk_str *key(const struct fk_stacks *s, uint32_t id)
{
	return stack_text(s, id);
}

static uint32_t find(const struct fk_stacks *s, const char *stack)
{
	return stack_find(s, stack, strlen(stack));
}

/* The stacks of s in the given order, as "stack|stack|...". */
static char *sorted_text(const struct fk_stacks *s, enum fk_stacks_order order)
{
	uint32_t *ids = fk_stacks_sorted(s, order);
	assert_non_null(ids);
	size_t cap = 16;
	for (uint32_t i = 0; i < fk_stacks_count(s); i++)
		cap += key(s, i)->len + 1;
	char *out = calloc(cap, 1);
	assert_non_null(out);
	size_t o = 0;
	for (uint32_t i = 0; i < fk_stacks_count(s); i++) {
		const struct fk_str *k = key(s, ids[i]);
		if (i)
			out[o++] = '|';
		memcpy(out + o, k->p, k->len);
		o += k->len;
	}
	free(ids);
	return out;
}

static void assert_order(const struct fk_stacks *s, enum fk_stacks_order order, const char *want)
{
	char *got = sorted_text(s, order);
	assert_string_equal(got, want);
	free(got);
}

static struct fk_regex *regex(const char *pattern)
{
	char err[256];
	struct fk_regex *re = fk_regex_compile(pattern, err, sizeof err);
	assert_non_null(re);
	return re;
}

/* One stack folded alone with the given options; returns the result. */
static char *fold_one(const char *stack, const struct fk_fold_opts *o)
{
	struct fk_stacks src = { 0 }, dst = { 0 };
	add1(&src, stack, "1");
	assert_int_equal(fk_fold(&dst, &src, o, NULL, NULL), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&dst), 1);
	const struct fk_str *k = key(&dst, 0);
	char *out = malloc(k->len + 1);
	assert_non_null(out);
	memcpy(out, k->p, k->len);
	out[k->len] = '\0';
	fk_stacks_free(&src);
	fk_stacks_free(&dst);
	return out;
}

static void assert_fold(const char *stack, const struct fk_fold_opts *o, const char *want)
{
	char *got = fold_one(stack, o);
	assert_string_equal(got, want);
	free(got);
}

static void assert_strip(const char *in, const char *want)
{
	size_t len = strlen(in);
	char *out = malloc(len + 1);
	assert_non_null(out);
	size_t n = fk_strip_addresses(in, len, out);
	assert_int_equal(n, strlen(want));
	assert_memory_equal(out, want, n);
	free(out);
}

/* ---- strtab ------------------------------------------------------------- */

static void test_strtab_same_bytes_same_id(void **state)
{
	(void)state;
	struct fk_strtab t = { 0 };
	assert_int_equal(fk_strtab_find(&t, "a", 1), FK_STRTAB_NONE); /* empty table */
	bool added = false;
	uint32_t a = fk_strtab_intern(&t, "alpha", 5, &added);
	assert_int_equal(a, 0);
	assert_true(added);
	uint32_t b = fk_strtab_intern(&t, "beta", 4, &added);
	assert_int_equal(b, 1);
	assert_true(added);
	/* Same bytes from another buffer: same id, not added. */
	char copy[] = "alpha";
	assert_int_equal(fk_strtab_intern(&t, copy, 5, &added), a);
	assert_false(added);
	assert_int_equal(fk_strtab_intern(&t, "alphabet", 5, NULL), a); /* only len bytes */
	assert_int_equal(fk_strtab_intern(&t, "alph", 4, &added), 2);
	assert_true(added);
	assert_int_equal(t.count, 3);
	assert_int_equal(fk_strtab_find(&t, "beta", 4), b);
	assert_int_equal(fk_strtab_find(&t, "gamma", 5), FK_STRTAB_NONE);
	/* The stored copy is NUL-terminated and independent of the input. */
	copy[0] = 'X';
	const struct fk_str *s = fk_strtab_get(&t, a);
	assert_int_equal(s->len, 5);
	assert_string_equal(s->p, "alpha");
	/* The empty string is a string like any other. */
	uint32_t e = fk_strtab_intern(&t, "", 0, &added);
	assert_true(added);
	assert_int_equal(fk_strtab_get(&t, e)->len, 0);
	assert_int_equal(fk_strtab_find(&t, "", 0), e);
	assert_true(fk_strtab_memory(&t) > 0);
	fk_strtab_free(&t);
	assert_int_equal(t.count, 0);
}

static void test_strtab_growth(void **state)
{
	(void)state;
	enum { N = 200000 };
	struct fk_strtab t = { 0 };
	char buf[32];
	const char *first = NULL;
	for (uint32_t i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof buf, "frame_%u", i);
		bool added = false;
		assert_int_equal(fk_strtab_intern(&t, buf, (size_t)n, &added), i); /* dense ids */
		assert_true(added);
		if (i == 0)
			first = fk_strtab_get(&t, 0)->p;
	}
	assert_int_equal(t.count, N);
	/* Copies never move, and every string is still found. */
	assert_ptr_equal(fk_strtab_get(&t, 0)->p, first);
	for (uint32_t i = 0; i < N; i++) {
		int n = snprintf(buf, sizeof buf, "frame_%u", i);
		assert_int_equal(fk_strtab_find(&t, buf, (size_t)n), i);
		const struct fk_str *s = fk_strtab_get(&t, i);
		assert_int_equal(s->len, (uint32_t)n);
		assert_memory_equal(s->p, buf, (size_t)n);
		bool added = true;
		assert_int_equal(fk_strtab_intern(&t, buf, (size_t)n, &added), i);
		assert_false(added);
	}
	assert_int_equal(fk_strtab_find(&t, "frame_200000", 12), FK_STRTAB_NONE);
	assert_true(fk_strtab_memory(&t) > (size_t)N * 8);
	/* A dropped index is built again, at the size the table needs, by the
	 * next intern: old ids found, new ones dense. */
	fk_strtab_drop_index(&t);
	assert_int_equal(fk_strtab_find(&t, "frame_7", 7), FK_STRTAB_NONE);
	bool added = true;
	assert_int_equal(fk_strtab_intern(&t, "frame_7", 7, &added), 7);
	assert_false(added);
	assert_int_equal(fk_strtab_intern(&t, "frame_200000", 12, &added), N);
	assert_true(added);
	for (uint32_t i = 0; i < N; i += 997) {
		int n = snprintf(buf, sizeof buf, "frame_%u", i);
		assert_int_equal(fk_strtab_find(&t, buf, (size_t)n), i);
	}
	fk_strtab_free(&t);
}

static void test_strtab_embedded_nul(void **state)
{
	(void)state;
	struct fk_strtab t = { 0 };
	uint32_t a = fk_strtab_intern(&t, "a\0b", 3, NULL);
	uint32_t b = fk_strtab_intern(&t, "a\0c", 3, NULL);
	uint32_t c = fk_strtab_intern(&t, "a", 1, NULL);
	uint32_t d = fk_strtab_intern(&t, "a\0", 2, NULL);
	assert_int_not_equal(a, b);
	assert_int_not_equal(a, c);
	assert_int_not_equal(c, d);
	assert_int_not_equal(a, d);
	assert_int_equal(fk_strtab_get(&t, a)->len, 3);
	assert_memory_equal(fk_strtab_get(&t, b)->p, "a\0c", 3);
	assert_int_equal(fk_strtab_find(&t, "a\0b", 3), a);
	assert_int_equal(fk_strtab_find(&t, "a\0", 2), d);
	fk_strtab_free(&t);
}

/* ---- stacks: sums ------------------------------------------------------- */

static void test_stacks_sums_exact(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 };
	uint32_t a = add1(&s, "a;b", "1.5");
	assert_int_equal(add1(&s, "a;b", "1.5"), a);
	assert_int_equal(add1(&s, "a;b", "1.5"), a);
	uint32_t c = add1(&s, "a;c", "0.1");
	for (int i = 0; i < 9; i++)
		add1(&s, "a;c", "0.1");
	assert_int_equal(fk_stacks_count(&s), 2);
	assert_num(s.sums[a].value, "4.5");
	assert_num(s.sums[a].before, "4.5");
	assert_false(s.sums[a].diff);
	assert_num(s.sums[c].value, "1");
	assert_num(s.total, "5.5");
	assert_int_equal(s.lines, 13);
	assert_false(s.any_diff);
	/* The id argument is optional. */
	struct fk_num one = num("1");
	assert_int_equal(fk_stacks_add(&s, "a;b", 3, one, one, 1, NULL), FK_STACKS_OK);
	assert_num(s.sums[a].value, "5.5");
	/* nvalues 1: the before argument is ignored. */
	assert_int_equal(fk_stacks_add(&s, "x", 1, num("100"), one, 1, NULL), FK_STACKS_OK);
	assert_num(s.sums[find(&s, "x")].before, "1");
	fk_stacks_free(&s);
}

static void test_stacks_differential(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 };
	uint32_t a = add2(&s, "a;b", "2", "17");
	assert_true(s.sums[a].diff);
	assert_true(s.any_diff);
	assert_num(s.sums[a].before, "2");
	assert_num(s.sums[a].value, "17");
	/* A plain line adds its single value to both sums. */
	add1(&s, "a;b", "5");
	add2(&s, "a;b", "0.5", "0");
	assert_num(s.sums[a].before, "7.5");
	assert_num(s.sums[a].value, "22");
	assert_true(s.sums[a].diff);
	uint32_t p = add1(&s, "plain", "3");
	assert_false(s.sums[p].diff);
	assert_num(s.total, "25"); /* total counts the last values */
	fk_stacks_free(&s);
}

static void test_stacks_add_sums(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 };
	add1(&s, "a", "1");
	struct fk_stack_sums more = { .value = num("2.5"), .before = num("1"), .diff = true };
	uint32_t id;
	assert_int_equal(fk_stacks_add_sums(&s, "a", 1, &more, &id), FK_STACKS_OK);
	assert_num(s.sums[id].value, "3.5");
	assert_num(s.sums[id].before, "2");
	assert_true(s.sums[id].diff);
	assert_true(s.any_diff);
	assert_num(s.total, "3.5");
	assert_int_equal(s.lines, 1); /* add_sums does not count lines */
	fk_stacks_free(&s);
}

/* Adds sums of value (and before) v to stack, as a merged table would. */
static void add_big(struct fk_stacks *s, const char *stack, fk_u128 v)
{
	struct fk_stack_sums sums = { .value = { v, 0 }, .before = { v, 0 }, .lines = 1 };
	assert_int_equal(fk_stacks_add_sums(s, stack, strlen(stack), &sums, NULL), FK_STACKS_OK);
}

static void test_stacks_past_64_bits(void **state)
{
	(void)state;
	/* Sums grow past 2^64 - 1, exactly, per stack and in the total. */
	struct fk_stacks s = { 0 };
	uint32_t a = add1(&s, "a", "18446744073709551615");
	add1(&s, "a", "18446744073709551615");
	add1(&s, "a", "18446744073709551615");
	uint32_t b = add1(&s, "b", "1");
	assert_num(s.sums[a].value, "55340232221128654845");
	assert_num(s.sums[a].before, "55340232221128654845");
	assert_num(s.sums[b].value, "1");
	assert_num(s.total, "55340232221128654846");
	assert_int_equal(s.lines, 4);
	/* Decimals too: the mantissa, not the integer part, is the limit. */
	add1(&s, "c", "18446744073709551615.5");
	add1(&s, "c", "0.75");
	assert_num(s.sums[find(&s, "c")].value, "18446744073709551616.25");
	assert_num(s.total, "73786976294838206462.25");
	fk_stacks_free(&s);
}

static void test_stacks_overflow(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 };
	add_big(&s, "a", FK_U128_MAX - 1);
	uint32_t a = add1(&s, "a", "1"); /* 2^128 - 1: the largest sum */
	struct fk_num one = num("1");
	assert_int_equal(fk_stacks_add(&s, "a", 1, one, one, 1, NULL), FK_STACKS_OVERFLOW);
	/* Refused: nothing changed. */
	assert_num(s.sums[a].value, "340282366920938463463374607431768211455");
	assert_num(s.sums[a].before, "340282366920938463463374607431768211455");
	assert_num(s.total, "340282366920938463463374607431768211455");
	assert_int_equal(s.lines, 1);
	/* The total of different stacks overflows too. */
	assert_int_equal(fk_stacks_add(&s, "b", 1, one, one, 1, NULL), FK_STACKS_OVERFLOW);
	assert_num(s.total, "340282366920938463463374607431768211455");
	assert_int_equal(s.lines, 1);
	assert_int_equal(find(&s, "b"), FK_STRTAB_NONE);
	fk_stacks_free(&s);

	/* The before sum of a differential stack overflows on its own. */
	struct fk_stacks d = { 0 };
	add_big(&d, "x", FK_U128_MAX);
	d.sums[0].value = (struct fk_num){ 0, 0 };
	d.total = (struct fk_num){ 0, 0 };
	assert_int_equal(fk_stacks_add(&d, "x", 1, one, num("0"), 2, NULL), FK_STACKS_OVERFLOW);
	assert_num(d.sums[0].before, "340282366920938463463374607431768211455");
	assert_num(d.sums[0].value, "0");
	fk_stacks_free(&d);

	/* Decimals reach the limit sooner: 18 decimals leave 2^128 / 10^18
	 * for the integer part. Nineteen values of about 2^64 pass it. */
	struct fk_stacks f = { 0 };
	const char *big = "18446744073709551615.999999999999999999";
	for (int i = 0; i < 18; i++)
		add1(&f, "x", big);
	assert_num(f.sums[0].value, "332041393326771929087.999999999999999982");
	struct fk_num v = num(big);
	assert_int_equal(fk_stacks_add(&f, "x", 1, v, v, 1, NULL), FK_STACKS_OVERFLOW);
	assert_num(f.total, "332041393326771929087.999999999999999982");
	fk_stacks_free(&f);
}

/* ---- stacks: order ------------------------------------------------------ */

static void test_sorted_orders(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 };
	add1(&s, "a;b;d", "1");
	add1(&s, "a;b!;c", "5");
	add1(&s, "a;b", "2");
	add1(&s, "a;b\x10x", "5");
	/* Plain byte order, a prefix first (stackcollapse). */
	assert_order(&s, FK_ORDER_STACK, "a;b|a;b\x10x|a;b!;c|a;b;d");
	/* flamegraph.pl sorts whole lines "STACK COUNT": `perl -e 'print map
	 * {"$_\n"} sort ("a;b 1", "a;b!;c 1", "a;b;d 1", "a;b\x10x 1")'` gives
	 * "a;b\x10x 1", "a;b 1", "a;b!;c 1", "a;b;d 1" (0x10 < ' ' < '!' < ';'). */
	assert_order(&s, FK_ORDER_FLAME, "a;b\x10x|a;b|a;b!;c|a;b;d");
	/* Largest value first, equal values in stack order. */
	assert_order(&s, FK_ORDER_VALUE, "a;b\x10x|a;b!;c|a;b|a;b;d");
	fk_stacks_free(&s);
}

static void test_sorted_flame_more(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 };
	add1(&s, "a;b;d;e", "1");
	add1(&s, "a;b  x", "1");
	add1(&s, "a;b ", "1"); /* from "a;b  1": last frame "b " */
	add1(&s, "a;b;d", "1");
	add1(&s, "a", "1");
	add1(&s, "a;b", "1");
	/* `perl -e 'print map {"$_\n"} sort ("a;b;d;e 1", "a;b  x 1", "a;b  1",
	 * "a;b;d 1", "a 1", "a;b 1")'`: a 1 / a;b  1 / a;b  x 1 / a;b 1 /
	 * a;b;d 1 / a;b;d;e 1. */
	assert_order(&s, FK_ORDER_FLAME, "a|a;b |a;b  x|a;b|a;b;d|a;b;d;e");
	assert_order(&s, FK_ORDER_STACK, "a|a;b|a;b |a;b  x|a;b;d|a;b;d;e");
	fk_stacks_free(&s);
}

static void test_sorted_value_exact(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 };
	add1(&s, "small", "0.000000000000000001");
	add1(&s, "big", "18446744073709551600");
	add1(&s, "mid", "2.5");
	add1(&s, "mid2", "2.50");
	add1(&s, "zero", "0");
	assert_order(&s, FK_ORDER_VALUE, "big|mid|mid2|small|zero");
	fk_stacks_free(&s);

	struct fk_stacks e = { 0 };
	uint32_t *ids = fk_stacks_sorted(&e, FK_ORDER_FLAME); /* empty: not NULL */
	assert_non_null(ids);
	free(ids);
}

/* Tables big enough to be sorted as two halves on two threads (and merged):
 * every order comes out a permutation in which each neighbour pair is in
 * order, prefixes (a stack and its callers) included. */
/* Flame order is the order of the lines "stack VALUE" as flamegraph.pl
 * sorts them, also where a longer stack goes on with bytes below ';' (a
 * space, a tab, digits): 20k stacks, small and large tables alike. */
static void test_flame_order_is_line_order(void **state)
{
	(void)state;
	static const char *const tails[] = { "", " x", "\tt", "0", " 1", "  ", ";k", "9 9", "(1)" };
	for (unsigned n = 40; n <= 20000; n *= 500) {
		struct fk_stacks s = { 0 };
		uint64_t rng = 99;
		for (unsigned i = 0; i < n; i++) {
			rng = rng * 6364136223846793005u + 1442695040888963407u;
			unsigned r = (unsigned)(rng >> 33);
			char stack[64], value[24];
			snprintf(stack, sizeof stack, "main;op%u%s", r % (n / 4), tails[r / 7 % 9]);
			snprintf(value, sizeof value, "%u", r % 13);
			add1(&s, stack, value);
		}
		uint32_t count = fk_stacks_count(&s);
		uint32_t *ids = fk_stacks_sorted(&s, FK_ORDER_FLAME);
		assert_non_null(ids);
		char prev[96] = "", line[96];
		for (uint32_t i = 0; i < count; i++) {
			const struct fk_str *k = key(&s, ids[i]);
			char value[FK_NUM_TEXT_MAX + 1];
			value[fk_num_format(s.sums[ids[i]].value, value)] = '\0';
			snprintf(line, sizeof line, "%.*s %s", (int)k->len, k->p, value);
			if (i > 0 && strcmp(prev, line) >= 0)
				fail_msg("%u stacks: \"%s\" sorted before \"%s\"", count, prev, line);
			memcpy(prev, line, sizeof line);
		}
		free(ids);
		fk_stacks_free(&s);
	}
}

static void test_sorted_big_tables(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 };
	uint64_t rng = 12345;
	char stack[96], value[24];
	for (unsigned i = 0; i < 40000; i++) {
		rng = rng * 6364136223846793005u + 1442695040888963407u;
		unsigned r = (unsigned)(rng >> 33);
		/* shared prefixes, and stacks that are prefixes of others */
		snprintf(stack, sizeof stack, "main;run;step%u;op%u%s", r % 7, r % 5000,
			 r % 3 ? ";kernel" : "");
		snprintf(value, sizeof value, "%u", r % 97);
		add1(&s, stack, value);
	}
	uint32_t n = fk_stacks_count(&s);
	assert_true(n > 8192 * 2);
	const enum fk_stacks_order orders[] = { FK_ORDER_STACK, FK_ORDER_FLAME, FK_ORDER_VALUE };
	for (size_t o = 0; o < 3; o++) {
		uint32_t *ids = fk_stacks_sorted(&s, orders[o]);
		assert_non_null(ids);
		char *seen = calloc(n, 1);
		assert_non_null(seen);
		for (uint32_t i = 0; i < n; i++) {
			assert_true(ids[i] < n && !seen[ids[i]]);
			seen[ids[i]] = 1;
			if (i == 0)
				continue;
			const struct fk_str *a = key(&s, ids[i - 1]), *b = key(&s, ids[i]);
			size_t m = a->len < b->len ? a->len : b->len;
			int c = memcmp(a->p, b->p, m);
			int bytes = c ? c : a->len < b->len ? -1 : 1;
			if (orders[o] == FK_ORDER_VALUE) {
				int v = fk_num_cmp(s.sums[ids[i - 1]].value, s.sums[ids[i]].value);
				assert_true(v > 0 || (v == 0 && bytes < 0));
			} else if (orders[o] == FK_ORDER_STACK || c) {
				assert_true(bytes < 0);
			} else { /* flame, one a prefix of the other: ' ' then the value sorts */
				const struct fk_str *longer = a->len > b->len ? a : b;
				bool space_first = (unsigned char)longer->p[m] > ' ';
				assert_true((a->len < b->len) == space_first);
			}
		}
		free(seen);
		free(ids);
	}
	fk_stacks_free(&s);
}

/* Orders are worked out from frame ranks, not text: checked against the
 * texts themselves, over frames made of the bytes around ';' that decide
 * byte order (' ', '-', digits, prefixes of each other, empty frames), with
 * plain and differential lines. */
static int cmp_texts(const struct fk_str *a, const struct fk_str *b, const char *ta,
		     const char *tb, bool flame)
{
	size_t m = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->p, b->p, m);
	if (c || a->len == b->len)
		return c;
	if (!flame)
		return a->len < b->len ? -1 : 1;
	/* flamegraph.pl's whole-line order: the stack, then " [BEFORE ]VALUE" */
	char la[256], lb[256];
	snprintf(la, sizeof la, "%.*s%s", (int)a->len, a->p, ta);
	snprintf(lb, sizeof lb, "%.*s%s", (int)b->len, b->p, tb);
	return strcmp(la, lb);
}

static void tail_of(const struct fk_stack_sums *v, char buf[128])
{
	char a[FK_NUM_TEXT_MAX + 1], b[FK_NUM_TEXT_MAX + 1];
	a[fk_num_format(v->value, a)] = '\0';
	b[fk_num_format(v->before, b)] = '\0';
	if (v->diff)
		snprintf(buf, 128, " %s %s", b, a);
	else
		snprintf(buf, 128, " %s", a);
}

static void test_orders_match_text_orders(void **state)
{
	(void)state;
	static const char *const names[] = { "a", "a b", "a-", "a 1", "a 12", "", " ", "-", "ab",
					     "a.", "1", "10", "a\t", "a 1 2", "\xc3\xa9", "0", "a:", "a<" };
	enum { NAMES = sizeof names / sizeof names[0] };
	uint64_t rng = 7;
	for (unsigned round = 0; round < 40; round++) {
		struct fk_stacks s = { 0 };
		unsigned lines = round < 30 ? 60 : 12000; /* the last ones sort in halves */
		for (unsigned i = 0; i < lines; i++) {
			char stack[128] = "";
			rng = rng * 6364136223846793005u + 1442695040888963407u;
			unsigned r = (unsigned)(rng >> 33), nf = 1 + r % 4;
			for (unsigned f = 0; f < nf; f++) {
				rng = rng * 6364136223846793005u + 1442695040888963407u;
				if (f)
					strcat(stack, ";");
				strcat(stack, names[(rng >> 35) % NAMES]);
			}
			char a[16], b[16];
			snprintf(a, sizeof a, "%u", r % 31);
			snprintf(b, sizeof b, "%u", r / 31 % 17);
			if (r % 4 == 0)
				add2(&s, stack, b, a);
			else
				add1(&s, stack, a);
		}
		const enum fk_stacks_order orders[] = { FK_ORDER_STACK, FK_ORDER_FLAME, FK_ORDER_VALUE };
		for (size_t o = 0; o < 3; o++) {
			uint32_t *ids = fk_stacks_sorted(&s, orders[o]);
			assert_non_null(ids);
			for (uint32_t i = 1; i < fk_stacks_count(&s); i++) {
				uint32_t x = ids[i - 1], y = ids[i];
				const struct fk_str *a = key(&s, x), *b = key(&s, y);
				char ta[128], tb[128];
				tail_of(&s.sums[x], ta);
				tail_of(&s.sums[y], tb);
				int c = cmp_texts(a, b, ta, tb, orders[o] == FK_ORDER_FLAME);
				if (orders[o] == FK_ORDER_VALUE) {
					int v = fk_num_cmp(s.sums[y].value, s.sums[x].value);
					c = v ? v : c;
				}
				if (c > 0 || (c == 0 && x > y))
					fail_msg("order %zu: \"%.*s%s\" (%u) before \"%.*s%s\" (%u)", o,
						 (int)a->len, a->p, ta, x, (int)b->len, b->p, tb, y);
			}
			free(ids);
		}
		fk_stacks_free(&s);
	}
}

/* ---- fold --------------------------------------------------------------- */

static void test_strip_addresses(void **state)
{
	(void)state;
	/* torch's export_stacks: "<built-in method add of type object at 0x7f..>"
	 * with spaces turned into '_'. */
	assert_strip("<built-in_method_add_of_type_object_at_0x7f41b0d2d1e0>",
		     "<built-in_method_add_of_type_object>");
	assert_strip("<built-in method add of type object at 0x7f41b0d2d1e0>",
		     "<built-in method add of type object>");
	/* Short hex is a constant worth keeping. */
	assert_strip("foo 0x1234", "foo 0x1234");
	assert_strip("mask_0x12345", "mask_0x12345");
	/* Other long hex: the digits go, "0x..." stays. */
	assert_strip("ptr=0xdeadbeef", "ptr=0x...");
	assert_strip("0x123456", "0x...");
	assert_strip("f 0XABCDEF01 g", "f 0x... g");
	assert_strip("a 0x1234567 b 0x7654321", "a 0x... b 0x...");
	assert_strip("no address", "no address");
	assert_strip("0x", "0x");
}

static void test_fold_root_and_strip(void **state)
{
	(void)state;
	struct fk_fold_opts o = { .root = "run1.txt" };
	assert_fold("a;b", &o, "run1.txt;a;b");
	assert_fold("", &o, "run1.txt");

	struct fk_fold_opts st = { .strip_addresses = true };
	assert_fold("t.py(3):_<module>;<built-in_method_add_of_type_object_at_0x7f41b0d2d1e0>", &st,
		    "t.py(3):_<module>;<built-in_method_add_of_type_object>");
	assert_fold("foo 0x1234;bar", &st, "foo 0x1234;bar");

	/* Two runs whose addresses differ merge into one stack. */
	struct fk_stacks src = { 0 }, dst = { 0 };
	uint32_t a = add1(&src, "m;<obj_at_0x7f41b0d2d1e0>", "2");
	uint32_t b = add1(&src, "m;<obj_at_0x7f99aaaaaaaa>", "3");
	uint32_t map[2];
	assert_int_equal(fk_fold(&dst, &src, &st, NULL, map), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&dst), 1);
	assert_int_equal(map[a], map[b]);
	assert_num(dst.sums[map[a]].value, "5");
	assert_int_equal(find(&dst, "m;<obj>"), map[a]);
	fk_stacks_free(&src);
	fk_stacks_free(&dst);
}

static void test_fold_reverse(void **state)
{
	(void)state;
	struct fk_fold_opts o = { .reverse = true };
	assert_fold("a;b;c", &o, "c;b;a");
	assert_fold("a", &o, "a");
	/* Like Perl's split, trailing empty frames are dropped; others stay. */
	assert_fold("a;b;", &o, "b;a");
	assert_fold(";a;b", &o, "b;a;");
	assert_fold("a;;b", &o, "b;;a");
	/* The root tag stays at the root. */
	struct fk_fold_opts r = { .reverse = true, .root = "tag" };
	assert_fold("a;b", &r, "tag;b;a");
	/* Without reverse, the stack bytes are kept as they are. */
	struct fk_fold_opts none = { 0 };
	assert_fold("a;b;", &none, "a;b;");
}

static void test_fold_filters(void **state)
{
	(void)state;
	struct fk_stacks src = { 0 }, dst = { 0 };
	add1(&src, "main;foo;bar", "1");
	add1(&src, "main;baz", "2");
	add1(&src, "main;foo;qux", "4");
	add1(&src, "tag;other", "8");
	struct fk_regex *inc = regex("^foo$");
	struct fk_regex *exc = regex("qux");
	struct fk_fold_opts o = { .include = inc, .exclude = exc };
	struct fk_fold_stats stats = { 0 };
	uint32_t map[4];
	assert_int_equal(fk_fold(&dst, &src, &o, &stats, map), FK_STACKS_OK);
	/* Only main;foo;bar has a frame "foo" and no frame matching "qux". */
	assert_int_equal(fk_stacks_count(&dst), 1);
	assert_int_equal(stats.filtered, 3);
	assert_int_equal(map[1], FK_STRTAB_NONE);
	assert_int_equal(map[2], FK_STRTAB_NONE);
	assert_int_equal(map[3], FK_STRTAB_NONE);
	assert_int_equal(map[0], find(&dst, "main;foo;bar"));
	assert_num(dst.total, "1");
	fk_stacks_free(&dst);

	/* Frames are matched one at a time: "o;b" spans two frames. */
	struct fk_regex *span = regex("o;b");
	struct fk_fold_opts so = { .include = span };
	struct fk_stacks d2 = { 0 };
	assert_int_equal(fk_fold(&d2, &src, &so, NULL, NULL), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&d2), 0);
	fk_stacks_free(&d2);

	/* The root tag is not a frame the filters look at. */
	struct fk_regex *tag = regex("^tag$");
	struct fk_fold_opts to = { .root = "tag", .include = tag };
	struct fk_stacks d3 = { 0 };
	stats.filtered = 0;
	assert_int_equal(fk_fold(&d3, &src, &to, &stats, NULL), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&d3), 1); /* only "tag;other" has a frame "tag" */
	assert_int_not_equal(find(&d3, "tag;tag;other"), FK_STRTAB_NONE);
	assert_int_equal(stats.filtered, 3);
	fk_stacks_free(&d3);

	/* Filters see the written (stripped) frames. */
	struct fk_stacks s4 = { 0 }, d4 = { 0 };
	add1(&s4, "m;<f_at_0x7f41b0d2d1e0>", "1");
	add1(&s4, "m;g", "1");
	struct fk_regex *stripped = regex("^<f>$");
	struct fk_fold_opts fo = { .strip_addresses = true, .include = stripped };
	assert_int_equal(fk_fold(&d4, &s4, &fo, NULL, NULL), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&d4), 1);
	assert_int_not_equal(find(&d4, "m;<f>"), FK_STRTAB_NONE);
	fk_stacks_free(&s4);
	fk_stacks_free(&d4);

	fk_regex_free(inc);
	fk_regex_free(exc);
	fk_regex_free(span);
	fk_regex_free(tag);
	fk_regex_free(stripped);
	fk_stacks_free(&src);
}

static void test_fold_scale(void **state)
{
	(void)state;
	struct fk_stacks src = { 0 }, dst = { 0 };
	uint32_t a = add1(&src, "a", "1234");
	uint32_t b = add2(&src, "b", "1500", "250");
	struct fk_fold_opts o = { .scaled = true, .scale = num("0.001") };
	uint32_t map[2];
	assert_int_equal(fk_fold(&dst, &src, &o, NULL, map), FK_STACKS_OK);
	assert_num(dst.sums[map[a]].value, "1.234");
	assert_num(dst.sums[map[a]].before, "1.234");
	assert_num(dst.sums[map[b]].value, "0.25");
	assert_num(dst.sums[map[b]].before, "1.5");
	assert_true(dst.sums[map[b]].diff);
	assert_true(dst.any_diff);
	assert_num(dst.total, "1.484");
	fk_stacks_free(&dst);

	/* A scaled value past 64 bits is exact. */
	struct fk_stacks big = { 0 }, d2 = { 0 };
	add1(&big, "a", "18446744073709551615");
	struct fk_fold_opts x2 = { .scaled = true, .scale = num("2") };
	assert_int_equal(fk_fold(&d2, &big, &x2, NULL, NULL), FK_STACKS_OK);
	assert_num(d2.sums[0].value, "36893488147419103230");
	assert_num(d2.total, "36893488147419103230");
	fk_stacks_free(&big);
	fk_stacks_free(&d2);
	/* Past 128 bits it is refused, however the stacks merge. */
	struct fk_stacks huge = { 0 }, d3 = { 0 };
	add_big(&huge, "a", FK_U128_MAX / 2 + 1);
	assert_int_equal(fk_fold(&d3, &huge, &x2, NULL, NULL), FK_STACKS_OVERFLOW);
	fk_stacks_free(&d3);
	/* Halving first passes 128 bits in the product, not in the result. */
	struct fk_fold_opts half = { .scaled = true, .scale = num("0.5") };
	assert_int_equal(fk_fold(&d3, &huge, &half, NULL, NULL), FK_STACKS_OK);
	assert_num(d3.sums[0].value, "85070591730234615865843651857942052864"); /* 2^126 */
	fk_stacks_free(&huge);
	fk_stacks_free(&d3);
	fk_stacks_free(&src);
}

static void test_fold_map_merges(void **state)
{
	(void)state;
	/* Reversal makes "a;b" and "b;a" differ, while the root tag and
	 * different trailing frames can make two stacks one. */
	struct fk_stacks src = { 0 }, dst = { 0 };
	uint32_t x = add1(&src, "a;b", "1");
	uint32_t y = add1(&src, "a;b;", "2");
	uint32_t z = add1(&src, "c", "4");
	struct fk_fold_opts o = { .reverse = true };
	uint32_t map[3];
	assert_int_equal(fk_fold(&dst, &src, &o, NULL, map), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&dst), 2);
	assert_int_equal(map[x], map[y]);
	assert_int_not_equal(map[x], map[z]);
	assert_int_equal(find(&dst, "b;a"), map[x]);
	assert_num(dst.sums[map[x]].value, "3");
	assert_num(dst.sums[map[z]].value, "4");
	fk_stacks_free(&src);
	fk_stacks_free(&dst);
}

/* Expected values from flamegraph.pl's chain rewrite, run in Perl on each
 * stack (the code of flamegraph.pl's `if ($colors eq "chain")` block, copied
 * into a sub). */
static const struct {
	const char *in, *out;
} chain_cases[] = {
	{ "a;b", "a;b;--;" },
	{ "a;--;b;c", "a;--;b_[w];c_[w]" },
	{ "a;--;b;--;c;d", "a;--;b_[w];--;c_[w];d_[w]" },
	{ ";--;a", ";--;a_[w]" },
	{ "a;--;", "a;--;" },
	{ "", ";--;" },
	{ "a;--;;--;b", "a;--;_[w];--;b_[w]" },
	{ "a;--;--;b", "a;--;--_[w];b_[w]" },
	{ "x;--;--;--;", "x;--;--_[w]" },
	{ "a;--;b;", "a;--;b_[w];_[w]" },
	{ "a;--;b;--;;--;", "a;--;b_[w]" }, /* trailing empty parts dropped */
	{ ";--;;--;", ";--;" },
	{ "a;--;--;", "a;--;--_[w];_[w]" },           /* separators never overlap */
	{ "a;--;b;--;--;", "a;--;b_[w];--;--_[w];_[w]" },
};

static void test_fold_chain_wakers(void **state)
{
	(void)state;
	struct fk_fold_opts o = { .chain_wakers = true };
	for (size_t i = 0; i < sizeof chain_cases / sizeof *chain_cases; i++) {
		char *got = fold_one(chain_cases[i].in, &o);
		if (strcmp(got, chain_cases[i].out) != 0)
			print_error("chain rewrite of '%s': got '%s', flamegraph.pl '%s'\n",
				    chain_cases[i].in, got, chain_cases[i].out);
		assert_string_equal(got, chain_cases[i].out);
		free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strtab_same_bytes_same_id),
		cmocka_unit_test(test_strtab_growth),
		cmocka_unit_test(test_strtab_embedded_nul),
		cmocka_unit_test(test_stacks_sums_exact),
		cmocka_unit_test(test_stacks_differential),
		cmocka_unit_test(test_stacks_add_sums),
		cmocka_unit_test(test_stacks_past_64_bits),
		cmocka_unit_test(test_stacks_overflow),
		cmocka_unit_test(test_sorted_orders),
		cmocka_unit_test(test_sorted_flame_more),
		cmocka_unit_test(test_sorted_value_exact),
		cmocka_unit_test(test_flame_order_is_line_order),
		cmocka_unit_test(test_sorted_big_tables),
		cmocka_unit_test(test_orders_match_text_orders),
		cmocka_unit_test(test_strip_addresses),
		cmocka_unit_test(test_fold_root_and_strip),
		cmocka_unit_test(test_fold_reverse),
		cmocka_unit_test(test_fold_filters),
		cmocka_unit_test(test_fold_scale),
		cmocka_unit_test(test_fold_map_merges),
		cmocka_unit_test(test_fold_chain_wakers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
