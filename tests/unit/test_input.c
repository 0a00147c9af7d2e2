/* test_input.c - formats/input.h: files, pipes and gzip streams as lines.
 *
 * Covers fk_input_lines over temporary files (plain via mmap, gzip written
 * with zlib, concatenated gzip members, truncated/corrupt gzip), standard
 * input from a pipe (the streaming path, plain and gzip), lines longer than
 * FK_INPUT_MAX_LINE (reported through diag and skipped, on the mapped and the
 * streaming paths, using sparse files so the test stays fast), errors
 * (missing file, directory), stopping from the callback, and the helpers
 * fk_input_buffer_lines, fk_input_pread_lines (lines across its reads and
 * longer than one, homes in the mapping, pieces, long lines, a file cut
 * short after it was opened), fk_input_pread_piece's hooks (lines held in
 * the buffer until they are let go, also after a stop; an end moved back), fk_input_open (mapping, peeking, kinds from files,
 * pipes and gzip streams), fk_detect and fk_input_display_name; and
 * formats/diag.h, through which bad lines are reported (shown, counted,
 * quiet, strict, deferred and replayed in order).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

#include "formats/input.h"


/* ---- helpers ------------------------------------------------------------ */



static void append_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/* Writes (mode "wb") or appends a new gzip member (mode "ab") with zlib. */
static void write_gz(const char *path, const char *mode, const void *data, size_t n)
{
	gzFile g = gzopen(path, mode);
	assert_non_null(g);
	if (n)
		assert_int_equal(gzwrite(g, data, (unsigned)n), (int)n);
	assert_int_equal(gzclose(g), Z_OK);
}

static unsigned char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	long len = ftell(f);
	assert_true(len >= 0);
	rewind(f);
	unsigned char *p = malloc((size_t)len + 1);
	assert_non_null(p);
	assert_int_equal(fread(p, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*n = (size_t)len;
	return p;
}

#define MAX_LINES 64

/* What the callback saw. Long lines are recorded by length only. */
struct collect {
	size_t count;
	char *text[MAX_LINES];
	size_t len[MAX_LINES];
	uint64_t lineno[MAX_LINES];
	size_t stop_after; /* return false on this line (1-based); 0: never */
};

static bool on_line(void *ctx, const char *line, size_t len, uint64_t lineno)
{
	struct collect *c = ctx;
	assert_true(c->count < MAX_LINES);
	size_t k = c->count++;
	c->len[k] = len;
	c->lineno[k] = lineno;
	if (len <= 4096) {
		c->text[k] = malloc(len + 1);
		assert_non_null(c->text[k]);
		memcpy(c->text[k], line, len);
		c->text[k][len] = '\0';
	}
	return c->stop_after == 0 || c->count < c->stop_after;
}

static void collect_free(struct collect *c)
{
	for (size_t i = 0; i < c->count; i++)
		free(c->text[i]);
	memset(c, 0, sizeof *c);
}

/* The lines seen must be exactly want[0..n), numbered 1..n. */
static void assert_lines(const struct collect *c, const char *const *want, size_t n)
{
	assert_int_equal(c->count, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(c->len[i], strlen(want[i]));
		assert_non_null(c->text[i]);
		assert_memory_equal(c->text[i], want[i], c->len[i]);
		assert_int_equal(c->lineno[i], i + 1);
	}
}

static void quiet_diag(struct fk_diag *d)
{
	fk_diag_init(d, "test_input");
	d->quiet = true;
}


/* fk_input_lines(path) with stderr captured; *err gets what was printed. */
static enum fk_input_result lines_capturing(const char *path, struct collect *c,
					    struct fk_diag *d, char **err)
{
	struct capture cap;
	capture_start(&cap);
	enum fk_input_result r = fk_input_lines(path, path, on_line, c, d);
	*err = capture_end(&cap);
	return r;
}

/* Standard input from a pipe: a child writes data[0..n) in pieces (split at
 * the given offsets, with pauses so the reader sees short reads). Returns
 * the child; *saved is the standard input to put back (stdin_restore). */
static pid_t stdin_from_child(const void *data, size_t n, const size_t *splits, size_t nsplits,
			      int *saved)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		size_t at = 0;
		for (size_t i = 0; i <= nsplits; i++) {
			size_t end = i < nsplits ? splits[i] : n;
			while (at < end) {
				ssize_t w = write(fds[1], (const char *)data + at, end - at);
				if (w <= 0)
					_exit(1);
				at += (size_t)w;
			}
			usleep(20000);
		}
		_exit(0);
	}
	close(fds[1]);
	*saved = dup(STDIN_FILENO);
	assert_true(*saved >= 0);
	assert_true(dup2(fds[0], STDIN_FILENO) >= 0);
	close(fds[0]);
	return pid;
}

static void stdin_restore(int saved, pid_t pid)
{
	assert_true(dup2(saved, STDIN_FILENO) >= 0); /* also closes the pipe */
	close(saved);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
}

/* fk_input_lines("-") over stdin_from_child. */
static enum fk_input_result lines_from_pipe(const void *data, size_t n, const size_t *splits,
					    size_t nsplits, struct collect *c, struct fk_diag *d)
{
	int saved;
	pid_t pid = stdin_from_child(data, n, splits, nsplits, &saved);
	enum fk_input_result r = fk_input_lines("-", "<stdin>", on_line, c, d);
	stdin_restore(saved, pid);
	return r;
}

/* A gzip image of data in memory (one member). */
static unsigned char *gz_bytes(const void *data, size_t n, size_t *out_n)
{
	const char *p = path_of("scratch.gz");
	write_gz(p, "wb", data, n);
	unsigned char *bytes = read_all(p, out_n);
	unlink(p);
	return bytes;
}

/* ---- fixtures ----------------------------------------------------------- */

static int setup(void **state)
{
	(void)state;
	return scratch_make("fk_test_input");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

/* ---- plain files -------------------------------------------------------- */

static void test_plain(void **state)
{
	(void)state;
	const char *p = path_of("plain.txt");
	write_file(p, "a;b 1\nc 2\n", 10);
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_OK);
	const char *want[] = { "a;b 1", "c 2" };
	assert_lines(&c, want, 2);
	assert_int_equal(d.bad_lines, 0);
	collect_free(&c);
}

