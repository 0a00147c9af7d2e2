/* test_stackset.c - stacks kept as frame id sequences: texts round-trip
 * (also split in runs that share frames), lookups are exact even when
 * hashes collide, merges keep every stack. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/core/stackset.h"

/* Linked with --wrap=realloc (Makefile): reallocs fail while armed. A
 * build where the wrap does not reach the library (link-time optimization)
 * makes no wrapped call, and the test that needs it is skipped. */
static int fail_reallocs;
static unsigned wrapped_reallocs;
void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n)
{
	wrapped_reallocs++;
	return fail_reallocs ? NULL : __real_realloc(p, n);
}

static uint32_t intern(struct fk_stackset *t, const char *p, size_t len, bool *added)
{
	uint32_t id = fk_stackset_intern(t, p, len, fk_strtab_hash(p, len), added);
	assert_int_not_equal(id, FK_STACKSET_NONE);
	return id;
}

static void assert_text(const struct fk_stackset *t, uint32_t id, const char *p, size_t len)
{
	char *buf = malloc(fk_stackset_get(t, id)->text_len + 1);
	assert_non_null(buf);
	assert_int_equal(fk_stackset_text(t, id, buf), len);
	assert_memory_equal(buf, p, len);
	assert_int_equal(buf[len], '\0');
	free(buf);
}

static void test_texts_round_trip(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		size_t len;
		uint32_t frames;
	} cases[] = {
		{ "", 0, 1 },        { ";", 1, 2 },      { ";;", 2, 3 },     { "a", 1, 1 },
		{ "a;", 2, 2 },      { ";a", 2, 2 },     { "a;;b", 4, 3 },   { "a;b;a", 5, 3 },
		{ "a\0b;c", 5, 2 },  { "a b;c\td", 7, 2 }, { "\xff;\x01", 3, 2 },
	};
	struct fk_stackset t = { 0 };
	uint32_t ids[sizeof cases / sizeof cases[0]];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool added;
		ids[i] = intern(&t, cases[i].text, cases[i].len, &added);
		assert_true(added);
		assert_int_equal(ids[i], i);
		assert_int_equal(fk_stackset_get(&t, ids[i])->nframes, cases[i].frames);
		assert_int_equal(fk_stackset_get(&t, ids[i])->text_len, cases[i].len);
	}
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		bool added = true;
		assert_int_equal(intern(&t, cases[i].text, cases[i].len, &added), ids[i]);
		assert_false(added);
		assert_int_equal(fk_stackset_find(&t, cases[i].text, cases[i].len,
						  fk_strtab_hash(cases[i].text, cases[i].len)),
				 ids[i]);
		assert_text(&t, ids[i], cases[i].text, cases[i].len);
	}
	/* Names are kept once: "", "a", "b", "a\0b", "c", "a b", "c\td", "\xff", "\x01". */
	assert_int_equal(t.frames.count, 9);
	assert_int_equal(fk_stackset_find(&t, "b", 1, fk_strtab_hash("b", 1)), FK_STACKSET_NONE);
	fk_stackset_free(&t);
}

/* New stacks are split reusing the frames of the last split while their
 * names match whole: a name that is only a prefix of the next frame, a
 * shorter or longer stack, empty frames, and a merge in between (which
 * uses the same scratch) all split as their text says. */
static void test_split_reuses_only_whole_frames(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		uint32_t frames;
	} cases[] = {
		{ "a;b;c", 3 }, { "a;bx;c", 3 }, { "a;b", 2 },  { "a;b;c;d", 4 }, { "a", 1 },
		{ "a;", 2 },    { "a;;b", 3 },   { "ab;c", 2 }, { "a;b;", 3 },    { "a;b;;", 4 },
	};
	struct fk_stackset t = { 0 }, other = { 0 };
	uint32_t ids[sizeof cases / sizeof cases[0]];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t len = strlen(cases[i].text);
		ids[i] = intern(&t, cases[i].text, len, NULL);
		assert_int_equal(fk_stackset_get(&t, ids[i])->nframes, cases[i].frames);
		assert_text(&t, ids[i], cases[i].text, len);
	}
	intern(&other, "q;r;s", 5, NULL);
	uint32_t map[1];
	assert_true(fk_stackset_merge(&t, &other, map)); /* its frames went through scratch */
	uint32_t id = intern(&t, "a;b;x", 5, NULL);
	assert_int_equal(fk_stackset_get(&t, id)->nframes, 3);
	assert_text(&t, id, "a;b;x", 5);
	assert_text(&t, map[0], "q;r;s", 5);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_text(&t, ids[i], cases[i].text, strlen(cases[i].text));
	/* Names are kept once: a, b, c, bx, d, "", ab, x, q, r, s. */
	assert_int_equal(t.frames.count, 11);
	fk_stackset_free(&t);
	fk_stackset_free(&other);
}

