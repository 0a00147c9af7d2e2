/* test_stackset.c - stacks kept as frame id sequences: texts round-trip
 * (also split in runs that share frames), a stack is known by its text's
 * hash and check (texts one byte apart are told apart, also when their
 * slot hashes collide), merges keep every stack. */
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
	uint32_t id = fk_stackset_intern(t, p, len, fk_text_hash(p, len), added);
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
		assert_int_equal(fk_stackset_find(&t, cases[i].len,
						  fk_text_hash(cases[i].text, cases[i].len)),
				 ids[i]);
		assert_text(&t, ids[i], cases[i].text, cases[i].len);
	}
	/* Names are kept once: "", "a", "b", "a\0b", "c", "a b", "c\td", "\xff", "\x01". */
	assert_int_equal(t.frames.count, 9);
	assert_int_equal(fk_stackset_find(&t, 1, fk_text_hash("b", 1)), FK_STACKSET_NONE);
	fk_stackset_free(&t);
}

/* New stacks are split reusing the frames of the last split while their
 * names match whole: a name that is only a prefix of the next frame, a
 * shorter or longer stack, empty frames, and a merge in between all split
 * as their text says. */
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

/* The text's hash with its slot hash replaced: every stack given the same
 * slot hash, so only the rest of the identity tells them apart. */
static struct fk_text_hash same_slot(const char *p, size_t len)
{
	struct fk_text_hash h = fk_text_hash(p, len);
	h.hash = 42;
	return h;
}

/* Texts of the same length that split differently, names short and long:
 * all in one slot chain, each its own stack, each found again. A text
 * with the same identity as a stack (hash, check and length) is that
 * stack, as documented: the table never reads the names back. */
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
			size_t len = strlen(texts[i]);
			uint32_t id = fk_stackset_intern(&t, texts[i], len, same_slot(texts[i], len), &added);
			assert_int_equal(id, i);
			assert_true(added == (round == 0));
		}
	for (uint32_t i = 0; i < N; i++) {
		size_t len = strlen(texts[i]);
		assert_int_equal(fk_stackset_find(&t, len, same_slot(texts[i], len)), i);
		assert_text(&t, i, texts[i], len);
	}
	assert_int_equal(fk_stackset_find(&t, 4, same_slot("ab;d", 4)), FK_STACKSET_NONE);
	/* The same check under another length is another stack. */
	struct fk_text_hash h = same_slot("ab;c", 4);
	assert_int_equal(fk_stackset_find(&t, 5, h), FK_STACKSET_NONE);
	bool added;
	assert_int_equal(fk_stackset_intern(&t, "zz;z", 4, h, &added), 0);
	assert_false(added);
	assert_text(&t, 0, "ab;c", 4);
	fk_stackset_free(&t);
}

/* Every text that differs from base[0..len) in one byte, a name's byte or
 * a separator, turned into another byte or into a ';', is its own stack
 * with the text it was given, though all share one slot hash. Each text is
 * an allocation of its own length, so a read past a text's end while it is
 * split is a heap overflow (reported under ASan). */
static void assert_one_byte_changes_told_apart(const char *base_text, size_t len)
{
	struct fk_stackset t = { 0 };
	bool added;
	char *base = malloc(len);
	char **texts = malloc(2 * len * sizeof *texts);
	assert_non_null(base);
	assert_non_null(texts);
	memcpy(base, base_text, len);
	assert_int_equal(fk_stackset_intern(&t, base, len, same_slot(base, len), &added), 0);
	uint32_t n = 0;
	for (size_t pos = 0; pos < len; pos++)
		for (int kind = 0; kind < 2; kind++) {
			char *v = malloc(len);
			assert_non_null(v);
			memcpy(v, base, len);
			v[pos] = kind ? (base[pos] == ';' ? '_' : ';') : (base[pos] == 'x' ? 'y' : 'x');
			texts[n] = v;
			uint32_t id = fk_stackset_intern(&t, v, len, same_slot(v, len), &added);
			assert_true(added);
			assert_int_equal(id, ++n);
		}
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(fk_stackset_find(&t, len, same_slot(texts[i], len)), i + 1);
		assert_text(&t, i + 1, texts[i], len);
	}
	assert_int_equal(fk_stackset_find(&t, len, same_slot(base, len)), 0);
	assert_text(&t, 0, base, len);
	for (uint32_t i = 0; i < n; i++)
		free(texts[i]);
	free(texts);
	free(base);
	fk_stackset_free(&t);
}