/* Writes bytes to a temp file named name and reads it back into c. */
static void read_back(const char *name, const char *bytes, size_t n, struct collect *c)
{
	const char *p = path_of(name);
	write_file(p, bytes, n);
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(fk_input_lines(p, p, on_line, c, &d), FK_INPUT_OK);
}

static void test_no_trailing_newline(void **state)
{
	(void)state;
	struct collect c = { 0 };
	read_back("nonl.txt", "a 1\nb 2", 7, &c);
	const char *want[] = { "a 1", "b 2" };
	assert_lines(&c, want, 2);
	collect_free(&c);
}

static void test_empty_file(void **state)
{
	(void)state;
	struct collect c = { 0 };
	read_back("empty.txt", "", 0, &c);
	assert_int_equal(c.count, 0);
	collect_free(&c);
}

static void test_blank_lines_are_lines(void **state)
{
	(void)state;
	const char *p = path_of("blank.txt");
	write_file(p, "\na\n\n\nb\n", 7);
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_OK);
	const char *want[] = { "", "a", "", "", "b" };
	assert_lines(&c, want, 5);
	collect_free(&c);

	write_file(p, "\n", 1);
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_OK);
	const char *one[] = { "" };
	assert_lines(&c, one, 1);
	collect_free(&c);
}

static void test_crlf_kept(void **state)
{
	(void)state;
	/* The reader only splits on '\n': the '\r' is the parser's business. */
	struct collect c = { 0 };
	read_back("crlf.txt", "a 1\r\nb 2\r\n", 10, &c);
	const char *want[] = { "a 1\r", "b 2\r" };
	assert_lines(&c, want, 2);
	collect_free(&c);
}

static void test_nul_bytes_pass_through(void **state)
{
	(void)state;
	struct collect c = { 0 };
	read_back("nul.txt", "a\0b 1\nc 2\n", 10, &c);
	assert_int_equal(c.count, 2);
	assert_int_equal(c.len[0], 5);
	assert_memory_equal(c.text[0], "a\0b 1", 5);
	collect_free(&c);
}

/* ---- gzip --------------------------------------------------------------- */

static void test_gzip(void **state)
{
	(void)state;
	const char *p = path_of("one.gz");
	write_gz(p, "wb", "a;b 1\nc 2\nlast 3", 16);
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_OK);
	const char *want[] = { "a;b 1", "c 2", "last 3" };
	assert_lines(&c, want, 3);
	collect_free(&c);
}

static void test_gzip_empty(void **state)
{
	(void)state;
	const char *p = path_of("empty.gz");
	write_gz(p, "wb", "", 0);
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_OK);
	assert_int_equal(c.count, 0);
	collect_free(&c);
}

static void test_gzip_members(void **state)
{
	(void)state;
	/* Like `cat a.gz b.gz`: members follow one another; a line may even
	 * span two of them, and an empty member is nothing. */
	const char *p = path_of("members.gz");
	write_gz(p, "wb", "a 1\nb", 5);
	write_gz(p, "ab", "", 0);
	write_gz(p, "ab", " 2\nc 3\n", 7);
	write_gz(p, "ab", "d 4\n", 4);
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_OK);
	const char *want[] = { "a 1", "b 2", "c 3", "d 4" };
	assert_lines(&c, want, 4);
	collect_free(&c);
}

static void test_gzip_truncated(void **state)
{
	(void)state;
	static const char text[] = "first 1\nsecond 2\nthird 3\n";
	size_t n;
	unsigned char *gz = gz_bytes(text, sizeof text - 1, &n);
	assert_true(n > 20);
	const char *p = path_of("trunc.gz");
	/* Cut anywhere: in the header, the data, the CRC or the length. */
	size_t cuts[] = { 2, 5, 10, n / 2, n - 8, n - 4, n - 1 };
	for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
		write_file(p, gz, cuts[i]);
		struct collect c = { 0 };
		struct fk_diag d;
		quiet_diag(&d);
		char *err;
		assert_int_equal(lines_capturing(p, &c, &d, &err), FK_INPUT_ERROR);
		assert_non_null(strstr(err, "truncated"));
		free(err);
		collect_free(&c);
	}
	free(gz);
}

static void test_gzip_corrupt(void **state)
{
	(void)state;
	static const char text[] = "first 1\nsecond 2\n";
	size_t n;
	unsigned char *gz = gz_bytes(text, sizeof text - 1, &n);
	const char *p = path_of("corrupt.gz");
	gz[n - 8] ^= 0xff; /* the CRC32 in the trailer */
	write_file(p, gz, n);
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	char *err;
	assert_int_equal(lines_capturing(p, &c, &d, &err), FK_INPUT_ERROR);
	assert_non_null(strstr(err, "corrupt"));
	free(err);
	collect_free(&c);
	free(gz);
}

static void test_gzip_trailing_garbage(void **state)
{
	(void)state;
	static const char text[] = "a 1\n";
	size_t n;
	unsigned char *gz = gz_bytes(text, sizeof text - 1, &n);
	const char *p = path_of("garbage.gz");
	write_file(p, gz, n);
	append_file(p, "hello\n", 6);
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	char *err;
	assert_int_equal(lines_capturing(p, &c, &d, &err), FK_INPUT_ERROR);
	assert_non_null(strstr(err, "garbage"));
	free(err);
	collect_free(&c);
	free(gz);
}

/* ---- standard input (the streaming path) -------------------------------- */

static void test_stdin_pipe_plain(void **state)
{
	(void)state;
	static const char text[] = "a 1\nbb 2\r\n\nccc 3";
	size_t splits[] = { 1, 6, 9, 12 }; /* lines cut between reads */
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(lines_from_pipe(text, sizeof text - 1, splits, 4, &c, &d), FK_INPUT_OK);
	const char *want[] = { "a 1", "bb 2\r", "", "ccc 3" };
	assert_lines(&c, want, 4);
	collect_free(&c);
}

