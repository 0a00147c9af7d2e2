/* test_introws.c - formats/introws.h (one JSON row of integers lexed by
 * hand) and the raw timeline reader's fast path over it (formats/torchmem.h).
 *
 * Covers the row lexer's answers (rows, every cut of a row asks for more,
 * what it leaves to the JSON parser: fractions, exponents, leading zeros,
 * out-of-range integers, other counts, other values), and the reader: the
 * same events and the same error messages, worded by yajl where the fast
 * path hands over, whether the input comes whole or through a pipe in
 * pieces of a few bytes (rows cut anywhere, carried to the next piece).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "formats/introws.h"
#include "formats/torchmem.h"

static enum fk_introw_result lex(const char *s, int64_t *v, int n, size_t *used)
{
	return fk_introw_lex(s, s + strlen(s), v, n, used);
}

static void test_lex_rows(void **state)
{
	(void)state;
	int64_t v[4];
	size_t used = 0;
	assert_int_equal(lex("[1, 2, 3, 4], [5", v, 4, &used), FK_INTROW_OK);
	assert_int_equal(used, 12);
	assert_true(v[0] == 1 && v[1] == 2 && v[2] == 3 && v[3] == 4);
	assert_int_equal(lex("[\n  -1,\t0 ,\r\n-0,9223372036854775807]", v, 4, &used), FK_INTROW_OK);
	assert_true(v[0] == -1 && v[1] == 0 && v[2] == 0 && v[3] == INT64_MAX);
	assert_int_equal(lex("[-9223372036854775808,1,2,3]", v, 4, &used), FK_INTROW_OK);
	assert_true(v[0] == INT64_MIN);
	assert_int_equal(lex("[7]", v, 1, &used), FK_INTROW_OK);
	assert_true(v[0] == 7 && used == 3);
}

static void test_lex_leaves_the_rest_to_the_parser(void **state)
{
	(void)state;
	static const char *const other[] = {
		"[1.5, 2, 3, 4]", "[1e3, 2, 3, 4]", "[1E3, 2, 3, 4]", "[01, 2, 3, 4]",
		"[-01, 2, 3, 4]", "[9223372036854775808, 2, 3, 4]",
		"[-9223372036854775809, 2, 3, 4]", "[1, 2, 3]", "[1, 2, 3, 4, 5]",
		"[1, 2, \"3\", 4]", "[1, 2, null, 4]", "[1, 2, [3], 4]", "[]", "[ ]",
		"1, 2, 3, 4]", " [1, 2, 3, 4]", "[1 2, 3, 4]", "[1,, 2, 3, 4]", "[-, 2, 3, 4]",
		"[+1, 2, 3, 4]", "[1, 2, 3, 4\v]", "[1, 2, 3, 4}",
	};
	int64_t v[4];
	size_t used;
	for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
		if (lex(other[i], v, 4, &used) != FK_INTROW_OTHER)
			fail_msg("not left to the parser: %s", other[i]);
	}
}

static void test_lex_every_cut_asks_for_more(void **state)
{
	(void)state;
	static const char row[] = "[ -12, 0 ,3,\n 9223372036854775807 ]";
	int64_t v[4];
	size_t used;
	for (size_t cut = 0; cut < sizeof row - 1; cut++)
		if (fk_introw_lex(row, row + cut, v, 4, &used) != FK_INTROW_MORE)
			fail_msg("cut at %zu", cut);
	assert_int_equal(fk_introw_lex(row, row + sizeof row - 1, v, 4, &used), FK_INTROW_OK);
	assert_int_equal(used, sizeof row - 1);
	assert_true(v[0] == -12 && v[3] == INT64_MAX);
}

/* Numbers of every length from 1 to 19 digits, followed by each byte that
 * borders the digits ('/' and ':'), a high byte, or by more row: each lexed
 * as strtoll reads it (the lexer reads eight digits at a time where it
 * can, so every length and every place of the end in a word matters). */
