/* test_load.c - analysis/load.h, and what its parallel path is built from:
 * fk_stacks_add_batch, fk_stacks_merge
 * (analysis/stacks.h) and fk_arena_adopt (analysis/arena.h).
 *
 * Covers fk_load_stacktext on a generated file over the 32 MiB threshold
 * (repeated and unique stacks, decimal and differential values, comments,
 * blank and CRLF lines, an empty stack, bad lines at known line numbers, no
 * final newline): the table is the same for every FLAMEKIT_THREADS value, on
 * the streaming paths (standard input from a pipe, a gzip copy, the sequence
 * kept for flame charts) and matches a model kept by the generator; bad lines
 * are reported in file order with file line numbers and counted; strict mode
 * stops at the first one; sums passing 128 bits within one reader's share and
 * only across shares are errors naming the line; a table that already holds
 * stacks keeps them. Then the pieces on small tables: batched adds against
 * one-by-one adds (ids, sums, stopping at an overflow), merges (sums, strings
 * copied only when new and outliving their table, empty tables, overflow),
 * disjoint merges that take strings over, and arena adoption (pointers of
 * both arenas stay valid; under SANITIZE=1 ASan also checks
 * that nothing leaks or is freed twice).
 */
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <zlib.h>
#include <cmocka.h>

#include "scratch_dir.h"
#include "stderr_capture.h"

#include "analysis/core/arena.h"
#include "analysis/core/stackload.h"
#include "analysis/core/stacks.h"
#include "stack_text.h"
#include "analysis/core/strtab.h"


#define U64_MAX_TEXT "18446744073709551615"
/* Sums pass 128 bits only past 2^64 lines of 2^64-1 (or decimals), so the
 * overflow tests first fill a table with this much: then 2^64-1 more fits
 * exactly and anything above does not, as with the 64-bit sums before. */
#define FULL (FK_U128_MAX - UINT64_MAX)

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

/* Adds "full" with value (and before) FULL: what a table holds from an
 * earlier file whose sums passed 64 bits long ago. */
static void add_full(struct fk_stacks *s)
{
	struct fk_stack_sums full = { .value = { FULL, 0 }, .before = { FULL, 0 }, .lines = 1 };
	assert_int_equal(fk_stacks_add_sums(s, "full", 4, &full, NULL), FK_STACKS_OK);
}

/* FULL + v, for totals of tables that start with add_full. */
static struct fk_num full_plus(const char *v)
{
	struct fk_num n = { FULL, 0 };
	assert_true(fk_num_add(&n, num(v)));
	return n;
}

/* A value kept by the generator in thousandths. */
static void assert_milli(struct fk_num got, uint64_t want, const char *what)
{
	struct fk_num w = { .mant = want, .scale = 3 };
	if (fk_num_cmp(got, w) != 0) {
		char g[FK_NUM_TEXT_MAX], e[FK_NUM_TEXT_MAX];
		fk_num_format(got, g);
		fk_num_format(w, e);
		print_error("%s: got %s, want %s\n", what, g, e);
		fail();
	}
}

static uint32_t find(const struct fk_stacks *s, const char *stack)
{
	return stack_find(s, stack, strlen(stack));
}

static uint32_t add1(struct fk_stacks *s, const char *stack, const char *value)
{
	uint32_t id = FK_STRTAB_NONE;
	struct fk_num v = num(value);
	assert_int_equal(fk_stacks_add(s, stack, strlen(stack), v, v, 1, &id), FK_STACKS_OK);
	return id;
}

static uint32_t add2(struct fk_stacks *s, const char *stack, const char *before, const char *after)
{
	uint32_t id = FK_STRTAB_NONE;
	assert_int_equal(fk_stacks_add(s, stack, strlen(stack), num(before), num(after), 2, &id),
			 FK_STACKS_OK);
	return id;
}

/* The whole table as text, in stack order: a header with the totals, then
 * "stack<TAB>before<TAB>value<TAB>diff" per stack. Equal texts, equal tables. */
static char *dump(const struct fk_stacks *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	char a[FK_NUM_TEXT_MAX], b[FK_NUM_TEXT_MAX];
	fk_num_format(s->total, a);
	fk_num_format(s->total_before, b);
	fprintf(f, "count %u lines %llu total %s before %s diff %d\n", fk_stacks_count(s),
		(unsigned long long)s->lines, a, b, (int)s->any_diff);
	uint32_t *ids = fk_stacks_sorted(s, FK_ORDER_STACK);
	assert_non_null(ids);
	for (uint32_t i = 0; i < fk_stacks_count(s); i++) {
		const struct fk_str *k = stack_text(s, ids[i]);
		if (i > 0) { /* one entry per stack */
			const struct fk_str *prev = stack_text(s, ids[i - 1]);
			assert_false(prev->len == k->len && memcmp(prev->p, k->p, k->len) == 0);
		}
		const struct fk_stack_sums *v = &s->sums[ids[i]];
		fk_num_format(v->before, b);
		fk_num_format(v->value, a);
		fwrite(k->p, 1, k->len, f);
		fprintf(f, "\t%s\t%s\t%d\n", b, a, (int)v->diff);
	}
	free(ids);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Fails showing where two long texts first differ. */
static void assert_same_text(const char *what, const char *want, const char *got)
{
	if (strcmp(want, got) == 0)
		return;
	size_t i = 0;
	while (want[i] && want[i] == got[i])
		i++;
	size_t from = i > 60 ? i - 60 : 0;
	print_error("%s: differs at byte %zu\n want: ...%.160s\n  got: ...%.160s\n", what, i,
		    want + from, got + from);
	fail();
}


static void diag(struct fk_diag *d)
{
	fk_diag_init(d, "test_load");
}

/* fk_load_stacktext with FLAMEKIT_THREADS set to threads (NULL: unset) and
 * stderr captured into *err (freed when err is NULL). */
static enum fk_input_result load(const char *path, const char *threads, struct fk_stacks *into,
				 struct fk_seq *seq, struct fk_diag *d, char **err)
{
	if (threads)
		assert_int_equal(setenv("FLAMEKIT_THREADS", threads, 1), 0);
	else
		assert_int_equal(unsetenv("FLAMEKIT_THREADS"), 0);
	struct capture cap;
	capture_start(&cap);
	enum fk_input_result r = fk_load_stacktext(path, into, seq, d);
	char *e = capture_end(&cap);
	if (err)
		*err = e;
	else
		free(e);
	unsetenv("FLAMEKIT_THREADS");
	return r;
}

/* fk_load_stacktext("-") with a child writing the file at path into a pipe
 * on standard input: the streaming path, on the same bytes. */
static enum fk_input_result load_stdin(const char *path, struct fk_stacks *into,
				       struct fk_diag *d, char **err)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		signal(SIGPIPE, SIG_IGN); /* a strict reader may stop early */
		close(fds[0]);
		int fd = open(path, O_RDONLY);
		static char buf[1 << 16];
		ssize_t n;
		while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0)
			for (ssize_t at = 0; at < n;) {
				ssize_t w = write(fds[1], buf + at, (size_t)(n - at));
				if (w <= 0)
					_exit(1); /* the reader stopped early (strict) */
				at += w;
			}
		_exit(fd >= 0 ? 0 : 2);
	}
	close(fds[1]);
	int saved = dup(STDIN_FILENO);
	assert_true(saved >= 0);
	assert_true(dup2(fds[0], STDIN_FILENO) >= 0);
	close(fds[0]);
	enum fk_input_result r = load("-", "4", into, NULL, d, err);
	assert_true(dup2(saved, STDIN_FILENO) >= 0); /* also closes the pipe */
	close(saved);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 2);
	return r;
}

/* ---- the generated file ------------------------------------------------- */

#define BIG_TARGET ((size_t)33 << 20) /* just over the parallel threshold */
#define NREP 1500                     /* stacks that repeat */
#define MAX_BAD 16

struct uniq {
	uint64_t line;
	uint64_t value, before; /* thousandths */
	bool diff;
};

/* What the generator wrote, kept independently of the loader. Values are in
 * thousandths (every value written has at most 3 decimals). */
struct model {
	char path[512], gz[512];
	size_t bytes;
	uint64_t file_lines, stack_lines;
	uint32_t count; /* distinct stacks */
	uint64_t rep_value[NREP], rep_before[NREP];
	bool rep_diff[NREP], rep_seen[NREP];
	struct uniq *uniq;
	size_t nuniq, uniq_cap;
	uint64_t empty_value; /* the stack "" */
	bool empty_seen;
	uint64_t total, total_before;
	unsigned first_rep;   /* the first line's stack */
	unsigned nbad;
	uint64_t bad_line[MAX_BAD];
	const char *bad_why[MAX_BAD];
};

static struct model *big;

static uint64_t rng;

static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33);
}

/* A torch-like stack that many lines share: 2 to 13 model frames deep. */
static int rep_stack(char *buf, size_t cap, unsigned k)
{
	int n = snprintf(buf, cap, "python3;train.py(%u):<module>;"
			 "torch/nn/modules/module.py(1501):_call_impl", 40 + k % 7);
	for (unsigned i = 0; i < 2 + k % 12; i++)
		n += snprintf(buf + n, cap - (size_t)n, ";model.py(%u):forward_%u", 100 + i * 13 + k % 5,
			      (k + i) % 9);
	n += snprintf(buf + n, cap - (size_t)n,
		      ";<built-in method linear of type object>;aten::op_%u;kernel_%u", k % 97, k);
	return n;
}