static void test_stdin_pipe_gzip(void **state)
{
	(void)state;
	static const char text[] = "a 1\nbb 2\nccc 3\n";
	size_t n;
	unsigned char *gz = gz_bytes(text, sizeof text - 1, &n);
	/* The first read gets one byte of the magic number only. */
	size_t splits[] = { 1, 2, n / 2 };
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(lines_from_pipe(gz, n, splits, 3, &c, &d), FK_INPUT_OK);
	const char *want[] = { "a 1", "bb 2", "ccc 3" };
	assert_lines(&c, want, 3);
	collect_free(&c);

	/* Truncated on a pipe: an error as well. */
	struct capture cap;
	capture_start(&cap);
	enum fk_input_result r = lines_from_pipe(gz, n - 3, splits, 3, &c, &d);
	char *err = capture_end(&cap);
	assert_int_equal(r, FK_INPUT_ERROR);
	assert_non_null(strstr(err, "truncated"));
	free(err);
	collect_free(&c);
	free(gz);
}

static void test_stdin_empty(void **state)
{
	(void)state;
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(lines_from_pipe("", 0, NULL, 0, &c, &d), FK_INPUT_OK);
	assert_int_equal(c.count, 0);
	/* One byte only: too short for the gzip magic, still a line. */
	assert_int_equal(lines_from_pipe("x", 1, NULL, 0, &c, &d), FK_INPUT_OK);
	const char *want[] = { "x" };
	assert_lines(&c, want, 1);
	collect_free(&c);
}

/* ---- over-long lines ---------------------------------------------------- */

/* A sparse file: "first 1\n", a hole of long_len bytes (NULs, no '\n'),
 * "\nmid 2\n", then (when tail_len) another hole of tail_len bytes without a
 * final '\n'. Holes cost no disk and read as zero pages. */
static void write_sparse(const char *p, size_t long_len, size_t tail_len)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "first 1\n", 8), 8);
	off_t at = 8 + (off_t)long_len;
	assert_int_equal(pwrite(fd, "\nmid 2\n", 7, at), 7);
	at += 7;
	if (tail_len)
		assert_int_equal(ftruncate(fd, at + (off_t)tail_len), 0);
	assert_int_equal(close(fd), 0);
}

static void check_long_lines(const char *p, bool with_tail)
{
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_OK);
	/* Line 2 (and line 4, the unterminated tail) are reported, not passed. */
	assert_int_equal(d.bad_lines, with_tail ? 2 : 1);
	assert_int_equal(c.count, 2);
	assert_string_equal(c.text[0], "first 1");
	assert_int_equal(c.lineno[0], 1);
	assert_string_equal(c.text[1], "mid 2");
	assert_int_equal(c.lineno[1], 3);
	collect_free(&c);
}

static void test_long_line_mapped(void **state)
{
	(void)state;
	const char *p = path_of("long.txt");
	write_sparse(p, FK_INPUT_MAX_LINE + 1, 0);
	check_long_lines(p, false);
	write_sparse(p, FK_INPUT_MAX_LINE + 1, FK_INPUT_MAX_LINE + 1);
	check_long_lines(p, true);
	unlink(p);
}

static void test_line_at_max_is_kept(void **state)
{
	(void)state;
	const char *p = path_of("max.txt");
	write_sparse(p, FK_INPUT_MAX_LINE, 0);
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_OK);
	assert_int_equal(d.bad_lines, 0);
	assert_int_equal(c.count, 3);
	assert_int_equal(c.len[1], FK_INPUT_MAX_LINE);
	assert_int_equal(c.lineno[2], 3);
	collect_free(&c);
	unlink(p);
}

/* The same layout through gzip: the streaming path skips the long lines
 * across its read chunks. */
static void write_long_gz(const char *p, size_t long_len, size_t tail_len)
{
	static char block[1 << 20];
	memset(block, 'x', sizeof block);
	gzFile g = gzopen(p, "wb1");
	assert_non_null(g);
	assert_int_equal(gzwrite(g, "first 1\n", 8), 8);
	for (size_t left = long_len; left > 0;) {
		unsigned k = left < sizeof block ? (unsigned)left : (unsigned)sizeof block;
		assert_int_equal(gzwrite(g, block, k), (int)k);
		left -= k;
	}
	assert_int_equal(gzwrite(g, "\nmid 2\n", 7), 7);
	for (size_t left = tail_len; left > 0;) {
		unsigned k = left < sizeof block ? (unsigned)left : (unsigned)sizeof block;
		assert_int_equal(gzwrite(g, block, k), (int)k);
		left -= k;
	}
	assert_int_equal(gzclose(g), Z_OK);
}

static void test_long_line_gzip(void **state)
{
	(void)state;
	const char *p = path_of("long.gz");
	/* The first long line goes on for megabytes after the limit is passed,
	 * so whole read chunks must be skipped before its '\n'. */
	write_long_gz(p, FK_INPUT_MAX_LINE + (3 << 20), FK_INPUT_MAX_LINE + 1);
	check_long_lines(p, true);

	/* Exactly FK_INPUT_MAX_LINE bytes is still a line on this path too. */
	write_long_gz(p, FK_INPUT_MAX_LINE, 0);
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_OK);
	assert_int_equal(d.bad_lines, 0);
	assert_int_equal(c.count, 3);
	assert_int_equal(c.len[1], FK_INPUT_MAX_LINE);
	assert_string_equal(c.text[2], "mid 2");
	collect_free(&c);
	unlink(p);
}

static void test_long_line_strict_stops(void **state)
{
	(void)state;
	const char *p = path_of("strict.txt");
	write_sparse(p, FK_INPUT_MAX_LINE + 1, 0);
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	d.strict = true;
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_STOPPED);
	assert_int_equal(d.bad_lines, 1);
	assert_int_equal(c.count, 1); /* nothing after the bad line */
	collect_free(&c);
	unlink(p);
}

/* ---- errors and stopping ------------------------------------------------ */

static void test_missing_file(void **state)
{
	(void)state;
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	char *err;
	assert_int_equal(lines_capturing(path_of("does-not-exist.txt"), &c, &d, &err),
			 FK_INPUT_ERROR);
	assert_non_null(strstr(err, "does-not-exist.txt"));
	assert_non_null(strstr(err, strerror(ENOENT)));
	assert_int_equal(c.count, 0);
	free(err);
}

static void test_directory(void **state)
{
	(void)state;
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	char *err;
	assert_int_equal(lines_capturing(tmpdir, &c, &d, &err), FK_INPUT_ERROR);
	assert_non_null(strstr(err, "directory"));
	assert_int_equal(c.count, 0);
	free(err);
}