static void test_lex_numbers_of_every_length(void **state)
{
	(void)state;
	static const char *const after[] = { ", 0, 0, 0]", "/, 0, 0, 0]", ":, 0, 0, 0]",
					     "\xc3, 0, 0, 0]", " ,0,0,0]" };
	unsigned seed = 12345;
	for (int len = 1; len <= 19; len++) {
		for (int trial = 0; trial < 200; trial++) {
			char digits[24];
			for (int i = 0; i < len; i++) {
				seed = seed * 1103515245u + 12345u;
				digits[i] = (char)('0' + (seed >> 16) % 10);
			}
			if (len > 1 && digits[0] == '0')
				digits[0] = '1' + (char)(trial % 9);
			if (len == 19 && digits[0] > '8')
				digits[0] = '8'; /* within int64_t */
			digits[len] = '\0';
			for (size_t a = 0; a < sizeof after / sizeof *after; a++) {
				char row[64];
				snprintf(row, sizeof row, "[%s%s%s", trial % 2 ? "-" : "", digits, after[a]);
				int64_t v[4];
				size_t used;
				enum fk_introw_result r = lex(row, v, 4, &used);
				if (a == 0 || a == 4) {
					long long want = strtoll(row + 1, NULL, 10);
					if (r != FK_INTROW_OK || v[0] != want)
						fail_msg("%s: %d, %lld", row, (int)r, (long long)v[0]);
				} else if (r != FK_INTROW_OTHER) {
					fail_msg("%s: not left to the parser", row);
				}
			}
		}
	}
}

/* ---- the reader ---- */

struct events {
	struct fk_torchmem_event *ev;
	size_t count, cap;
};

static bool on_event(void *ctx, const struct fk_torchmem_event *ev)
{
	struct events *e = ctx;
	if (e->count == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 256;
		e->ev = realloc(e->ev, e->cap * sizeof *e->ev);
		assert_non_null(e->ev);
	}
	e->ev[e->count++] = *ev;
	return true;
}

static const struct fk_torchmem_sink sink = { .event = on_event };

/* What reading gave: ok, the events, the messages. */
struct result {
	bool ok;
	struct events e;
	char *messages;
};

static void result_free(struct result *r)
{
	free(r->e.ev);
	free(r->messages);
}

static void read_input(struct fk_input *in, struct result *r)
{
	struct fk_diag d;
	fk_diag_init(&d, "test");
	size_t len;
	d.out = open_memstream(&r->messages, &len);
	assert_non_null(d.out);
	memset(&r->e, 0, sizeof r->e);
	r->ok = fk_torchmem_read_raw(in, &sink, &r->e, &d);
	fclose(d.out);
	fk_input_close(in);
}

static void read_whole(const char *text, struct result *r)
{
	struct fk_input in;
	struct fk_diag d;
	fk_diag_init(&d, "test");
	assert_true(fk_input_open_memory(&in, "raw", text, strlen(text), &d));
	read_input(&in, r);
}

/* Writes the text into a pipe in pieces of `piece` bytes (4 KiB pieces
 * until its last 4000 bytes, to be quick), each once the reader has taken
 * the last, so every read() returns one piece. */
struct writer {
	int fd;
	const char *text;
	size_t piece;
	atomic_bool done; /* the reader stopped (at an error): write no more */
};

static void *write_pieces(void *arg)
{
	struct writer *w = arg;
	size_t n = strlen(w->text);
	for (size_t off = 0, piece; off < n; off += piece) {
		piece = n - off > 4000 ? 4096 : w->piece;
		int queued;
		while (ioctl(w->fd, FIONREAD, &queued) == 0 && queued > 0 && !atomic_load(&w->done))
			sched_yield();
		if (atomic_load(&w->done))
			break;
		size_t len = n - off < piece ? n - off : piece;
		if (write(w->fd, w->text + off, len) != (ssize_t)len)
			break;
	}
	close(w->fd);
	return NULL;
}

static void read_in_pieces(const char *text, size_t piece, struct result *r)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	struct writer w = { fds[1], text, piece, false };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, write_pieces, &w), 0);
	char path[64];
	snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
	struct fk_input in;
	struct fk_diag d;
	fk_diag_init(&d, "test");
	assert_true(fk_input_open(&in, path, &d));
	in.name = "raw";
	read_input(&in, r);
	atomic_store(&w.done, true);
	pthread_join(t, NULL);
	close(fds[0]);
}

/* A timeline longer than the input's peek (64 KiB), so pieces come after
 * it; rows in several spacings; `tail` replaces the closing "]". */
static char *timeline(const char *tail, size_t *rows)
{
	size_t cap = 1 << 20, len = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	len += (size_t)sprintf(s + len, "[[-1, 1, 4096, 0]");
	*rows = 1;
	for (int i = 0; i < 3000; i++) {
		static const char *const forms[] = {
			", [%d, 2, %d, %d]", ",[%d,2,%d,%d]", ",\n  [\n    %d,\n    2,\n    %d,\n    %d\n  ]",
		};
		len += (size_t)sprintf(s + len, forms[i % 3], 1000 + i, 100 + i, i % 8);
		if (i % 10 == 9) {
			len += (size_t)sprintf(s + len, ", [%d, 3, -%d, %d], [%d, 3, %d, 7]", 1000 + i,
					       100 + i, i % 8, 1000 + i, 100 + i);
			*rows += 2;
		}
		*rows += 1;
	}
	len += (size_t)sprintf(s + len, "%s", tail);
	return s;
}