/* Long texts with names of 0 to 100 bytes, one ending in a name of 64
 * bytes (the size names are copied in whole on output). */
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

/* fk_text_hash depends on the bytes only (not on where they are), and one
 * changed byte, or one byte less, changes both its hash and its check, on
 * texts around its 16-byte groups and its 1 KiB blocks. */
static void test_text_hash(void **state)
{
	(void)state;
	enum { MAX = 5000 };
	char *text = malloc(MAX), *moved = malloc(MAX + 1);
	assert_non_null(text);
	assert_non_null(moved);
	for (size_t k = 0; k < MAX; k++)
		text[k] = (char)(k * 131 + k / 7);
	static const size_t lens[] = { 0, 1, 3, 4, 8, 9, 15, 16, 17, 128, 129, 1023, 1024, 1025, 1250, MAX };
	for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
		size_t len = lens[i];
		struct fk_text_hash h = fk_text_hash(text, len);
		memcpy(moved + 1, text, len);
		struct fk_text_hash again = fk_text_hash(moved + 1, len);
		assert_int_equal(again.hash, h.hash);
		assert_int_equal(again.check, h.check);
		if (len > 0) {
			assert_int_not_equal(h.hash, h.check);
			struct fk_text_hash shorter = fk_text_hash(text, len - 1);
			assert_int_not_equal(shorter.hash, h.hash);
			assert_int_not_equal(shorter.check, h.check);
		}
		for (size_t pos = 0; pos < len; pos += len > 300 ? 37 : 1) {
			moved[1 + pos] ^= 0x20;
			struct fk_text_hash changed = fk_text_hash(moved + 1, len);
			assert_int_not_equal(changed.hash, h.hash);
			assert_int_not_equal(changed.check, h.check);
			moved[1 + pos] ^= 0x20;
		}
	}
	free(text);
	free(moved);
}

/* A stack interned lazily keeps its text until it is split: it is found
 * by its identity meanwhile, and split gives the frames (and names, in
 * order) an eager intern would. Merges carry a lazy stack as it is, and a
 * lazy stack takes the frames of the same stack split elsewhere. */