static void test_callback_stops(void **state)
{
	(void)state;
	static const char text[] = "a 1\nb 2\nc 3\nd 4\n";
	const char *p = path_of("stop.txt");
	const char *g = path_of("stop.gz");
	write_file(p, text, sizeof text - 1);
	write_gz(g, "wb", text, sizeof text - 1);
	const char *want[] = { "a 1", "b 2" };
	struct fk_diag d;
	quiet_diag(&d);

	struct collect c = { .stop_after = 2 };
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_STOPPED);
	assert_lines(&c, want, 2);
	collect_free(&c);

	c.stop_after = 2;
	assert_int_equal(fk_input_lines(g, g, on_line, &c, &d), FK_INPUT_STOPPED);
	assert_lines(&c, want, 2);
	collect_free(&c);

	c.stop_after = 2;
	assert_int_equal(lines_from_pipe(text, sizeof text - 1, NULL, 0, &c, &d), FK_INPUT_STOPPED);
	assert_lines(&c, want, 2);
	collect_free(&c);

	/* Stopping on a last line that has no '\n' is still a stop. */
	c.stop_after = 2;
	assert_int_equal(lines_from_pipe("a 1\nb 2", 7, NULL, 0, &c, &d), FK_INPUT_STOPPED);
	assert_lines(&c, want, 2);
	collect_free(&c);
	c.stop_after = 2;
	write_file(p, "a 1\nb 2", 7);
	assert_int_equal(fk_input_lines(p, p, on_line, &c, &d), FK_INPUT_STOPPED);
	assert_lines(&c, want, 2);
	collect_free(&c);
}

/* ---- helpers of the API ------------------------------------------------- */

static void test_buffer_lines(void **state)
{
	(void)state;
	struct collect c = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	uint64_t lines = 99;
	assert_int_equal(fk_input_buffer_lines("x 1\ny 2\nz", 9, "buf", 10, on_line, &c, &d, &lines),
			 FK_INPUT_OK);
	assert_int_equal(lines, 3);
	assert_int_equal(c.count, 3);
	assert_int_equal(c.lineno[0], 11); /* numbered from first_line + 1 */
	assert_int_equal(c.lineno[2], 13);
	assert_string_equal(c.text[2], "z");
	collect_free(&c);

	assert_int_equal(fk_input_buffer_lines("", 0, "buf", 0, on_line, &c, &d, &lines), FK_INPUT_OK);
	assert_int_equal(lines, 0);
	assert_int_equal(c.count, 0);

	c.stop_after = 1;
	assert_int_equal(fk_input_buffer_lines("x\ny\n", 4, "buf", 0, on_line, &c, &d, &lines),
			 FK_INPUT_STOPPED);
	assert_int_equal(c.count, 1);
	assert_int_equal(lines, 1);
	collect_free(&c);
}

/* ---- fk_input_pread_lines: a mapped file's lines read into a buffer ---- */

/* What the callback saw, with each line's home as an offset in the mapping
 * (checked to hold the same bytes as the line). */
struct home_collect {
	struct collect c;
	const char *map;
	size_t home[MAX_LINES];
};

static bool on_home_line(void *ctx, const char *line, size_t len, const char *home,
			 uint64_t lineno)
{
	struct home_collect *h = ctx;
	assert_true(h->c.count < MAX_LINES);
	h->home[h->c.count] = (size_t)(home - h->map);
	if (len > 0 && len <= ((size_t)1 << 20))
		assert_memory_equal(home, line, len);
	return on_line(&h->c, line, len, lineno);
}

/* fk_input_pread_lines over bytes [off, off + n) of path ((size_t)-1: to
 * the end), with stderr captured into *err when err is given. */
static enum fk_input_result pread_lines(const char *path, size_t off, size_t n,
					uint64_t first_line, struct home_collect *h,
					struct fk_diag *d, uint64_t *lines, char **err)
{
	struct fk_input in;
	assert_true(fk_input_open(&in, path, d));
	assert_non_null(in.map);
	h->map = in.map;
	if (n == (size_t)-1)
		n = in.map_len - off;
	struct capture cap;
	if (err)
		capture_start(&cap);
	enum fk_input_result r =
		fk_input_pread_lines(&in, off, n, path, first_line, on_home_line, h, d, lines);
	if (err)
		*err = capture_end(&cap);
	fk_input_close(&in);
	return r;
}

/* Lines across the 256 KiB reads, longer than one read, and a last line
 * without its '\n': each is passed whole, with its home and number. */
static void test_pread_lines_across_reads(void **state)
{
	(void)state;
	const size_t lens[] = { 3, 300000, 262144 - 300004 % 262144 - 1, 0, 700000, 5, 9 };
	const size_t nlines = sizeof lens / sizeof lens[0];
	size_t total = 0;
	for (size_t i = 0; i < nlines; i++)
		total += lens[i] + 1;
	char *text = malloc(total);
	assert_non_null(text);
	size_t at = 0, starts[8];
	for (size_t i = 0; i < nlines; i++) {
		starts[i] = at;
		for (size_t k = 0; k < lens[i]; k++)
			text[at++] = (char)('a' + (i + k) % 26);
		text[at++] = '\n';
	}
	const char *p = path_of("pread.txt");
	write_file(p, text, total - 1); /* the last line has no '\n' */
	struct home_collect h = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	uint64_t lines = 0;
	assert_int_equal(pread_lines(p, 0, (size_t)-1, 0, &h, &d, &lines, NULL), FK_INPUT_OK);
	assert_int_equal(lines, nlines);
	assert_int_equal(h.c.count, nlines);
	for (size_t i = 0; i < nlines; i++) {
		assert_int_equal(h.c.len[i], lens[i]);
		assert_int_equal(h.c.lineno[i], i + 1);
		assert_int_equal(h.home[i], starts[i]);
		if (lens[i] <= 4096)
			assert_memory_equal(h.c.text[i], text + starts[i], lens[i]);
	}
	assert_int_equal(d.bad_lines, 0);
	collect_free(&h.c);

	/* A piece: lines 2 and 3 only, numbered from first_line + 1. */
	memset(&h, 0, sizeof h);
	assert_int_equal(pread_lines(p, starts[1], starts[3] - starts[1], 10, &h, &d, &lines, NULL),
			 FK_INPUT_OK);
	assert_int_equal(lines, 2);
	assert_int_equal(h.c.count, 2);
	assert_int_equal(h.c.lineno[0], 11);
	assert_int_equal(h.c.lineno[1], 12);
	assert_int_equal(h.home[1], starts[2]);
	assert_int_equal(h.c.len[1], lens[2]);
	collect_free(&h.c);

	/* Stopped by the callback. */
	memset(&h, 0, sizeof h);
	h.c.stop_after = 2;
	assert_int_equal(pread_lines(p, 0, (size_t)-1, 0, &h, &d, &lines, NULL), FK_INPUT_STOPPED);
	assert_int_equal(h.c.count, 2);
	assert_int_equal(lines, 2);
	collect_free(&h.c);
	free(text);
	unlink(p);
}