/* A stack seen once: named after its line. */
static int uniq_stack(char *buf, size_t cap, uint64_t line)
{
	int n = snprintf(buf, cap, "python3;loader.py(88):__next__;sample_%llu",
			 (unsigned long long)line);
	for (unsigned i = 0; i < 1 + line % 9; i++)
		n += snprintf(buf + n, cap - (size_t)n, ";collate.py(%u):collate", 20 + i);
	n += snprintf(buf + n, cap - (size_t)n, ";unique_leaf_%llu", (unsigned long long)line);
	return n;
}

/* A value as text: integers, 1 to 3 decimals, a trailing dot. */
static uint64_t gen_value(char *buf, size_t cap)
{
	uint32_t r = rnd() % 10, ip = rnd() % 100000;
	if (r < 6) {
		snprintf(buf, cap, "%u", ip);
		return ip * 1000ull;
	}
	if (r < 8) {
		uint32_t f = rnd() % 1000;
		snprintf(buf, cap, "%u.%03u", ip, f);
		return ip * 1000ull + f;
	}
	if (r < 9) {
		uint32_t f = rnd() % 10;
		snprintf(buf, cap, "%u.%u", ip, f);
		return ip * 1000ull + f * 100;
	}
	snprintf(buf, cap, "%u.", ip);
	return ip * 1000ull;
}

#define BAD(text, why) { text, sizeof text - 1, why }
static const struct {
	const char *text;
	size_t len;
	const char *why;
} bad_kinds[] = {
	BAD("python3;train.py(3):<module>;no_value_here", "no value at the end of the line"),
	BAD("12345", "no stack before the value"),
	BAD("a;b;c -4", "negative value"),
	BAD("a;b;c 1e3", "value is not a decimal number"),
	BAD("a;b;c 18446744073709551616", "value does not fit in 64 bits"),
	BAD("a;b;c 0.1234567890123456789", "value has more than 18 decimals"),
	BAD("a;b\0c 5", "NUL byte in line"),
};

/* Where bad lines go, as byte offsets (fractions of BIG_TARGET after the
 * first two): two near the start, two adjacent ones mid-file, one near the
 * end, so every split puts some in the first share and some in later ones. */
static const double bad_at[] = { 1500, 4000, 0.2, 0.26, 0.5, 0.5, 0.51, 0.77, 0.95, 0.9995 };

struct writer {
	FILE *f;
	gzFile gz;
	size_t bytes;
};

static void put(struct writer *w, const char *p, size_t n)
{
	assert_int_equal(fwrite(p, 1, n, w->f), n);
	assert_int_equal(gzwrite(w->gz, p, (unsigned)n), (int)n);
	w->bytes += n;
}

static void put_line(struct model *m, struct writer *w, const char *p, size_t n, const char *eol)
{
	put(w, p, n);
	put(w, eol, strlen(eol));
	m->file_lines++;
}

static void gen_big(struct model *m)
{
	snprintf(m->path, sizeof m->path, "%s/big.txt", tmpdir);
	snprintf(m->gz, sizeof m->gz, "%s/big.txt.gz", tmpdir);
	struct writer w = { .f = fopen(m->path, "wb"), .gz = gzopen(m->gz, "wb1") };
	assert_non_null(w.f);
	assert_non_null(w.gz);
	static char fbuf[1 << 20];
	setvbuf(w.f, fbuf, _IOFBF, sizeof fbuf);
	rng = 42;
	char line[2048], v1[32], v2[32];
	unsigned nexts = sizeof bad_at / sizeof bad_at[0];
	for (;;) {
		if (m->nbad < nexts) {
			double at = bad_at[m->nbad];
			if ((double)w.bytes >= (at < 1 ? at * (double)BIG_TARGET : at)) {
				unsigned k = m->nbad % (sizeof bad_kinds / sizeof bad_kinds[0]);
				put_line(m, &w, bad_kinds[k].text, bad_kinds[k].len, "\n");
				m->bad_line[m->nbad] = m->file_lines;
				m->bad_why[m->nbad++] = bad_kinds[k].why;
				continue;
			}
		} else if (w.bytes >= BIG_TARGET) {
			break;
		}
		uint32_t r = m->file_lines == 0 ? 0 : rnd() % 100;
		if (r < 80) {
			unsigned k = rnd() % NREP;
			if (m->file_lines == 0)
				m->first_rep = k;
			int n = rep_stack(line, sizeof line, k);
			uint64_t b = 0, v;
			bool diff = rnd() % 8 == 0;
			if (diff)
				b = gen_value(v1, sizeof v1);
			v = gen_value(v2, sizeof v2);
			n += diff ? snprintf(line + n, sizeof line - (size_t)n, " %s %s", v1, v2)
				  : snprintf(line + n, sizeof line - (size_t)n, " %s", v2);
			put_line(m, &w, line, (size_t)n, rnd() % 50 == 0 ? "\r\n" : "\n");
			if (!m->rep_seen[k])
				m->count++;
			m->rep_seen[k] = true;
			m->rep_value[k] += v;
			m->rep_before[k] += diff ? b : v;
			m->rep_diff[k] |= diff;
			m->total += v;
			m->total_before += diff ? b : v;
			m->stack_lines++;
		} else if (r < 92) {
			int n = uniq_stack(line, sizeof line, m->file_lines + 1);
			bool diff = rnd() % 4 == 0;
			uint64_t b = diff ? gen_value(v1, sizeof v1) : 0, v = gen_value(v2, sizeof v2);
			n += diff ? snprintf(line + n, sizeof line - (size_t)n, " %s %s", v1, v2)
				  : snprintf(line + n, sizeof line - (size_t)n, "\t%s", v2);
			put_line(m, &w, line, (size_t)n, "\n");
			if (m->nuniq == m->uniq_cap) {
				m->uniq_cap = m->uniq_cap ? m->uniq_cap * 2 : 4096;
				m->uniq = realloc(m->uniq, m->uniq_cap * sizeof *m->uniq);
				assert_non_null(m->uniq);
			}
			m->uniq[m->nuniq++] = (struct uniq){ .line = m->file_lines, .value = v,
							     .before = diff ? b : v, .diff = diff };
			m->count++;
			m->total += v;
			m->total_before += diff ? b : v;
			m->stack_lines++;
		} else if (r < 95) {
			int n = snprintf(line, sizeof line, "# step %u", rnd());
			put_line(m, &w, line, (size_t)n, "\n");
		} else if (r < 97) {
			put_line(m, &w, r == 95 ? "" : " \t ", r == 95 ? 0 : 3, "\n");
		} else if (r < 98) { /* the empty stack: " VALUE" */
			uint64_t v = gen_value(v2, sizeof v2);
			int n = snprintf(line, sizeof line, " %s", v2);
			put_line(m, &w, line, (size_t)n, "\n");
			if (!m->empty_seen)
				m->count++;
			m->empty_seen = true;
			m->empty_value += v;
			m->total += v;
			m->total_before += v;
			m->stack_lines++;
		} else { /* a frame name with spaces at the end of the line */
			int n = snprintf(line, sizeof line, "python3;<frozen importlib._bootstrap> 7");
			put_line(m, &w, line, (size_t)n, "\n");
			m->stack_lines++;
			m->total += 7000;
			m->total_before += 7000;
		}
	}
	/* "python3;<frozen importlib._bootstrap>" appeared above (once or more) */
	m->count++;
	/* The last line has no '\n'. */
	put(&w, "tail;last 7", 11);
	m->file_lines++;
	m->stack_lines++;
	m->count++;
	m->total += 7000;
	m->total_before += 7000;
	m->bytes = w.bytes;
	assert_int_equal(fclose(w.f), 0);
	assert_int_equal(gzclose(w.gz), Z_OK);
}

/* The generated file, made on first use. */
static const struct model *big_file(void)
{
	if (!big) {
		big = calloc(1, sizeof *big);
		assert_non_null(big);
		gen_big(big);
		assert_true(big->bytes > ((size_t)32 << 20));
	}
	return big;
}

/* The table read from the generated file is what the generator wrote. */
static void check_model(const struct fk_stacks *s, const struct model *m)
{
	char stack[2048];
	assert_int_equal(fk_stacks_count(s), m->count);
	assert_int_equal(s->lines, m->stack_lines);
	assert_milli(s->total, m->total, "total");
	assert_milli(s->total_before, m->total_before, "total_before");
	assert_true(s->any_diff);
	for (unsigned k = 0; k < NREP; k++) {
		rep_stack(stack, sizeof stack, k);
		uint32_t id = find(s, stack);
		if (!m->rep_seen[k]) {
			assert_int_equal(id, FK_STRTAB_NONE);
			continue;
		}
		assert_int_not_equal(id, FK_STRTAB_NONE);
		assert_milli(s->sums[id].value, m->rep_value[k], stack);
		assert_milli(s->sums[id].before, m->rep_before[k], stack);
		assert_int_equal(s->sums[id].diff, m->rep_diff[k]);
	}
	for (size_t i = 0; i < m->nuniq; i++) {
		uniq_stack(stack, sizeof stack, m->uniq[i].line);
		uint32_t id = find(s, stack);
		assert_int_not_equal(id, FK_STRTAB_NONE);
		assert_milli(s->sums[id].value, m->uniq[i].value, stack);
		assert_milli(s->sums[id].before, m->uniq[i].before, stack);
		assert_int_equal(s->sums[id].diff, m->uniq[i].diff);
	}
	assert_true(m->empty_seen);
	uint32_t id = find(s, "");
	assert_int_not_equal(id, FK_STRTAB_NONE);
	assert_milli(s->sums[id].value, m->empty_value, "empty stack");
	id = find(s, "tail;last");
	assert_int_not_equal(id, FK_STRTAB_NONE);
	assert_num(s->sums[id].value, "7");
	/* Bad lines added nothing. */
	assert_int_equal(find(s, "a;b;c"), FK_STRTAB_NONE);
}