/* Every stack is given the same hash: only the check against the frames
 * tells them apart. Texts of the same length that split differently, and
 * names short and long, near the text's end and far from it. */
static void test_same_hash_told_apart(void **state)
{
	(void)state;
	static const char *const texts[] = {
		"ab;c", "a;bc", "abc;", ";abc", "a;b;c", "abcd",
		"main;a_long_frame_name_past_eight_bytes;leaf",
		"main;a_long_frame_name_past_eight_bytes;leaF",
		"main;a_long_frame_name_past_eight_bytes;lea",
		"main;a_long_frame_name_past_eight_bytez;leaf",
		"Main;a_long_frame_name_past_eight_bytes;leaf",
		"main;a_long_frame_name_past_eight_bytes",
		"main;a_long_frame_name_past_eight_byteS",
		"12345678;12345678", "12345678;12345679", "12345679;12345678",
	};
	enum { N = sizeof texts / sizeof texts[0] };
	struct fk_stackset t = { 0 };
	for (int round = 0; round < 2; round++)
		for (uint32_t i = 0; i < N; i++) {
			bool added;
			uint32_t id = fk_stackset_intern(&t, texts[i], strlen(texts[i]), 42, &added);
			assert_int_equal(id, i);
			assert_true(added == (round == 0));
		}
	for (uint32_t i = 0; i < N; i++) {
		assert_int_equal(fk_stackset_find(&t, texts[i], strlen(texts[i]), 42), i);
		assert_text(&t, i, texts[i], strlen(texts[i]));
	}
	assert_int_equal(fk_stackset_find(&t, "ab;d", 4, 42), FK_STACKSET_NONE);
	fk_stackset_free(&t);
}

/* Every text that differs from base[0..len) in one byte, a name's byte or
 * a separator, turned into another byte or into a ';', is its own stack,
 * though all share one hash. Each text is an allocation of its own length,
 * so a read past a text's end is a heap overflow (reported under ASan). */