/* Lines longer than FK_INPUT_MAX_LINE are reported and skipped, inside the
 * file and as its last line; one of exactly that length is kept. */
static void test_pread_lines_long(void **state)
{
	(void)state;
	const char *p = path_of("pread_long.txt");
	for (int tail = 0; tail < 2; tail++) {
		write_sparse(p, FK_INPUT_MAX_LINE + 1, tail ? FK_INPUT_MAX_LINE + 1 : 0);
		struct home_collect h = { 0 };
		struct fk_diag d;
		quiet_diag(&d);
		uint64_t lines = 0;
		assert_int_equal(pread_lines(p, 0, (size_t)-1, 0, &h, &d, &lines, NULL), FK_INPUT_OK);
		assert_int_equal(d.bad_lines, tail ? 2 : 1);
		assert_int_equal(h.c.count, 2);
		assert_string_equal(h.c.text[0], "first 1");
		assert_string_equal(h.c.text[1], "mid 2");
		assert_int_equal(h.c.lineno[1], 3);
		assert_int_equal(h.home[1], 8 + FK_INPUT_MAX_LINE + 2);
		assert_int_equal(lines, tail ? 4 : 3);
		collect_free(&h.c);
	}
	write_sparse(p, FK_INPUT_MAX_LINE, FK_INPUT_MAX_LINE);
	struct home_collect h = { 0 };
	struct fk_diag d;
	quiet_diag(&d);
	uint64_t lines = 0;
	assert_int_equal(pread_lines(p, 0, (size_t)-1, 0, &h, &d, &lines, NULL), FK_INPUT_OK);
	assert_int_equal(d.bad_lines, 0);
	assert_int_equal(h.c.count, 4);
	assert_int_equal(h.c.len[1], FK_INPUT_MAX_LINE);
	assert_int_equal(h.c.len[3], FK_INPUT_MAX_LINE);
	collect_free(&h.c);

	/* One bad line however many reads it fills. */
	write_sparse(p, 2 * FK_INPUT_MAX_LINE + 3, 0);
	memset(&h, 0, sizeof h);
	quiet_diag(&d);
	assert_int_equal(pread_lines(p, 0, (size_t)-1, 0, &h, &d, &lines, NULL), FK_INPUT_OK);
	assert_int_equal(d.bad_lines, 1);
	assert_int_equal(h.c.count, 2);
	assert_int_equal(h.c.lineno[1], 3);
	collect_free(&h.c);

	/* Strict: nothing after the first one. */
	write_sparse(p, FK_INPUT_MAX_LINE + 1, 0);
	memset(&h, 0, sizeof h);
	quiet_diag(&d);
	d.strict = true;
	assert_int_equal(pread_lines(p, 0, (size_t)-1, 0, &h, &d, &lines, NULL), FK_INPUT_STOPPED);
	assert_int_equal(d.bad_lines, 1);
	assert_int_equal(h.c.count, 1);
	collect_free(&h.c);
	unlink(p);
}

/* A file cut short after it was opened (and mapped) is an error that
 * names it, not a crash: the mapping is never read past the new end. */
/* ---- fk_input_pread_piece: its hooks ----------------------------------- */

/* Lines held by their place in the read buffer until lines_read: each is
 * checked to hold its bytes still then. The piece's end is moved back to
 * limit (a line's start) once a read has passed stop_moving; the line
 * function stops at stop_at (0: never). */
#define HELD_MAX 32768 /* lines of a 256 KiB read, 9 bytes or more each */
struct held_lines {
	const char *text;        /* the file's bytes, to check held lines by */
	const char *map;
	const char *line[HELD_MAX];
	size_t len[HELD_MAX], home[HELD_MAX];
	size_t nheld, passed, let_go_calls, claims;
	size_t limit, stop_moving, end_seen;
	uint64_t stop_at;
};

static bool hold_line(void *ctx, const char *line, size_t len, const char *home, uint64_t lineno)
{
	struct held_lines *h = ctx;
	assert_true(h->nheld < HELD_MAX);
	h->line[h->nheld] = line;
	h->len[h->nheld] = len;
	h->home[h->nheld++] = (size_t)(home - h->map);
	h->passed++;
	return lineno != h->stop_at;
}

static bool let_go(void *ctx)
{
	struct held_lines *h = ctx;
	for (size_t i = 0; i < h->nheld; i++)
		assert_memory_equal(h->line[i], h->text + h->home[i], h->len[i]);
	h->nheld = 0;
	h->let_go_calls++;
	return true;
}

static size_t claim_until(void *ctx, size_t pos, size_t want)
{
	struct held_lines *h = ctx;
	h->claims++;
	size_t end = pos >= h->stop_moving ? h->limit : SIZE_MAX;
	if (pos > h->end_seen)
		h->end_seen = pos;
	return pos >= end ? 0 : want < end - pos ? want : end - pos;
}