/* What the first `shown` bad lines print, in file order. */
static char *bad_text(const struct model *m, const char *name, unsigned shown)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	for (unsigned i = 0; i < shown && i < m->nbad; i++)
		fprintf(f, "%s:%llu: %s\n", name, (unsigned long long)m->bad_line[i], m->bad_why[i]);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* The table by id: each stack's text and frame ids, each frame's name. Two
 * loads of one file give the same ids, stacks and frames, whatever the
 * threads (the ids one reader gives them, in order of first sight). */
static char *dump_ids(const struct fk_stacks *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	for (uint32_t id = 0; id < fk_stacks_count(s); id++) {
		const struct fk_stack_entry *e = fk_stackset_get(&s->set, id);
		assert_int_not_equal(e->nframes, 0); /* nothing left unsplit */
		const struct fk_str *k = stack_text(s, id);
		fwrite(k->p, 1, k->len, f);
		for (uint32_t i = 0; i < e->nframes; i++)
			fprintf(f, " %u", e->frames[i]);
		fputc('\n', f);
	}
	for (uint32_t frame = 0; frame < s->set.frames.count; frame++) {
		const struct fk_str *name = fk_stackset_frame(&s->set, frame);
		fwrite(name->p, 1, name->len, f);
		fputc('\n', f);
	}
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* ---- fixtures ----------------------------------------------------------- */

static int setup(void **state)
{
	(void)state;
	return scratch_make("fk_test_load");
}

static int teardown(void **state)
{
	(void)state;
	if (big)
		free(big->uniq);
	free(big);
	big = NULL;
	return scratch_remove();
}

/* ---- fk_load_stacktext: one table whatever the split -------------------- */

static void test_threads_same_table(void **state)
{
	(void)state;
	const struct model *m = big_file();
	/* 99 is capped at the maximum, 0 and junk mean one thread, NULL (unset)
	 * the number of CPUs. */
	const char *threads[] = { "1", "2", "3", "5", "16", "99", "0", "x", NULL };
	char *want = NULL, *want_ids = NULL;
	char *want_err = bad_text(m, m->path, FK_DIAG_MAX_SHOWN);
	for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
		struct fk_stacks s = { 0 };
		struct fk_diag d;
		diag(&d);
		char *err;
		assert_int_equal(load(m->path, threads[i], &s, NULL, &d, &err), FK_INPUT_OK);
		char what[64];
		snprintf(what, sizeof what, "FLAMEKIT_THREADS=%s", threads[i] ? threads[i] : "(unset)");
		char *got = dump(&s), *got_ids = dump_ids(&s);
		if (!want) {
			check_model(&s, m);
			want = got;
			want_ids = got_ids;
		} else {
			assert_same_text(what, want, got);
			assert_same_text(what, want_ids, got_ids);
			free(got);
			free(got_ids);
		}
		/* The first FK_DIAG_MAX_SHOWN bad lines, in file order, all counted. */
		assert_same_text(what, want_err, err);
		assert_int_equal(d.bad_lines, m->nbad);
		free(err);
		fk_stacks_free(&s);
	}
	free(want);
	free(want_ids);
	free(want_err);
}

static void test_streaming_same_table(void **state)
{
	(void)state;
	const struct model *m = big_file();
	struct fk_stacks ref = { 0 };
	struct fk_diag d;
	diag(&d);
	assert_int_equal(load(m->path, "3", &ref, NULL, &d, NULL), FK_INPUT_OK);
	char *want = dump(&ref), *want_ids = dump_ids(&ref);

	/* Standard input from a pipe: the same ids as the mapped file's three
	 * readers gave (streamed lines split each new stack at once). */
	struct fk_stacks s = { 0 };
	diag(&d);
	char *err;
	assert_int_equal(load_stdin(m->path, &s, &d, &err), FK_INPUT_OK);
	char *got = dump(&s);
	assert_same_text("stdin", want, got);
	free(got);
	got = dump_ids(&s);
	assert_same_text("stdin ids", want_ids, got);
	free(want_ids);
	char *want_err = bad_text(m, "<stdin>", FK_DIAG_MAX_SHOWN);
	assert_string_equal(err, want_err);
	assert_int_equal(d.bad_lines, m->nbad);
	free(want_err), free(err), free(got);
	fk_stacks_free(&s);

	/* The gzip copy (never mapped, so streamed). */
	diag(&d);
	assert_int_equal(load(m->gz, "16", &s, NULL, &d, &err), FK_INPUT_OK);
	got = dump(&s);
	assert_same_text("gzip", want, got);
	want_err = bad_text(m, m->gz, FK_DIAG_MAX_SHOWN);
	assert_string_equal(err, want_err);
	assert_int_equal(d.bad_lines, m->nbad);
	free(want_err), free(err), free(got);
	fk_stacks_free(&s);

	/* With a sequence (flame charts): streamed, one item per stack line,
	 * in order, adding up to the table. */
	struct fk_seq seq = { 0 };
	diag(&d);
	assert_int_equal(load(m->path, "16", &s, &seq, &d, &err), FK_INPUT_OK);
	got = dump(&s);
	assert_same_text("sequence", want, got);
	want_err = bad_text(m, m->path, FK_DIAG_MAX_SHOWN);
	assert_string_equal(err, want_err);
	assert_int_equal(seq.count, m->stack_lines);
	char stack[2048];
	int n = rep_stack(stack, sizeof stack, m->first_rep);
	const struct fk_str *k = stack_text(&s, seq.items[0].stack);
	assert_int_equal(k->len, n);
	assert_memory_equal(k->p, stack, (size_t)n);
	assert_int_equal(seq.items[seq.count - 1].stack, find(&s, "tail;last"));
	struct fk_stack_sums *acc = calloc(fk_stacks_count(&s), sizeof *acc);
	assert_non_null(acc);
	for (size_t i = 0; i < seq.count; i++) {
		const struct fk_seq_item *it = &seq.items[i];
		assert_true(it->stack < fk_stacks_count(&s));
		assert_true(it->nvalues == 1 || it->nvalues == 2);
		assert_true(fk_num_add(&acc[it->stack].value, it->value));
		assert_true(fk_num_add(&acc[it->stack].before,
				       it->nvalues == 2 ? it->before : it->value));
		acc[it->stack].diff |= it->nvalues == 2;
	}
	for (uint32_t id = 0; id < fk_stacks_count(&s); id++) {
		assert_int_equal(fk_num_cmp(acc[id].value, s.sums[id].value), 0);
		assert_int_equal(fk_num_cmp(acc[id].before, s.sums[id].before), 0);
		assert_int_equal(acc[id].diff, s.sums[id].diff);
	}
	free(acc);
	fk_seq_free(&seq);
	assert_null(seq.items);
	free(want_err), free(err), free(got);
	fk_stacks_free(&s);

	free(want);
	fk_stacks_free(&ref);
}

/* ---- fk_load_stacktext: bad lines --------------------------------------- */

static void test_bad_lines_shown_and_counted(void **state)
{
	(void)state;
	const struct model *m = big_file();
	/* A smaller budget: still the first ones in file order. */
	const char *threads[] = { "1", "5", "16" };
	char *want_err = bad_text(m, m->path, 2);
	for (size_t i = 0; i < 3; i++) {
		struct fk_stacks s = { 0 };
		struct fk_diag d;
		diag(&d);
		d.max_shown = 2;
		char *err;
		assert_int_equal(load(m->path, threads[i], &s, NULL, &d, &err), FK_INPUT_OK);
		assert_same_text(threads[i], want_err, err);
		assert_int_equal(d.bad_lines, m->nbad);
		free(err);
		fk_stacks_free(&s);
	}
	free(want_err);

	/* Quiet: nothing printed, all counted. */
	struct fk_stacks s = { 0 };
	struct fk_diag d;
	diag(&d);
	d.quiet = true;
	char *err;
	assert_int_equal(load(m->path, "16", &s, NULL, &d, &err), FK_INPUT_OK);
	assert_string_equal(err, "");
	assert_int_equal(d.bad_lines, m->nbad);
	free(err);
	fk_stacks_free(&s);
}