static void assert_one_byte_changes_told_apart(const char *base_text, size_t len)
{
	struct fk_stackset t = { 0 };
	bool added;
	char *base = malloc(len);
	char **texts = malloc(2 * len * sizeof *texts);
	assert_non_null(base);
	assert_non_null(texts);
	memcpy(base, base_text, len);
	assert_int_equal(fk_stackset_intern(&t, base, len, 42, &added), 0);
	uint32_t n = 0;
	for (size_t pos = 0; pos < len; pos++)
		for (int kind = 0; kind < 2; kind++) {
			char *v = malloc(len);
			assert_non_null(v);
			memcpy(v, base, len);
			v[pos] = kind ? (base[pos] == ';' ? '_' : ';') : (base[pos] == 'x' ? 'y' : 'x');
			texts[n] = v;
			uint32_t id = fk_stackset_intern(&t, v, len, 42, &added);
			assert_true(added);
			assert_int_equal(id, ++n);
		}
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(fk_stackset_find(&t, texts[i], len, 42), i + 1);
	assert_int_equal(fk_stackset_find(&t, base, len, 42), 0);
	assert_text(&t, 0, base, len);
	for (uint32_t i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(base);
	fk_stackset_free(&t);
}

/* Long texts, whose names are compared a vector at a time and masked to
 * their lengths (0, 1, 15, 16, 17, 63 and 64 bytes; 65 and 100 take the
 * careful way); and a text that ends in a name of 64 bytes, which must
 * take the careful way too (a whole-vector read and its separator would
 * pass the text's end). */
static void test_same_hash_long_texts_told_apart(void **state)
{
	(void)state;
	static const size_t name_lens[] = { 0, 1, 15, 16, 17, 63, 64, 65, 100, 64, 3 };
	char base[512];
	size_t len = 0;
	for (size_t i = 0; i < sizeof name_lens / sizeof name_lens[0]; i++) {
		if (i)
			base[len++] = ';';
		for (size_t k = 0; k < name_lens[i]; k++)
			base[len++] = (char)('a' + (i + k) % 26);
	}
	/* A tail long enough that every name above is followed by FAST_NAME
	 * bytes of text, then a few that are not. */
	for (int k = 0; k < 80; k++)
		base[len++] = k % 10 == 9 ? ';' : (char)('0' + k % 10);
	assert_true(len < sizeof base);
	assert_one_byte_changes_told_apart(base, len);

	len = 0;
	for (int k = 0; k < 10; k++)
		base[len++] = (char)('a' + k);
	base[len++] = ';';
	for (int k = 0; k < 64; k++)
		base[len++] = (char)('A' + k % 26);
	assert_one_byte_changes_told_apart(base, len);
}

static void fill(struct fk_stackset *t, unsigned from, unsigned to, unsigned step)
{
	char buf[96];
	for (unsigned i = from; i < to; i += step) {
		int n = snprintf(buf, sizeof buf, "root;%s%u;op%u;leaf%u", i % 3 ? "x" : "", i % 11,
				 i, i % 5);
		intern(t, buf, (size_t)n, NULL);
	}
}

static void assert_all_found(const struct fk_stackset *t, const uint32_t *map,
			     const struct fk_stackset *from_copy)
{
	for (uint32_t i = 0; i < from_copy->count; i++) {
		char buf[96];
		size_t n = fk_stackset_text(from_copy, i, buf);
		assert_int_equal(fk_stackset_find(t, buf, n, fk_strtab_hash(buf, n)), map[i]);
		assert_text(t, map[i], buf, n);
	}
}

static void test_merge(void **state)
{
	(void)state;
	struct fk_stackset t = { 0 }, from = { 0 }, copy = { 0 };
	fill(&t, 0, 2000, 2);     /* even ones */
	fill(&from, 0, 2000, 3);  /* a third of them shared with t */
	fill(&copy, 0, 2000, 3);
	uint32_t had = t.count;
	uint32_t *map = malloc(from.count * sizeof *map);
	assert_non_null(map);
	assert_true(fk_stackset_merge(&t, &from, map));
	assert_int_equal(t.count, had + (2000 / 3 + 1) - (2000 / 6 + 1));
	assert_all_found(&t, map, &copy);
	/* from is left as it was. */
	for (uint32_t i = 0; i < copy.count; i++) {
		char a[96], b[96];
		size_t n = fk_stackset_text(&copy, i, a);
		assert_int_equal(fk_stackset_text(&from, i, b), n);
		assert_memory_equal(a, b, n);
	}
	free(map);
	fk_stackset_free(&t);
	fk_stackset_free(&from);
	fk_stackset_free(&copy);
}

static void test_take_keeps_sequences_and_names(void **state)
{
	(void)state;
	struct fk_stackset t = { 0 }, from = { 0 }, copy = { 0 };
	fill(&t, 0, 3000, 2);
	fill(&from, 1, 3000, 2);
	fill(&copy, 1, 3000, 2);
	/* from's names in a different order, so its ids must be rewritten. */
	assert_int_not_equal(strcmp(fk_stackset_frame(&t, 1)->p, fk_stackset_frame(&from, 1)->p), 0);
	size_t bytes = t.seqs.bytes + from.seqs.bytes;
	size_t names = t.frames.arena.bytes + from.frames.arena.bytes;
	uint32_t *map = malloc(from.count * sizeof *map);
	assert_non_null(map);
	assert_true(fk_stackset_take(&t, &from, map));
	fk_stackset_free(&from); /* what t took must outlive from (ASan) */
	assert_int_equal(t.seqs.bytes, bytes); /* taken over, not copied */
	assert_int_equal(t.frames.arena.bytes, names);
	assert_int_equal(t.count, 3000);
	assert_all_found(&t, map, &copy);
	free(map);
	fk_stackset_free(&t);
	fk_stackset_free(&copy);
}

/* Out of memory half way through taking a set over: what t already points
 * at (names of from that it added) stays t's after from is freed, and t
 * goes on working (ASan would see a read of freed memory). */
static void test_take_out_of_memory(void **state)
{
	(void)state;
	struct fk_stackset t = { 0 }, from = { 0 };
	intern(&t, "x", 1, NULL);
	char buf[512] = "";
	for (int i = 0; i < 40; i++)
		snprintf(buf + strlen(buf), sizeof buf - strlen(buf), "%sname_number_%d", i ? ";" : "", i);
	intern(&from, buf, strlen(buf), NULL);
	if (wrapped_reallocs == 0) {
		fk_stackset_free(&t);
		fk_stackset_free(&from);
		skip(); /* the library's reallocs are not wrapped in this build */
	}
	uint32_t map[1];
	fail_reallocs = 1; /* t's name entries grow by realloc: from 16 names on */
	bool ok = fk_stackset_take(&t, &from, map);
	fail_reallocs = 0;
	assert_false(ok);
	assert_true(t.frames.count > 1 && t.frames.count < 41);
	fk_stackset_free(&from);
	for (uint32_t f = 1; f < t.frames.count; f++) {
		char want[32];
		snprintf(want, sizeof want, "name_number_%u", f - 1);
		assert_string_equal(fk_stackset_frame(&t, f)->p, want);
	}
	assert_int_equal(fk_strtab_find(&t.frames, "name_number_0", 13), 1);
	uint32_t id = intern(&t, buf, strlen(buf), NULL);
	assert_text(&t, id, buf, strlen(buf));
	fk_stackset_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_texts_round_trip),
		cmocka_unit_test(test_split_reuses_only_whole_frames),
		cmocka_unit_test(test_same_hash_told_apart),
		cmocka_unit_test(test_same_hash_long_texts_told_apart),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_take_keeps_sequences_and_names),
		cmocka_unit_test(test_take_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