static void test_pread_piece_hooks(void **state)
{
	(void)state;
	enum { LINES = 30000 };
	static size_t starts[LINES + 1];
	static struct held_lines h;
	size_t cap = (size_t)LINES * 80, total = 0;
	char *text = malloc(cap);
	assert_non_null(text);
	for (unsigned i = 0; i < LINES; i++) {
		starts[i] = total;
		total += (size_t)snprintf(text + total, cap - total, "root;f%u;%.*s %u\n", i % 97,
					  (int)(i % 40), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", i);
	}
	starts[LINES] = total;
	const char *p = path_of("hooks.txt");
	write_file(p, text, total);
	struct fk_input in;
	struct fk_diag d;
	quiet_diag(&d);
	assert_true(fk_input_open(&in, p, &d));
	for (int stop = 0; stop < 2; stop++) {
		memset(&h, 0, sizeof h);
		h.text = text;
		h.map = in.map;
		h.limit = starts[20000];
		h.stop_moving = (size_t)300 << 10;
		h.stop_at = stop ? 12345 : 0;
		const struct fk_piece_reader r = { .line = hold_line, .lines_read = let_go,
						   .claim = claim_until, .ctx = &h };
		uint64_t lines;
		enum fk_input_result res = fk_input_pread_piece(&in, 0, total, p, 0, &r, &d, &lines);
		/* Every line before the moved end, whole, then no further; or
		 * up to the line that stopped it. */
		assert_int_equal(res, stop ? FK_INPUT_STOPPED : FK_INPUT_OK);
		assert_int_equal(lines, stop ? 12345 : 20000);
		assert_int_equal(h.passed, lines);
		assert_int_equal(h.nheld, 0); /* all let go, also after the stop */
		assert_true(h.let_go_calls >= starts[lines] / (256 << 10));
		if (!stop)
			assert_int_equal(h.end_seen, starts[20000]);
	}
	fk_input_close(&in);
	free(text);
}

static void test_pread_lines_file_shrank(void **state)
{
	(void)state;
	const char *p = path_of("shrinks.txt");
	write_file(p, "a 1\nb 2\nc 3\n", 12);
	struct fk_input in;
	struct fk_diag d;
	quiet_diag(&d);
	assert_true(fk_input_open(&in, p, &d));
	assert_int_equal(truncate(p, 6), 0);
	struct home_collect h = { .map = in.map };
	uint64_t lines = 0;
	struct capture cap;
	capture_start(&cap);
	enum fk_input_result r =
		fk_input_pread_lines(&in, 0, in.map_len, p, 0, on_home_line, &h, &d, &lines);
	char *err = capture_end(&cap);
	assert_int_equal(r, FK_INPUT_ERROR);
	assert_non_null(strstr(err, "shrinks.txt: file shrank while read"));
	assert_int_equal(h.c.count, 1); /* "a 1"; "b " has lost its end */
	char buf[4];
	assert_int_equal(fk_input_pread(&in, buf, sizeof buf, 4), 2);
	assert_int_equal(fk_input_pread(&in, buf, sizeof buf, 12), 0);
	free(err);
	collect_free(&h.c);
	fk_input_close(&in);
	unlink(p);
}

/* A plain file is mapped and peeked in place; a gzip file is not mapped,
 * its peek is the inflated text; errors are reported at open. */
static void test_open(void **state)
{
	(void)state;
	struct fk_diag d;
	fk_diag_init(&d, "test");
	d.quiet = true;
	struct fk_input in;
	const char *p = path_of("map.txt");
	write_file(p, "a 1\nb 2\n", 8);
	assert_true(fk_input_open(&in, p, &d));
	assert_int_equal(in.map_len, 8);
	assert_memory_equal(in.map, "a 1\nb 2\n", 8);
	assert_ptr_equal(in.peek, in.map);
	assert_false(in.gzip);
	assert_int_equal(in.kind, FK_KIND_STACKS);
	struct collect c = { 0 };
	assert_int_equal(fk_input_read_lines(&in, on_line, &c, &d), FK_INPUT_OK);
	assert_int_equal(c.count, 2);
	collect_free(&c);
	fk_input_close(&in);
	assert_null(in.map);

	const char *g = path_of("map.gz");
	write_gz(g, "wb", "a 1\n", 4);
	assert_true(fk_input_open(&in, g, &d));
	assert_null(in.map);
	assert_true(in.gzip);
	assert_int_equal(in.peek_len, 4);
	assert_memory_equal(in.peek, "a 1\n", 4);
	memset(&c, 0, sizeof c);
	assert_int_equal(fk_input_read_lines(&in, on_line, &c, &d), FK_INPUT_OK);
	assert_int_equal(c.count, 1); /* the peeked line is read once */
	collect_free(&c);
	fk_input_close(&in);

	const char *e = path_of("map-empty.txt");
	write_file(e, "", 0);
	assert_true(fk_input_open(&in, e, &d));
	assert_int_equal(in.peek_len, 0);
	assert_int_equal(in.kind, FK_KIND_STACKS);
	fk_input_close(&in);
	assert_false(fk_input_open(&in, path_of("no-such-file"), &d));
	assert_false(fk_input_open(&in, tmpdir, &d));
}

/* A caller's buffer: read as a stream (never mapped, so never released),
 * gzip inflated, the kind sniffed, every byte read once. */
static void test_open_memory(void **state)
{
	(void)state;
	struct fk_diag d;
	fk_diag_init(&d, "test");
	struct fk_input in;
	static const char perf[] = "prog 1 1.0: 1 cycles:\n\t401000 main (/bin/prog)\n\n";
	assert_true(fk_input_open_memory(&in, "buf", perf, sizeof perf - 1, &d));
	assert_null(in.map);
	assert_false(in.gzip);
	assert_int_equal(in.kind, FK_KIND_PERF);
	struct collect c = { 0 };
	assert_int_equal(fk_input_read_lines(&in, on_line, &c, &d), FK_INPUT_OK);
	assert_int_equal(c.count, 3);
	collect_free(&c);
	fk_input_close(&in);

	const char *g = path_of("mem.gz");
	write_gz(g, "wb", "a;b 1\nc 2\n", 10);
	FILE *f = fopen(g, "rb");
	assert_non_null(f);
	char gz[256];
	size_t n = fread(gz, 1, sizeof gz, f);
	fclose(f);
	assert_true(fk_input_open_memory(&in, "buf.gz", gz, n, &d));
	assert_true(in.gzip);
	assert_int_equal(in.kind, FK_KIND_STACKS);
	memset(&c, 0, sizeof c);
	assert_int_equal(fk_input_read_lines(&in, on_line, &c, &d), FK_INPUT_OK);
	assert_int_equal(c.count, 2);
	collect_free(&c);
	fk_input_close(&in);

	assert_true(fk_input_open_memory(&in, "empty", "", 0, &d));
	assert_int_equal(in.peek_len, 0);
	memset(&c, 0, sizeof c);
	assert_int_equal(fk_input_read_lines(&in, on_line, &c, &d), FK_INPUT_OK);
	assert_int_equal(c.count, 0);
	fk_input_close(&in);
}

/* What each kind's first bytes are taken for. */
static void test_detect(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		enum fk_input_kind kind;
	} cases[] = {
		{ "a;b;c 1\n", FK_KIND_STACKS },
		{ "[unknown];a 1\n", FK_KIND_STACKS },
		{ "[[x]];a 1\n", FK_KIND_STACKS },
		{ "", FK_KIND_STACKS },
		{ "# comment\n\npython 123/123 1.000: 1 cycles:\n"
		  "\t7f00deadbeef main (/bin/x)\n\n", FK_KIND_PERF },
		{ "python 123 1.000: cycles: \n  ffffffff81000000 do_syscall ([kernel.kallsyms])\n",
		  FK_KIND_PERF },
		{ "python 123 1.000: cycles:\nnot a frame\n", FK_KIND_STACKS },
		{ "[[1700000000000, 2, 1024, 4], [1700000000001, 4, 1024, 4]]", FK_KIND_TORCH_MEMORY },
		{ "[ [-1, 1, 8, 0]]", FK_KIND_TORCH_MEMORY },
		{ "[]", FK_KIND_TORCH_MEMORY },
		{ "\xEF\xBB\xBF{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [", FK_KIND_CHROME_TRACE },
		{ "[{\"name\": \"aten::mm\", \"ph\": \"X\"}]", FK_KIND_CHROME_TRACE },
		{ "{\"a\": 1}", FK_KIND_JSON },
		{ "STKCAP01", FK_KIND_CAPTURE },
		{ "STKCAP0", FK_KIND_STACKS },
		{ "CPU     ID                    FUNCTION:NAME\n  0  64091   :tick-60s \n\n",
		  FK_KIND_DTRACE },
		{ "\n              genunix`open+0x25\n              unix`sys_syscall+0x17a\n"
		  "                1\n", FK_KIND_DTRACE },
		{ "  genunix`open+0x25\n  main\n", FK_KIND_STACKS },  /* no count line yet */
		{ "  open+0x25\n  1\n", FK_KIND_STACKS },             /* no module`function */
		{ "a`b;c 1\n", FK_KIND_STACKS },                       /* folded, not indented */
		{ "CPU;busy 1\n", FK_KIND_STACKS },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		enum fk_input_kind k = fk_detect(cases[i].text, strlen(cases[i].text));
		if (k != cases[i].kind)
			fail_msg("case %zu: %s, expected %s", i, fk_input_kind_name(k),
				 fk_input_kind_name(cases[i].kind));
	}
	enum fk_input_kind k;
	assert_true(fk_input_kind_parse("perf", &k));
	assert_int_equal(k, FK_KIND_PERF);
	assert_false(fk_input_kind_parse("auto", &k));
}