static void test_strict_stops_at_first(void **state)
{
	(void)state;
	const struct model *m = big_file();
	const char *threads[] = { "1", "2", "3", "5", "16", "stdin", "gzip" };
	for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
		struct fk_stacks s = { 0 };
		struct fk_diag d;
		diag(&d);
		d.strict = true;
		char *err;
		enum fk_input_result r;
		const char *name = m->path;
		if (strcmp(threads[i], "stdin") == 0) {
			name = "<stdin>";
			r = load_stdin(m->path, &s, &d, &err);
		} else if (strcmp(threads[i], "gzip") == 0) {
			name = m->gz;
			r = load(m->gz, "16", &s, NULL, &d, &err);
		} else {
			r = load(m->path, threads[i], &s, NULL, &d, &err);
		}
		assert_int_equal(r, FK_INPUT_STOPPED);
		char *want_err = bad_text(m, name, 1);
		assert_same_text(threads[i], want_err, err);
		assert_int_equal(d.bad_lines, 1);
		free(want_err);
		free(err);
		fk_stacks_free(&s);
	}
}

/* ---- fk_load_stacktext: sums past 128 bits ------------------------------ */

/* A file over the threshold made of big comment lines (cheap to read), with
 * stack lines before (head) and after (tail) them. Returns the tail's first
 * line number. */
static uint64_t write_padded(const char *path, const char *head, const char *tail)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	uint64_t lines = 0;
	for (const char *p = head; *p; p++)
		lines += *p == '\n';
	assert_int_equal(fputs(head, f) >= 0, 1);
	size_t n = (size_t)1 << 20;
	char *comment = malloc(n);
	assert_non_null(comment);
	memset(comment, 'x', n);
	comment[0] = '#';
	comment[n - 1] = '\n';
	for (int i = 0; i < 34; i++, lines++)
		assert_int_equal(fwrite(comment, 1, n, f), n);
	free(comment);
	assert_int_equal(fputs(tail, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return lines + 1;
}

/* Loads path with each thread count into a table holding FULL (and 2^64 - 1
 * more when prev); every one must fail with the message that the one-thread
 * read gives: "PATH:LINE: sum of values passes 128 bits", LINE being where
 * the running sum passed 128 bits. Returns how many did not (each printed). */
static unsigned overflow_mismatches(const char *path, bool prev, uint64_t line)
{
	char want[1024];
	snprintf(want, sizeof want, "test_load: %s:%llu: sum of values passes 128 bits\n", path,
		 (unsigned long long)line);
	const char *threads[] = { "1", "2", "16", "seq" };
	unsigned bad = 0;
	for (size_t i = 0; i < sizeof threads / sizeof threads[0]; i++) {
		struct fk_stacks s = { 0 };
		add_full(&s);
		if (prev)
			add1(&s, "prev", U64_MAX_TEXT);
		struct fk_seq seq = { 0 };
		bool streamed = strcmp(threads[i], "seq") == 0;
		struct fk_diag d;
		diag(&d);
		char *err;
		enum fk_input_result r = load(path, streamed ? "16" : threads[i], &s,
					      streamed ? &seq : NULL, &d, &err);
		if (r != FK_INPUT_ERROR || strcmp(err, want) != 0) {
			print_error("%s, FLAMEKIT_THREADS=%s: result %d, stderr: %s"
				    "   want result %d, stderr: %s",
				    strrchr(path, '/') + 1, threads[i], (int)r, err,
				    (int)FK_INPUT_ERROR, want);
			bad++;
		}
		/* Nothing wrapped. */
		assert_true(fk_num_cmp(s.total, full_plus("0")) >= 0);
		free(err);
		fk_seq_free(&seq);
		fk_stacks_free(&s);
	}
	return bad;
}

static void test_overflow_within_share(void **state)
{
	(void)state;
	/* Both big values after the padding: the same share for any split. */
	const char *path = path_of("overflow-one-share.txt");
	uint64_t at = write_padded(path, "small;a 0\n",
				   "big;a " U64_MAX_TEXT "\nbig;b " U64_MAX_TEXT "\nsmall;b 2\n");
	assert_int_equal(overflow_mismatches(path, false, at + 1), 0);
	unlink(path);
}

static void test_overflow_across_shares(void **state)
{
	(void)state;
	/* One big value before the padding, one after: in different shares as
	 * soon as there are two threads. The error must still name the line
	 * where the sum passed 128 bits, as the one-thread read does. */
	unsigned bad = 0;
	const char *path = path_of("overflow-two-shares.txt");
	uint64_t at = write_padded(path, "big;a " U64_MAX_TEXT "\n",
				   "big;b " U64_MAX_TEXT "\nsmall;b 0\n");
	bad += overflow_mismatches(path, false, at);

	/* The second share also passes 128 bits on its own, one line later. */
	const char *path2 = path_of("overflow-two-shares-2.txt");
	at = write_padded(path2, "big;a " U64_MAX_TEXT "\n", "big;b " U64_MAX_TEXT "\nsmall;b 2\n");
	bad += overflow_mismatches(path2, false, at);

	/* The first big value in the table from an earlier file. */
	const char *path3 = path_of("overflow-after-previous.txt");
	at = write_padded(path3, "small;a 0\n", "small;b 0\nsmall;c 1\n");
	bad += overflow_mismatches(path3, true, at + 1);
	unlink(path);
	unlink(path2);
	unlink(path3);
	assert_int_equal(bad, 0);
}

/* A sum passing 128 bits in the first reader's share, a bad line in a later
 * one: one reader stops at the sum and never reads the bad line, so no
 * thread count may report it (nor number it from a share read part way). */
static void test_overflow_before_later_bad_line(void **state)
{
	(void)state;
	const char *path = path_of("overflow-then-later-bad.txt");
	write_padded(path, "big;a " U64_MAX_TEXT "\nbig;b " U64_MAX_TEXT "\n",
		     "no value on this line\nsmall;b 1\n");
	assert_int_equal(overflow_mismatches(path, false, 2), 0);
	/* The sums pass 128 bits only when the shares are combined, at the
	 * tail's first line: the bad line after it is not reported either. */
	uint64_t at = write_padded(path, "big;a " U64_MAX_TEXT "\n",
				   "big;b " U64_MAX_TEXT "\nno value on this line\nsmall;c 1\n");
	assert_int_equal(overflow_mismatches(path, false, at), 0);
	unlink(path);
}

/* A sum passing 128 bits, then a bad line: the sum's line comes first in the
 * file, so it is the error, strict or not, on every path (the mapped path
 * adds lines in batches, after parsing the lines that follow). */
static void test_overflow_then_bad_line(void **state)
{
	(void)state;
	const char *path = path_of("overflow-then-bad.txt");
	const char text[] = "x " U64_MAX_TEXT "\ny 1\nbad\nz 1\n";
	write_file(path, text, sizeof text - 1);
	char want_file[1024], want_stdin[1024];
	snprintf(want_file, sizeof want_file,
		 "test_load: %s:2: sum of values passes 128 bits\n", path);
	snprintf(want_stdin, sizeof want_stdin,
		 "test_load: <stdin>:2: sum of values passes 128 bits\n");
	unsigned bad = 0;
	for (int strict = 0; strict < 2; strict++)
		for (int how = 0; how < 3; how++) { /* mapped, mapped + 16 threads, stdin */
			struct fk_stacks s = { 0 };
			add_full(&s);
			struct fk_diag d;
			diag(&d);
			d.strict = strict;
			char *err;
			enum fk_input_result r = how == 2 ? load_stdin(path, &s, &d, &err)
							  : load(path, how ? "16" : "1", &s, NULL, &d, &err);
			const char *want = how == 2 ? want_stdin : want_file;
			if (r != FK_INPUT_ERROR || strcmp(err, want) != 0 || d.bad_lines != 0) {
				print_error("%s, strict %d: result %d, bad_lines %llu, stderr: %s"
					    "   want result %d, bad_lines 0, stderr: %s",
					    how == 0 ? "mapped" : how == 1 ? "mapped, 16 threads" : "stdin",
					    strict, (int)r, (unsigned long long)d.bad_lines, err,
					    (int)FK_INPUT_ERROR, want);
				bad++;
			}
			free(err);
			fk_stacks_free(&s);
		}
	assert_int_equal(bad, 0);
}

/* ---- fk_load_stacktext: small files, odd splits ------------------------- */

static void test_small_and_empty_files(void **state)
{
	(void)state;
	/* Below the threshold the thread count changes nothing. */
	const char *path = path_of("small.txt");
	const char text[] = "a;b 1\n# c\nbad\na;b 2.5\n\na 1 2\n";
	write_file(path, text, sizeof text - 1);
	char want_err[1024];
	snprintf(want_err, sizeof want_err, "%s:3: no value at the end of the line\n", path);
	const char *threads[] = { "1", "16" };
	for (size_t i = 0; i < 2; i++) {
		struct fk_stacks s = { 0 };
		struct fk_diag d;
		diag(&d);
		char *err;
		assert_int_equal(load(path, threads[i], &s, NULL, &d, &err), FK_INPUT_OK);
		assert_string_equal(err, want_err);
		assert_int_equal(d.bad_lines, 1);
		assert_int_equal(s.lines, 3);
		assert_int_equal(fk_stacks_count(&s), 2);
		assert_num(s.sums[find(&s, "a;b")].value, "3.5");
		assert_num(s.sums[find(&s, "a")].before, "1");
		assert_num(s.total, "5.5");
		free(err);
		fk_stacks_free(&s);
	}
	/* Empty: nothing, no error. */
	const char *empty = path_of("empty.txt");
	write_file(empty, "", 0);
	struct fk_stacks s = { 0 };
	struct fk_diag d;
	diag(&d);
	char *err;
	assert_int_equal(load(empty, "16", &s, NULL, &d, &err), FK_INPUT_OK);
	assert_string_equal(err, "");
	assert_int_equal(fk_stacks_count(&s), 0);
	assert_int_equal(s.lines, 0);
	free(err);
	/* The empty stack alone: its text, read again to be split, is empty
	 * (a fuzzer's case: never a null text, for clang's UBSan). */
	const char *only_empty = path_of("only-empty.txt");
	write_file(only_empty, " 10\nm\n", 6);
	assert_int_equal(load(only_empty, "1", &s, NULL, &d, &err), FK_INPUT_OK);
	assert_int_equal(fk_stacks_count(&s), 1);
	assert_num(s.sums[find(&s, "")].value, "10");
	free(err);
	fk_stacks_free(&s);
	s = (struct fk_stacks){ 0 };
	/* Missing: an error that names the file. */
	const char *missing = path_of("missing.txt");
	assert_int_equal(load(missing, "16", &s, NULL, &d, &err), FK_INPUT_ERROR);
	char want[1024];
	snprintf(want, sizeof want, "test_load: %s: No such file or directory\n", missing);
	assert_string_equal(err, want);
	free(err);
	fk_stacks_free(&s);
}

static void test_empty_shares(void **state)
{
	(void)state;
	/* One line longer than every share: most workers get nothing, and the
	 * lines after it keep their numbers. */
	const char *path = path_of("one-long-line.txt");
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs("a 1\n#", f);
	size_t n = (size_t)33 << 20;
	char *x = malloc(n);
	assert_non_null(x);
	memset(x, 'x', n);
	assert_int_equal(fwrite(x, 1, n, f), n);
	free(x);
	fputs("\nbad\nb 2\nbad again\nc 3", f);
	assert_int_equal(fclose(f), 0);
	char want_err[1024];
	snprintf(want_err, sizeof want_err,
		 "%s:3: no value at the end of the line\n%s:5: no value at the end of the line\n",
		 path, path);
	const char *threads[] = { "1", "2", "3", "16" };
	for (size_t i = 0; i < 4; i++) {
		struct fk_stacks s = { 0 };
		struct fk_diag d;
		diag(&d);
		char *err;
		assert_int_equal(load(path, threads[i], &s, NULL, &d, &err), FK_INPUT_OK);
		assert_same_text(threads[i], want_err, err);
		assert_int_equal(d.bad_lines, 2);
		assert_int_equal(s.lines, 3);
		assert_int_equal(fk_stacks_count(&s), 3);
		assert_num(s.total, "6");
		free(err);
		fk_stacks_free(&s);
	}
	unlink(path);
}

/* The readers keep a new stack by where its line lies; its text is read
 * again when it is split, with the texts close behind it. Texts close
 * together, far apart (gaps over 16 KiB), one longer than a read (3 MiB),
 * in both readers' pieces: each comes back whole, with its sums. */
static void test_split_texts_read_again(void **state)
{
	(void)state;
	/* N: the half first seen in the second piece are split on two threads
	 * (the first piece's reader splits its own). */
	enum { N = 20000, BLOCKS = 40, FILLER = 47000 };
	const char *path = path_of("read-again.txt");
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	size_t big_len = (size_t)3 << 20;
	char *long_text = malloc(big_len + 1);
	assert_non_null(long_text);
	for (size_t i = 0; i < big_len; i++)
		long_text[i] = i % 16 == 15 ? ';' : (char)('a' + i % 13);
	long_text[big_len] = '\0';
	fprintf(f, "%s 7\n", long_text);
	static unsigned sums[N];
	char gap[20 << 10];
	memset(gap, '#', sizeof gap - 1);
	gap[sizeof gap - 1] = '\0';
	for (unsigned i = 0; i < N; i++) {
		fprintf(f, "root;mid%u;leaf%u 1\n", i % 17, i);
		sums[i] += 1;
		if (i % 7 == 0) { /* an earlier stack again */
			fprintf(f, "root;mid%u;leaf%u 2\n", (i / 2) % 17, i / 2);
			sums[i / 2] += 2;
		}
		if (i % 100 == 0)
			fprintf(f, "%s\n", gap);
		if (i % (N / BLOCKS) == N / BLOCKS - 1) { /* spreads them over the file */
			for (unsigned k = 0; k < FILLER; k++)
				fputs("root;mid0;leaf0 1\n", f);
			sums[0] += FILLER;
		}
	}
	assert_int_equal(fclose(f), 0);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > (32 << 20)); /* read in pieces */
	const char *threads[] = { "1", "2", "3" };
	char *buf = NULL;
	size_t cap = 0;
	for (size_t t = 0; t < 3; t++) {
		struct fk_stacks s = { 0 };
		struct fk_diag d;
		diag(&d);
		assert_int_equal(load(path, threads[t], &s, NULL, &d, NULL), FK_INPUT_OK);
		assert_int_equal(fk_stacks_count(&s), N + 1);
		uint32_t id = find(&s, long_text);
		assert_int_equal(fk_stacks_text(&s, id, &buf, &cap), big_len);
		assert_memory_equal(buf, long_text, big_len);
		assert_num(s.sums[id].value, "7");
		for (unsigned i = 0; i < N; i++) {
			char text[64], want[32];
			int len = snprintf(text, sizeof text, "root;mid%u;leaf%u", i % 17, i);
			id = find(&s, text);
			assert_int_equal(fk_stacks_text(&s, id, &buf, &cap), (size_t)len);
			assert_memory_equal(buf, text, (size_t)len);
			snprintf(want, sizeof want, "%u", sums[i]);
			assert_num(s.sums[id].value, want);
		}
		fk_stacks_free(&s);
	}
	free(buf);
	free(long_text);
	unlink(path);
}