static void expect_same(const struct result *a, const struct result *b, const char *what)
{
	if (a->ok != b->ok || strcmp(a->messages, b->messages) != 0 || a->e.count != b->e.count)
		fail_msg("%s: %d %s / %d %s", what, a->ok, a->messages, b->ok, b->messages);
	for (size_t i = 0; i < a->e.count; i++) {
		const struct fk_torchmem_event *x = &a->e.ev[i], *y = &b->e.ev[i];
		if (x->t_ns != y->t_ns || x->bytes != y->bytes || x->action != y->action ||
		    x->category != y->category || x->category_to != y->category_to)
			fail_msg("%s: event %zu differs", what, i);
	}
}

static const size_t pieces[] = { 1, 2, 7, 100, 300 };

static void test_reader_pieces_give_the_same_events(void **state)
{
	(void)state;
	size_t rows;
	char *text = timeline("]\n", &rows);
	struct result whole;
	read_whole(text, &whole);
	assert_true(whole.ok);
	assert_string_equal(whole.messages, "");
	assert_int_equal(whole.e.count, rows - 300); /* a pair is one event */
	assert_int_equal(whole.e.ev[0].t_ns, -1);
	assert_int_equal(whole.e.ev[whole.e.count - 1].t_ns, 3999);
	const struct fk_torchmem_event *pair = &whole.e.ev[1 + 10];
	assert_int_equal(pair->action, FK_TORCHMEM_INCREMENT_VERSION);
	assert_int_equal(pair->bytes, 109);
	assert_int_equal(pair->category_to, 7);
	for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
		struct result r;
		read_in_pieces(text, pieces[i], &r);
		expect_same(&whole, &r, "valid");
		result_free(&r);
	}
	result_free(&whole);
	free(text);
}

/* Errors past the peek: those of rows the fast path reads (checked the
 * same way), and those it hands to yajl (which words them), each found at
 * the same place whatever the pieces. */
static void test_reader_errors_in_any_pieces(void **state)
{
	(void)state;
	static const struct {
		const char *tail, *message;
	} cases[] = {
		{ ", [5000, 9, 1, 0]]", "raw: event 3602: unknown action 9 (1-4: PREEXISTING, CREATE, "
					"INCREMENT_VERSION, DESTROY)\n" },
		{ ", [5000, 2, 1.5, 0]]", "raw: event 3602: 1.5 is not an integer\n" },
		{ ", [5000, 2, 1e3, 0]]", "raw: event 3602: 1e3 is not an integer\n" },
		{ ", [5000, 2, 99999999999999999999, 0]]",
		  "raw: event 3602: 99999999999999999999 is out of range for 64 bits\n" },
		{ ", [5000, 2, 1]]", "raw: event 3602: a row has 3 values, expected 4: "
				     "[t_ns, action, bytes, category]\n" },
		{ ", [5000, 2, \"1\", 0]]", "raw: event 3602: a string in a row (rows hold 4 integers)\n" },
		{ ", 5]", "raw: event 3602: 5 where a row was expected (rows are [t_ns, action, bytes, "
			  "category])\n" },
		{ ", [5000, 3, -1, 0]]", "raw: event 3603: the input ends inside an INCREMENT_VERSION pair\n" },
		{ "", NULL }, /* no closing bracket: yajl's words */
		{ ", [5000, 2, 1, 0]] x", NULL },
		{ ", [5000, 2,, 1, 0]]", NULL },
		{ ", [5000, 2, 01, 0]]", NULL },
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		size_t rows;
		char *text = timeline(cases[c].tail, &rows);
		struct result whole;
		read_whole(text, &whole);
		assert_false(whole.ok);
		if (cases[c].message)
			assert_string_equal(whole.messages, cases[c].message);
		else if (!strstr(whole.messages, "malformed JSON"))
			fail_msg("%s", whole.messages);
		for (size_t i = 0; i < sizeof pieces / sizeof *pieces; i++) {
			struct result r;
			read_in_pieces(text, pieces[i], &r);
			expect_same(&whole, &r, cases[c].tail);
			result_free(&r);
		}
		result_free(&whole);
		free(text);
	}
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN); /* a reader that stops early closes its end */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lex_rows),
		cmocka_unit_test(test_lex_leaves_the_rest_to_the_parser),
		cmocka_unit_test(test_lex_every_cut_asks_for_more),
		cmocka_unit_test(test_lex_numbers_of_every_length),
		cmocka_unit_test(test_reader_pieces_give_the_same_events),
		cmocka_unit_test(test_reader_errors_in_any_pieces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