/* Standard input from a pipe, written one byte, then the rest: the kind of
 * plain and gzip streams alike is told from the peek, and the reader still
 * gets every byte from the first. */
static void pipe_kind(const void *data, size_t n, enum fk_input_kind want, size_t want_lines)
{
	const size_t first_byte[] = { 1 };
	int saved;
	pid_t pid = stdin_from_child(data, n, first_byte, n > 1, &saved);
	struct fk_diag d;
	fk_diag_init(&d, "test");
	struct fk_input in;
	assert_true(fk_input_open(&in, "-", &d));
	assert_null(in.map);
	assert_int_equal(in.kind, want);
	struct collect c = { 0 };
	assert_int_equal(fk_input_read_lines(&in, on_line, &c, &d), FK_INPUT_OK);
	assert_int_equal(c.count, want_lines);
	collect_free(&c);
	fk_input_close(&in);
	stdin_restore(saved, pid);
}

static void test_pipe_kinds(void **state)
{
	(void)state;
	static const char perf[] = "prog 1 1.0: 1 cycles:\n\t401000 main (/bin/prog)\n\n";
	pipe_kind(perf, sizeof perf - 1, FK_KIND_PERF, 3);
	/* the same text gzipped, through the pipe */
	const char *g = path_of("perf.gz");
	write_gz(g, "wb", perf, sizeof perf - 1);
	FILE *f = fopen(g, "rb");
	assert_non_null(f);
	char gz[256];
	size_t n = fread(gz, 1, sizeof gz, f);
	fclose(f);
	pipe_kind(gz, n, FK_KIND_PERF, 3);
	pipe_kind("a;b 1\n", 6, FK_KIND_STACKS, 1);
}

static void test_display_name(void **state)
{
	(void)state;
	assert_string_equal(fk_input_display_name("-"), "<stdin>");
	assert_string_equal(fk_input_display_name("x.txt"), "x.txt");
	assert_string_equal(fk_input_display_name("./-"), "./-");
}

/* ---- diag (how input reports bad lines) ---------------------------------- */

static void test_diag_shows_first_then_counts(void **state)
{
	(void)state;
	struct fk_diag d;
	fk_diag_init(&d, "prog");
	d.max_shown = 2;
	struct capture cap;
	capture_start(&cap);
	assert_true(fk_diag_line(&d, "f.txt", 1, "reason %d", 1));
	assert_true(fk_diag_line(&d, "f.txt", 7, "reason %d", 2));
	assert_true(fk_diag_line(&d, "f.txt", 9, "reason %d", 3));
	fk_diag_summary(&d);
	fk_diag_error(&d, "%s: gone", "x.txt");
	char *err = capture_end(&cap);
	assert_string_equal(err, "f.txt:1: reason 1\n"
				 "f.txt:7: reason 2\n"
				 "prog: 3 bad lines skipped (1 not shown)\n"
				 "prog: x.txt: gone\n");
	assert_int_equal(d.bad_lines, 3);
	free(err);

	fk_diag_init(&d, "prog");
	assert_int_equal(d.max_shown, FK_DIAG_MAX_SHOWN);
	capture_start(&cap);
	fk_diag_summary(&d); /* nothing bad: nothing said */
	assert_true(fk_diag_line(&d, "g", 4, "bad"));
	fk_diag_summary(&d);
	err = capture_end(&cap);
	assert_string_equal(err, "g:4: bad\nprog: 1 bad line skipped\n");
	free(err);
}