#ifdef FK_STACKLOAD_TAKE_MIN
/* ---- pieces taken from the first one's end (test_load_takes.c) --------- */

/* A file's pieces cut in two, as load_parallel cuts them, with what they
 * read into. */
struct two_pieces {
	struct fk_input in;
	struct fk_stacks into;
	struct fk_diag d;
	struct pieces p;
};

static void two_pieces(struct two_pieces *t, const char *path)
{
	t->into = (struct fk_stacks){ 0 };
	diag(&t->d);
	assert_true(fk_input_open(&t->in, path, &t->d));
	assert_non_null(t->in.map);
	struct pieces *p = &t->p;
	*p = (struct pieces){ .in = &t->in, .into = &t->into, .d = &t->d, .stop_from = SIZE_MAX,
			      .cap = 2 + MAX_TAKES };
	p->w = calloc(p->cap, sizeof *p->w);
	assert_non_null(p->w);
	assert_int_equal(pthread_mutex_init(&p->lock, NULL), 0);
	size_t mid = piece_start(&t->in, 1, 2);
	start_piece(p, &p->w[0], 0, mid);
	start_piece(p, &p->w[1], mid, t->in.map_len - mid);
	p->count = 2;
	p->first_end = mid;
}

static void free_pieces(struct two_pieces *t)
{
	pthread_mutex_destroy(&t->p.lock);
	free(t->p.w);
	fk_input_close(&t->in);
}

/* While its reader reads on a block at a time, the first piece gives the
 * second half of what it has left, from a line's start, until that is
 * under two TAKE_MIN; its reader then reads to the cut and no further. */
static void test_take_from_first(void **state)
{
	(void)state;
	const char *path = path_of("takes.txt");
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	for (unsigned i = 0; i < 20000; i++) /* lines of 14 to 70 bytes */
		fprintf(f, "root;f%u;%.*s %u\n", i % 97, (int)(i % 50),
			"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", i + 1);
	assert_int_equal(fclose(f), 0);
	struct two_pieces t;
	two_pieces(&t, path);
	struct pieces *p = &t.p;
	assert_true(p->w[0].ctx.eager);
	assert_ptr_equal(p->w[0].ctx.stacks, &t.into);
	const size_t block = 4096;
	size_t end = p->first_end, pos = 0;
	unsigned takes = 0;
	for (;;) {
		assert_int_equal(claim_first(&p->w[0], pos, block), block);
		pos += block;
		struct worker *w = take_from_first(p);
		if (!w)
			break;
		takes++;
		assert_ptr_equal(w, &p->w[p->count - 1]);
		assert_true(w->off >= pos + (end - pos) / 2 && w->off < end);
		assert_int_equal(t.in.map[w->off - 1], '\n');
		assert_int_equal(w->off + w->n, end);
		assert_int_equal(p->first_end, w->off);
		assert_false(w->ctx.eager);
		assert_ptr_equal(w->ctx.stacks, &w->own);
		assert_int_equal(w->ctx.piece, w->off);
		end = w->off;
	}
	assert_true(takes >= 3);
	assert_true(end - pos < 2 * TAKE_MIN);
	assert_int_equal(p->first_end, end);
	/* A read across the cut stops at it; from the cut on nothing is left. */
	assert_int_equal(claim_first(&p->w[0], end - 10, block), 10);
	assert_int_equal(claim_first(&p->w[0], end, block), 0);
	free_pieces(&t);
	unlink(path);
}