static void test_lazy_stacks(void **state)
{
	(void)state;
	static const char *const texts[] = { "a;b;c", "a;b;d", "x", "a;b;c;e" };
	enum { N = sizeof texts / sizeof texts[0] };
	struct fk_stackset lazy = { 0 }, eager = { 0 };
	for (uint32_t i = 0; i < N; i++) {
		size_t len = strlen(texts[i]);
		bool added;
		assert_int_equal(fk_stackset_intern_lazy(&lazy, texts[i], len, fk_text_hash(texts[i], len),
							 &added), i);
		assert_true(added);
		assert_true(fk_stackset_is_lazy(&lazy, i));
		assert_int_equal(fk_stackset_intern_lazy(&lazy, texts[i], len, fk_text_hash(texts[i], len),
							 &added), i);
		assert_false(added);
		assert_int_equal(fk_stackset_find(&lazy, len, fk_text_hash(texts[i], len)), i);
		intern(&eager, texts[i], len, NULL);
	}
	assert_int_equal(lazy.frames.count, 0);

	/* Carried by a merge; the copy is split where it went. */
	struct fk_stackset t = { 0 };
	intern(&t, "x", 1, NULL);
	uint32_t map[N];
	assert_true(fk_stackset_merge(&t, &lazy, map));
	assert_int_equal(map[2], 0);
	assert_true(fk_stackset_is_lazy(&t, map[0]) && fk_stackset_is_lazy(&t, map[3]));
	for (uint32_t i = 0; i < N; i++) {
		assert_true(fk_stackset_split_lazy(&t, map[i]));
		assert_text(&t, map[i], texts[i], strlen(texts[i]));
	}

	/* Split in id order: the frames and names an eager intern gave. */
	for (uint32_t i = 0; i < N; i++) {
		assert_true(fk_stackset_split_lazy(&lazy, i));
		assert_false(fk_stackset_is_lazy(&lazy, i));
		assert_int_equal(fk_stackset_get(&lazy, i)->nframes, fk_stackset_get(&eager, i)->nframes);
		assert_memory_equal(fk_stackset_get(&lazy, i)->frames, fk_stackset_get(&eager, i)->frames,
				    fk_stackset_get(&eager, i)->nframes * sizeof(uint32_t));
		assert_text(&lazy, i, texts[i], strlen(texts[i]));
	}
	assert_int_equal(lazy.frames.count, eager.frames.count);

	/* A lazy stack takes the frames of the same stack from a split set. */
	struct fk_stackset waiting = { 0 };
	assert_int_equal(fk_stackset_intern_lazy(&waiting, "q;a;b", 5, fk_text_hash("q;a;b", 5), NULL), 0);
	struct fk_stackset split = { 0 };
	intern(&split, "a;b", 3, NULL);
	intern(&split, "q;a;b", 5, NULL);
	assert_true(fk_stackset_take(&waiting, &split, map));
	fk_stackset_free(&split);
	assert_int_equal(map[1], 0);
	assert_false(fk_stackset_is_lazy(&waiting, 0));
	assert_text(&waiting, 0, "q;a;b", 5);
	assert_text(&waiting, map[0], "a;b", 3);

	/* Kept by its home only (bytes that are not its text, as a mapping
	 * nothing reads), split from a copy of the text read elsewhere. */
	struct fk_stackset homed = { 0 };
	char home[] = "????????", copy[] = "a;b;zz";
	assert_int_equal(fk_stackset_intern_lazy(&homed, home, 6, fk_text_hash(copy, 6), NULL), 0);
	assert_true(fk_stackset_split_lazy_from(&homed, 0, copy));
	memset(copy, '!', sizeof copy - 1); /* the names are the set's own */
	assert_int_equal(fk_stackset_get(&homed, 0)->nframes, 3);
	assert_text(&homed, 0, "a;b;zz", 6);
	assert_true(fk_stackset_split_lazy_from(&homed, 0, home)); /* split already: kept */
	assert_text(&homed, 0, "a;b;zz", 6);

	fk_stackset_free(&lazy);
	fk_stackset_free(&eager);
	fk_stackset_free(&t);
	fk_stackset_free(&waiting);
	fk_stackset_free(&homed);
}

/* Truncated, a set forgets the stacks from an id on; what it kept is
 * found, and a forgotten text comes back as a new stack at that id. */
static void test_truncate(void **state)
{
	(void)state;
	struct fk_stackset t = { 0 };
	intern(&t, "a;b", 3, NULL);
	intern(&t, "a;c", 3, NULL);
	assert_int_equal(fk_stackset_intern_lazy(&t, "a;d", 3, fk_text_hash("a;d", 3), NULL), 2);
	fk_stackset_truncate(&t, 1);
	assert_int_equal(t.count, 1);
	assert_int_equal(fk_stackset_find(&t, 3, fk_text_hash("a;b", 3)), 0);
	assert_int_equal(fk_stackset_find(&t, 3, fk_text_hash("a;c", 3)), FK_STACKSET_NONE);
	assert_int_equal(fk_stackset_find(&t, 3, fk_text_hash("a;d", 3)), FK_STACKSET_NONE);
	bool added;
	assert_int_equal(intern(&t, "a;d", 3, &added), 1);
	assert_true(added);
	assert_text(&t, 1, "a;d", 3);
	fk_stackset_free(&t);
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
		assert_int_equal(fk_stackset_find(t, n, fk_text_hash(buf, n)), map[i]);
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
		cmocka_unit_test(test_text_hash),
		cmocka_unit_test(test_lazy_stacks),
		cmocka_unit_test(test_truncate),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_take_keeps_sequences_and_names),
		cmocka_unit_test(test_take_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