static void test_diag_quiet_and_strict(void **state)
{
	(void)state;
	struct fk_diag d;
	quiet_diag(&d);
	struct capture cap;
	capture_start(&cap);
	for (int i = 0; i < 10; i++)
		assert_true(fk_diag_line(&d, "f", (uint64_t)i + 1, "bad"));
	fk_diag_summary(&d);
	char *err = capture_end(&cap);
	assert_string_equal(err, "");
	assert_int_equal(d.bad_lines, 10);
	free(err);

	fk_diag_init(&d, "prog");
	d.strict = true;
	capture_start(&cap);
	assert_false(fk_diag_line(&d, "f", 3, "bad"));
	fk_diag_summary(&d); /* strict: the error said it all */
	err = capture_end(&cap);
	assert_string_equal(err, "f:3: bad\n");
	free(err);
}

/* A note several passes would repeat is said once; it is no bad line. */
static void test_diag_note_once(void **state)
{
	(void)state;
	struct fk_diag d;
	fk_diag_init(&d, "prog");
	struct capture cap;
	capture_start(&cap);
	fk_diag_note_once(&d, "a.so: not found");
	fk_diag_note_once(&d, "b.so: not found");
	fk_diag_note_once(&d, "a.so: not found");
	fk_diag_note_once(&d, "b.so: not found");
	fk_diag_summary(&d);
	char *err = capture_end(&cap);
	assert_string_equal(err, "prog: a.so: not found\nprog: b.so: not found\n");
	assert_int_equal(d.bad_lines, 0);
	free(err);
	/* Past what it remembers, a note is said every time: never lost. */
	char msg[32];
	capture_start(&cap);
	for (int i = 0; i < FK_DIAG_MAX_ONCE; i++) {
		snprintf(msg, sizeof msg, "m%d", i);
		fk_diag_note_once(&d, msg);
	}
	free(capture_end(&cap));
	capture_start(&cap);
	fk_diag_note_once(&d, "late");
	fk_diag_note_once(&d, "late");
	fk_diag_note_once(&d, "m3");
	err = capture_end(&cap);
	assert_string_equal(err, "prog: late\nprog: late\n");
	free(err);
}

static void test_diag_deferred_replay(void **state)
{
	(void)state;
	/* Workers hold their bad lines; replay prints them in order with file
	 * line numbers, within the same "first N shown" budget. */
	struct fk_diag d, w1, w2;
	fk_diag_init(&d, "prog");
	d.max_shown = 3;
	fk_diag_defer(&w1, &d);
	fk_diag_defer(&w2, &d);
	struct capture cap;
	capture_start(&cap);
	assert_true(fk_diag_line(&w1, "f", 2, "one"));
	assert_true(fk_diag_line(&w1, "f", 5, "two"));
	assert_true(fk_diag_line(&w2, "f", 1, "three"));
	assert_true(fk_diag_line(&w2, "f", 4, "four"));
	char *held = capture_end(&cap);
	assert_string_equal(held, ""); /* nothing printed by the workers */
	free(held);
	capture_start(&cap);
	assert_true(fk_diag_replay(&d, &w1, "f", 0));
	assert_true(fk_diag_replay(&d, &w2, "f", 100));
	fk_diag_summary(&d);
	char *err = capture_end(&cap);
	assert_string_equal(err, "f:2: one\nf:5: two\nf:101: three\n"
				 "prog: 4 bad lines skipped (1 not shown)\n");
	assert_int_equal(d.bad_lines, 4);
	free(err);

	/* More bad lines than a worker holds are still counted. */
	fk_diag_init(&d, "prog");
	d.quiet = true;
	fk_diag_defer(&w1, &d);
	for (int i = 0; i < 12; i++)
		assert_true(fk_diag_line(&w1, "f", (uint64_t)i + 1, "bad"));
	assert_int_equal(w1.nheld, FK_DIAG_MAX_SHOWN);
	assert_true(fk_diag_replay(&d, &w1, "f", 0));
	assert_int_equal(d.bad_lines, 12);

	/* Strict: the first held line stops. */
	fk_diag_init(&d, "prog");
	d.strict = true;
	d.quiet = true;
	fk_diag_defer(&w1, &d);
	assert_false(fk_diag_line(&w1, "f", 8, "bad"));
	assert_false(fk_diag_replay(&d, &w1, "f", 0));
	assert_int_equal(d.bad_lines, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_no_trailing_newline),
		cmocka_unit_test(test_empty_file),
		cmocka_unit_test(test_blank_lines_are_lines),
		cmocka_unit_test(test_crlf_kept),
		cmocka_unit_test(test_nul_bytes_pass_through),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_gzip_empty),
		cmocka_unit_test(test_gzip_members),
		cmocka_unit_test(test_gzip_truncated),
		cmocka_unit_test(test_gzip_corrupt),
		cmocka_unit_test(test_gzip_trailing_garbage),
		cmocka_unit_test(test_stdin_pipe_plain),
		cmocka_unit_test(test_stdin_pipe_gzip),
		cmocka_unit_test(test_stdin_empty),
		cmocka_unit_test(test_long_line_mapped),
		cmocka_unit_test(test_line_at_max_is_kept),
		cmocka_unit_test(test_long_line_gzip),
		cmocka_unit_test(test_long_line_strict_stops),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_buffer_lines),
		cmocka_unit_test(test_pread_lines_across_reads),
		cmocka_unit_test(test_pread_lines_long),
		cmocka_unit_test(test_pread_lines_file_shrank),
		cmocka_unit_test(test_pread_piece_hooks),
		cmocka_unit_test(test_open),
		cmocka_unit_test(test_open_memory),
		cmocka_unit_test(test_detect),
		cmocka_unit_test(test_pipe_kinds),
		cmocka_unit_test(test_display_name),
		cmocka_unit_test(test_diag_shows_first_then_counts),
		cmocka_unit_test(test_diag_quiet_and_strict),
		cmocka_unit_test(test_diag_note_once),
		cmocka_unit_test(test_diag_deferred_replay),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