/* No line starts in the second half of what is left: nothing is taken. */
static void test_take_needs_a_line_start(void **state)
{
	(void)state;
	const char *path = path_of("take-long-line.txt");
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	size_t long_len = 64 * TAKE_MIN;
	for (int half = 0; half < 2; half++) {
		fputs("root;a 1\n", f);
		for (size_t i = 0; i < long_len; i++)
			fputc(i % 8 == 7 ? ';' : 'x', f);
		fputs(" 1\n", f);
	}
	assert_int_equal(fclose(f), 0);
	struct two_pieces t;
	two_pieces(&t, path);
	size_t end = t.p.first_end;
	assert_int_equal(claim_first(&t.p.w[0], 0, 64), 64);
	assert_null(take_from_first(&t.p));
	assert_int_equal(t.p.count, 2);
	assert_int_equal(t.p.first_end, end);
	free_pieces(&t);
	unlink(path);
}

/* The first piece's stacks all new and split as they are read, the second
 * one line again and again: its reader is done long before and takes most
 * of the first piece. The table is the one one reader makes: ids, frames,
 * sums, and a bad line in the part taken reported at its line. */
static void test_takes_give_one_readers_table(void **state)
{
	(void)state;
	const char *path = path_of("takes-one-table.txt");
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	size_t bytes = 0;
	unsigned i;
	for (i = 0; bytes < ((size_t)17 << 20); i++) {
		int n = i == 150000 ? fprintf(f, "no value here\n")
				    : fprintf(f, "main;run%u;work%u;leaf%u %u\n", i % 13, i % 1000, i,
					      i % 7 + 1);
		bytes += (size_t)n;
	}
	while (bytes < ((size_t)34 << 20)) {
		fputs("main;idle 1\n", f);
		bytes += 12;
	}
	assert_int_equal(fclose(f), 0);
	char *want = NULL, *want_ids = NULL, *want_err = NULL;
	const char *threads[] = { "1", "2", "3", "2", "2" };
	for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
		struct fk_stacks s = { 0 };
		struct fk_diag d;
		diag(&d);
		char *err;
		assert_int_equal(load(path, threads[t], &s, NULL, &d, &err), FK_INPUT_OK);
		assert_int_equal(fk_stacks_count(&s), i); /* every one but the bad line, and idle */
		assert_int_equal(d.bad_lines, 1);
		char *got = dump(&s), *got_ids = dump_ids(&s);
		if (!want) {
			want = got;
			want_ids = got_ids;
			want_err = err;
			assert_non_null(strstr(err, ":150001: "));
			fk_stacks_free(&s);
			continue;
		}
		char what[32];
		snprintf(what, sizeof what, "FLAMEKIT_THREADS=%s", threads[t]);
		assert_same_text(what, want, got);
		assert_same_text(what, want_ids, got_ids);
		assert_same_text(what, want_err, err);
		free(got);
		free(got_ids);
		free(err);
		fk_stacks_free(&s);
	}
	free(want);
	free(want_ids);
	free(want_err);
	unlink(path);
}
#endif

/* ---- fk_load_stacktext: into a table that holds stacks ------------------ */

static void test_into_keeps_previous(void **state)
{
	(void)state;
	const struct model *m = big_file();
	assert_true(m->rep_seen[0]);
	char stack[2048];
	int n = rep_stack(stack, sizeof stack, 0);
	/* A small earlier file: one stack the big file has, two it has not. */
	const char *prev = path_of("prev.txt");
	char text[4096];
	int len = snprintf(text, sizeof text, "%.*s 1000\nprev;only 5\n# c\nprev;diff 1 2.5\n", n,
			   stack);
	write_file(prev, text, (size_t)len);

	char *want = NULL, *want_ids = NULL;
	const char *threads[] = { "1", "2", "5" };
	for (size_t i = 0; i < 3; i++) {
		struct fk_stacks s = { 0 };
		struct fk_diag d;
		diag(&d);
		assert_int_equal(load(prev, "16", &s, NULL, &d, NULL), FK_INPUT_OK);
		assert_int_equal(s.lines, 3);
		assert_int_equal(load(m->path, threads[i], &s, NULL, &d, NULL), FK_INPUT_OK);
		assert_int_equal(d.bad_lines, m->nbad);
		assert_int_equal(fk_stacks_count(&s), m->count + 2);
		assert_int_equal(s.lines, m->stack_lines + 3);
		assert_milli(s.total, m->total + 1000000 + 5000 + 2500, "total");
		assert_milli(s.total_before, m->total_before + 1000000 + 5000 + 1000, "before");
		uint32_t id = find(&s, stack);
		assert_int_not_equal(id, FK_STRTAB_NONE);
		assert_milli(s.sums[id].value, m->rep_value[0] + 1000000, "stack 0");
		assert_milli(s.sums[id].before, m->rep_before[0] + 1000000, "stack 0 before");
		id = find(&s, "prev;only");
		assert_int_not_equal(id, FK_STRTAB_NONE);
		assert_num(s.sums[id].value, "5");
		id = find(&s, "prev;diff");
		assert_int_not_equal(id, FK_STRTAB_NONE);
		assert_num(s.sums[id].before, "1");
		assert_num(s.sums[id].value, "2.5");
		assert_true(s.sums[id].diff);
		char *got = dump(&s), *got_ids = dump_ids(&s);
		if (!want) {
			want = got;
			want_ids = got_ids;
		} else {
			assert_same_text(threads[i], want, got);
			assert_same_text(threads[i], want_ids, got_ids);
			free(got);
			free(got_ids);
		}
		fk_stacks_free(&s);
	}
	free(want);
	free(want_ids);
}

static void test_two_loads_add_up(void **state)
{
	(void)state;
	const struct model *m = big_file();
	struct fk_stacks once = { 0 }, twice = { 0 };
	struct fk_diag d;
	diag(&d);
	assert_int_equal(load(m->path, "2", &once, NULL, &d, NULL), FK_INPUT_OK);
	diag(&d);
	assert_int_equal(load(m->path, "3", &twice, NULL, &d, NULL), FK_INPUT_OK);
	assert_int_equal(load(m->path, "5", &twice, NULL, &d, NULL), FK_INPUT_OK);
	assert_int_equal(d.bad_lines, 2 * m->nbad);
	assert_int_equal(fk_stacks_count(&twice), fk_stacks_count(&once));
	assert_int_equal(twice.lines, 2 * once.lines);
	struct fk_num t = once.total;
	assert_true(fk_num_add(&t, once.total));
	assert_int_equal(fk_num_cmp(twice.total, t), 0);
	for (uint32_t id = 0; id < fk_stacks_count(&once); id++) {
		const struct fk_str *k = stack_text(&once, id);
		uint32_t id2 = stack_find(&twice, k->p, k->len);
		assert_int_not_equal(id2, FK_STRTAB_NONE);
		struct fk_num v = once.sums[id].value, b = once.sums[id].before;
		assert_true(fk_num_add(&v, v));
		assert_true(fk_num_add(&b, b));
		assert_int_equal(fk_num_cmp(twice.sums[id2].value, v), 0);
		assert_int_equal(fk_num_cmp(twice.sums[id2].before, b), 0);
		assert_int_equal(twice.sums[id2].diff, once.sums[id].diff);
	}
	fk_stacks_free(&once);
	fk_stacks_free(&twice);
}

/* ---- fk_stacks_add_batch ------------------------------------------------ */

struct line {
	char stack[64];
	struct fk_num before, value;
	int nvalues;
};

/* Lines over a few dozen stacks, some seen once, some differential. */
static struct line *make_lines(size_t n)
{
	struct line *l = calloc(n, sizeof *l);
	assert_non_null(l);
	rng = 7;
	for (size_t i = 0; i < n; i++) {
		if (rnd() % 5 == 0)
			snprintf(l[i].stack, sizeof l[i].stack, "once;%zu", i);
		else
			snprintf(l[i].stack, sizeof l[i].stack, "main;f%u;g%u", rnd() % 30, rnd() % 2);
		char v[32];
		gen_value(v, sizeof v);
		l[i].value = num(v);
		l[i].nvalues = rnd() % 4 == 0 ? 2 : 1;
		gen_value(v, sizeof v);
		l[i].before = l[i].nvalues == 2 ? num(v) : l[i].value;
	}
	return l;
}

static struct fk_stacks_pending pending(const struct line *l)
{
	size_t len = strlen(l->stack);
	return (struct fk_stacks_pending){ .stack = l->stack, .len = len,
					   .hash = fk_text_hash(l->stack, len),
					   .before = l->before, .value = l->value,
					   .nvalues = l->nvalues, .id = 12345 };
}

static void test_batch_matches_one_by_one(void **state)
{
	(void)state;
	enum { N = 600 };
	struct line *l = make_lines(N);
	struct fk_stacks one = { 0 }, batched = { 0 };
	uint32_t ids[N];
	for (size_t i = 0; i < N; i++)
		assert_int_equal(fk_stacks_add(&one, l[i].stack, strlen(l[i].stack), l[i].before,
					       l[i].value, l[i].nvalues, &ids[i]), FK_STACKS_OK);
	/* Batches of several sizes, new stacks repeated inside one batch. */
	static const size_t sizes[] = { 1, 16, 7, 64, 3, 0, 200 };
	struct fk_stacks_pending p[200];
	size_t at = 0;
	for (size_t k = 0; at < N; k++) {
		size_t n = sizes[k % (sizeof sizes / sizeof sizes[0])];
		if (n > N - at)
			n = N - at;
		for (size_t i = 0; i < n; i++) {
			p[i] = pending(&l[at + i]);
			fk_stackset_prefetch_slot(&batched.set, p[i].hash.hash);
		}
		size_t done = 99999;
		assert_int_equal(fk_stacks_add_batch(&batched, p, n, false, &done), FK_STACKS_OK);
		assert_int_equal(done, n);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(p[i].id, ids[at + i]);
		at += n;
	}
	assert_int_equal(batched.lines, N);
	char *a = dump(&one), *b = dump(&batched);
	assert_same_text("batched", a, b);
	free(a);
	free(b);
	fk_stacks_free(&one);
	fk_stacks_free(&batched);
	free(l);
}

static void test_batch_stops_at_overflow(void **state)
{
	(void)state;
	struct line l[5] = {
		{ "a", num("5"), num("5"), 1 },
		{ "b", num("18446744073709551610"), num("18446744073709551610"), 1 },
		{ "c", num("1"), num("1"), 1 }, /* total passes 2^64 - 1 here */
		{ "a", num("0"), num("0"), 1 },
		{ "d", num("0"), num("0"), 1 },
	};
	struct fk_stacks s = { 0 };
	add_full(&s);
	struct fk_stacks_pending p[5];
	for (size_t i = 0; i < 5; i++)
		p[i] = pending(&l[i]);
	size_t done = 99999;
	assert_int_equal(fk_stacks_add_batch(&s, p, 5, false, &done), FK_STACKS_OVERFLOW);
	assert_int_equal(done, 2);
	assert_int_equal(p[0].id, find(&s, "a"));
	assert_int_equal(p[1].id, find(&s, "b"));
	assert_int_equal(fk_stacks_count(&s), 3); /* "full", "a", "b": "c" was refused whole */
	assert_int_equal(find(&s, "c"), FK_STRTAB_NONE);
	assert_int_equal(s.lines, 2);
	assert_num(s.total, "340282366920938463463374607431768211455"); /* 2^128 - 1 */
	assert_num(s.sums[p[0].id].value, "5");
	/* The rest can still be added once the bad one is left out. */
	assert_int_equal(fk_stacks_add_batch(&s, p + 3, 2, false, &done), FK_STACKS_OK);
	assert_int_equal(done, 2);
	assert_int_equal(p[3].id, p[0].id);
	assert_int_equal(s.lines, 4);
	assert_int_equal(fk_stacks_count(&s), 4); /* and "full" */

	fk_stacks_free(&s);

	/* Overflowing at the first line, through the before sum of a
	 * differential line. */
	struct fk_stacks t = { 0 };
	add_full(&t);
	struct line big_before = { "e", num(U64_MAX_TEXT), num("0"), 2 };
	p[0] = pending(&big_before);
	assert_int_equal(fk_stacks_add_batch(&t, p, 1, false, &done), FK_STACKS_OK);
	assert_int_equal(done, 1);
	assert_int_equal(fk_stacks_add_batch(&t, p, 1, false, &done), FK_STACKS_OVERFLOW);
	assert_int_equal(done, 0);
	assert_int_equal(t.lines, 1);
	assert_num(t.total_before, "340282366920938463463374607431768211455");
	assert_num(t.total, "340282366920938463444927863358058659840"); /* FULL: e's value is 0 */
	assert_num(t.sums[find(&t, "e")].before, U64_MAX_TEXT);
	assert_int_equal(fk_stacks_add_batch(&t, p, 0, false, &done), FK_STACKS_OK);
	assert_int_equal(done, 0);
	fk_stacks_free(&t);
}

/* ---- fk_stacks_merge ---------------------------------------------------- */

static void test_merge_sums(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 }, from = { 0 }, all = { 0 };
	add1(&s, "a", "1");
	add2(&s, "b", "1", "2");
	add1(&from, "b", "3");
	add1(&from, "c", "4.5");
	add2(&from, "d", "0.5", "0");
	/* The same lines in one table. */
	add1(&all, "a", "1");
	add2(&all, "b", "1", "2");
	add1(&all, "b", "3");
	add1(&all, "c", "4.5");
	add2(&all, "d", "0.5", "0");

	assert_int_equal(fk_stacks_merge(&s, &from), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&s), 4);
	assert_int_equal(s.lines, 5);
	uint32_t b = find(&s, "b"), d = find(&s, "d");
	assert_num(s.sums[b].value, "5");
	assert_num(s.sums[b].before, "4");
	assert_true(s.sums[b].diff);
	assert_num(s.sums[find(&s, "c")].value, "4.5");
	assert_false(s.sums[find(&s, "c")].diff);
	assert_num(s.sums[d].value, "0");
	assert_num(s.sums[d].before, "0.5");
	assert_num(s.total, "10.5");
	assert_num(s.total_before, "10");
	assert_true(s.any_diff);
	char *want = dump(&all), *got = dump(&s);
	assert_same_text("merged", want, got);
	free(want), free(got);
	/* from is emptied. */
	assert_int_equal(fk_stacks_count(&from), 0);
	assert_null(from.sums);
	assert_int_equal(from.lines, 0);
	/* and usable again. */
	add1(&from, "z", "1");
	assert_int_equal(fk_stacks_merge(&s, &from), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&s), 5);
	fk_stacks_free(&from);
	fk_stacks_free(&s);
	fk_stacks_free(&all);
}

/* What a stack's frame ids take in the sequences' arena: 4 bytes a frame,
 * rounded up to the arena's 8. */
static size_t sequence_bytes(const char *stack, size_t len)
{
	size_t frames = 1;
	for (size_t i = 0; i < len; i++)
		frames += stack[i] == ';';
	return (frames * 4 + 7) & ~(size_t)7;
}

/* The text of from's i-th stack in test_merge_adopts_strings. */
static size_t adopted_text(char *buf, size_t cap, unsigned i)
{
	size_t n = (size_t)snprintf(buf, cap, "from;%u;", i);
	for (; n < 300 && n + 1 < cap; n++)
		buf[n] = (char)('a' + (i + n) % 26);
	buf[n] = '\0';
	return n;
}

static void test_merge_adopts_strings(void **state)
{
	(void)state;
	enum { N = 5000 }; /* 1.5 MB of strings: several arena chunks */
	struct fk_stacks s = { 0 }, from = { 0 };
	char buf[512];
	add1(&s, "s;own", "1");
	size_t shared_len = adopted_text(buf, sizeof buf, 7);
	size_t shared_seq = sequence_bytes(buf, shared_len);
	add1(&s, buf, "1"); /* s already has this one */
	size_t before = s.set.seqs.bytes, names = s.set.frames.arena.bytes, copied = 0;
	for (unsigned i = 0; i < N; i++) {
		size_t n = adopted_text(buf, sizeof buf, i);
		add1(&from, buf, "2");
		copied += i == 7 ? 0 : sequence_bytes(buf, n);
	}
	/* A stack too big for a shared chunk gets a chunk of its own. */
	size_t huge_len = (size_t)400 << 10;
	char *huge = malloc(huge_len + 1);
	assert_non_null(huge);
	memset(huge, 'h', huge_len);
	huge[huge_len] = '\0';
	add1(&from, huge, "3");
	copied += sequence_bytes(huge, huge_len);
	(void)shared_len;
	/* from's sequences and names are taken over whole, none copied (the
	 * one stack s had too keeps s's). */
	assert_int_equal(from.set.seqs.bytes, copied + shared_seq);
	names += from.set.frames.arena.bytes;

	assert_int_equal(fk_stacks_merge(&s, &from), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&from), 0); /* from is freed */
	fk_stacks_free(&from);                       /* and may be freed again */
	assert_int_equal(s.set.seqs.bytes, before + copied + shared_seq);
	assert_int_equal(s.set.frames.arena.bytes, names);
	assert_int_equal(fk_stacks_count(&s), N + 2);
	/* More strings after the merge. */
	for (unsigned i = 0; i < 3000; i++) {
		snprintf(buf, sizeof buf, "after;%u;%0200u", i, i);
		add1(&s, buf, "1");
	}
	/* from's stacks are readable in s after from is gone (ASan would see a
	 * read of freed memory). */
	for (unsigned i = 0; i < N; i++) {
		size_t n = adopted_text(buf, sizeof buf, i);
		uint32_t id = stack_find(&s, buf, n);
		assert_int_not_equal(id, FK_STRTAB_NONE);
		assert_memory_equal(stack_text(&s, id)->p, buf, n + 1);
		assert_num(s.sums[id].value, i == 7 ? "3" : "2");
	}
	uint32_t id = stack_find(&s, huge, huge_len);
	assert_int_not_equal(id, FK_STRTAB_NONE);
	assert_memory_equal(stack_text(&s, id)->p, huge, huge_len + 1);
	for (unsigned i = 0; i < 3000; i += 299) {
		snprintf(buf, sizeof buf, "after;%u;%0200u", i, i);
		assert_int_not_equal(find(&s, buf), FK_STRTAB_NONE);
	}
	free(huge);
	fk_stacks_free(&s);
}

static void test_merge_empty_tables(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 }, from = { 0 }, copy = { 0 };
	add1(&from, "a;b", "2.25");
	add2(&from, "a", "1", "0");
	add1(&copy, "a;b", "2.25");
	add2(&copy, "a", "1", "0");
	/* Into an empty table: the same table. */
	assert_int_equal(fk_stacks_merge(&s, &from), FK_STACKS_OK);
	char *want = dump(&copy), *got = dump(&s);
	assert_same_text("into empty", want, got);
	free(got);
	/* An empty table merged in: nothing changes. */
	assert_int_equal(fk_stacks_merge(&s, &from), FK_STACKS_OK);
	got = dump(&s);
	assert_same_text("empty merged", want, got);
	free(got);
	free(want);
	/* Empty into empty. */
	struct fk_stacks e1 = { 0 }, e2 = { 0 };
	assert_int_equal(fk_stacks_merge(&e1, &e2), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&e1), 0);
	assert_int_equal(e1.lines, 0);
	add1(&e1, "x", "1"); /* still usable */
	assert_int_equal(fk_stacks_count(&e1), 1);
	fk_stacks_free(&e1);
	fk_stacks_free(&e2);
	fk_stacks_free(&from);
	fk_stacks_free(&copy);
	fk_stacks_free(&s);
}

static void test_merge_overflow(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 }, from = { 0 };
	add_full(&s);
	add1(&s, "a", U64_MAX_TEXT);
	add1(&from, "b", "1");
	assert_int_equal(fk_stacks_merge(&s, &from), FK_STACKS_OVERFLOW);
	assert_num(s.total, "340282366920938463463374607431768211455");
	assert_int_equal(find(&s, "b"), FK_STRTAB_NONE);
	assert_num(s.sums[find(&s, "a")].value, U64_MAX_TEXT);
	fk_stacks_free(&from);
	fk_stacks_free(&s);

	/* Part way through: what was merged stays readable, nothing wraps, and
	 * both tables can be freed (ASan: no leak, no double free). */
	struct fk_stacks t = { 0 }, f2 = { 0 };
	add_full(&t);
	add1(&t, "a", "18446744073709551610");
	add1(&f2, "c", "2");
	add1(&f2, "d;long enough not to be inlined anywhere", "10");
	add1(&f2, "e", "1");
	assert_int_equal(fk_stacks_merge(&t, &f2), FK_STACKS_OVERFLOW);
	assert_true(fk_num_cmp(t.total, full_plus("18446744073709551610")) >= 0);
	assert_int_equal(find(&t, "d;long enough not to be inlined anywhere"), FK_STRTAB_NONE);
	fk_stacks_free(&f2);
	uint32_t c = find(&t, "c");
	if (c != FK_STRTAB_NONE) {
		assert_memory_equal(stack_text(&t, c)->p, "c", 2);
		assert_num(t.sums[c].value, "2");
	}
	fk_stacks_free(&t);
}

/* ---- fk_arena_adopt ----------------------------------------------------- */

struct block {
	unsigned char *p;
	size_t n;
	unsigned char tag;
};

#define MAX_BLOCKS 10000

/* count allocations of n bytes (every 500th one bigsize instead), each
 * filled with its own byte. */
static void fill(struct fk_arena *a, struct block *b, size_t *nb, size_t count, size_t n,
		 size_t bigsize)
{
	for (size_t i = 0; i < count; i++) {
		assert_true(*nb < MAX_BLOCKS);
		size_t size = bigsize && i % 500 == 499 ? bigsize : n;
		struct block *x = &b[(*nb)++];
		x->p = fk_arena_alloc(a, size);
		assert_non_null(x->p);
		x->n = size;
		x->tag = (unsigned char)(*nb * 31 + 7);
		memset(x->p, x->tag, size);
	}
}

static void check_blocks(const struct block *b, size_t nb)
{
	for (size_t i = 0; i < nb; i++)
		for (size_t k = 0; k < b[i].n; k++)
			if (b[i].p[k] != b[i].tag) {
				print_error("block %zu (%zu bytes) overwritten at %zu\n", i, b[i].n, k);
				fail();
			}
}

static void test_arena_adopt(void **state)
{
	(void)state;
	struct block *b = calloc(MAX_BLOCKS, sizeof *b);
	assert_non_null(b);
	size_t nb = 0;
	struct fk_arena a = { 0 }, from = { 0 };
	fill(&a, b, &nb, 120, 1000, 0);
	fill(&a, b, &nb, 1, 300 << 10, 0); /* own chunk, at the head of a's list */
	fill(&a, b, &nb, 10, 24, 0);
	fill(&from, b, &nb, 3000, 1000, (size_t)300 << 10); /* chunks, and big ones */
	size_t bytes = a.bytes + from.bytes;
	char *cur = a.cur;
	size_t left = a.left;

	fk_arena_adopt(&a, &from);
	assert_null(from.chunks);
	assert_null(from.cur);
	assert_int_equal(from.left, 0);
	assert_int_equal(from.bytes, 0);
	assert_int_equal(a.bytes, bytes);
	/* a goes on allocating where it was. */
	assert_ptr_equal(a.cur, cur);
	assert_int_equal(a.left, left);
	check_blocks(b, nb);
	fill(&a, b, &nb, 2000, 1000, (size_t)1 << 20);
	check_blocks(b, nb);

	/* The emptied arena works on its own. */
	size_t mark = nb;
	fill(&from, b, &nb, 100, 1000, 0);
	check_blocks(b, nb);
	fk_arena_free(&from);
	nb = mark;

	/* Into an empty arena, an empty arena into a full one, and twice. */
	struct fk_arena e = { 0 }, f = { 0 }, g = { 0 }, none = { 0 };
	fill(&f, b, &nb, 1500, 1000, 0);
	fk_arena_adopt(&e, &f);
	fk_arena_adopt(&e, &none);
	assert_null(none.chunks);
	fill(&g, b, &nb, 40, 64, 0);
	fk_arena_adopt(&e, &g);
	fill(&e, b, &nb, 1500, 1000, 0);
	check_blocks(b, nb);
	fk_arena_adopt(&a, &e); /* a now holds every block */
	fk_arena_adopt(&a, &none);
	check_blocks(b, nb);
	fk_arena_free(&a); /* ASan: every chunk freed once */
	assert_null(a.chunks);
	assert_int_equal(a.bytes, 0);
	fk_arena_free(&e); /* empty after adoption */
	free(b);
}


/* ---- fk_stacks_merge of disjoint tables ----------------------------------- */

static void test_merge_disjoint(void **state)
{
	(void)state;
	struct fk_stacks s = { 0 }, from = { 0 }, all = { 0 };
	char buf[64];
	for (unsigned i = 0; i < 3000; i++) {
		snprintf(buf, sizeof buf, "%s;%u", i % 2 ? "odd" : "even", i);
		add1(i % 2 ? &from : &s, buf, "2");
		add1(&all, buf, "2");
	}
	size_t bytes = s.set.seqs.bytes + from.set.seqs.bytes;
	assert_int_equal(fk_stacks_merge(&s, &from), FK_STACKS_OK);
	assert_int_equal(fk_stacks_count(&from), 0);
	assert_int_equal(s.set.seqs.bytes, bytes); /* taken over, not copied */
	assert_int_equal(fk_stacks_count(&s), 3000);
	assert_int_equal(fk_num_cmp(s.total, all.total), 0);
	for (unsigned i = 0; i < 3000; i += 7) {
		snprintf(buf, sizeof buf, "%s;%u", i % 2 ? "odd" : "even", i);
		uint32_t id = find(&s, buf);
		assert_int_not_equal(id, FK_STRTAB_NONE);
		assert_num(s.sums[id].value, "2");
	}
	fk_stacks_free(&s);
	fk_stacks_free(&all);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads_same_table),
		cmocka_unit_test(test_streaming_same_table),
		cmocka_unit_test(test_bad_lines_shown_and_counted),
		cmocka_unit_test(test_strict_stops_at_first),
		cmocka_unit_test(test_overflow_within_share),
		cmocka_unit_test(test_overflow_across_shares),
		cmocka_unit_test(test_overflow_then_bad_line),
		cmocka_unit_test(test_overflow_before_later_bad_line),
		cmocka_unit_test(test_small_and_empty_files),
		cmocka_unit_test(test_empty_shares),
		cmocka_unit_test(test_split_texts_read_again),
#ifdef FK_STACKLOAD_TAKE_MIN
		cmocka_unit_test(test_take_from_first),
		cmocka_unit_test(test_take_needs_a_line_start),
		cmocka_unit_test(test_takes_give_one_readers_table),
#endif
		cmocka_unit_test(test_into_keeps_previous),
		cmocka_unit_test(test_two_loads_add_up),
		cmocka_unit_test(test_batch_matches_one_by_one),
		cmocka_unit_test(test_batch_stops_at_overflow),
		cmocka_unit_test(test_merge_sums),
		cmocka_unit_test(test_merge_adopts_strings),
		cmocka_unit_test(test_merge_disjoint),
		cmocka_unit_test(test_arena_adopt),
		cmocka_unit_test(test_merge_empty_tables),
		cmocka_unit_test(test_merge_overflow),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
