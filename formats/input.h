/* input.h - opening an input once and reading it: plain files (mapped, and
 * read with pread()), stdin and pipes (large reads), and gzip data from
 * either (zlib, told by its magic bytes, so ".gz" files and compressed pipes
 * both work). fk_input_open peeks at the first decoded bytes and names the
 * input's kind (formats/detect.h); the reader of that kind then takes the
 * same open input, peeked bytes included, as lines, as blocks, or (plain
 * regular files) in pieces or mapped whole. Lines and blocks of a plain file
 * are read with pread(), not through its mapping: on virtual machines a
 * mapped page's first touch costs several times reading it.
 *
 * Owns: struct fk_input, from fk_input_open to fk_input_close. Lines are
 * passed without their '\n'; a final line without '\n' is still a line.
 * Memory is bounded by the longest line; lines longer than
 * FK_INPUT_MAX_LINE are reported as bad lines and skipped. A stream is read
 * once: one fk_input_read_* call per open (a mapped input may be read again).
 */
#ifndef FK_INPUT_H
#define FK_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "formats/detect.h"
#include "formats/diag.h"

#define FK_INPUT_MAX_LINE ((size_t)64 << 20)

/* Return false to stop reading (the call then returns FK_INPUT_STOPPED). */
typedef bool (*fk_line_fn)(void *ctx, const char *line, size_t len, uint64_t lineno);

enum fk_input_result {
	FK_INPUT_OK = 0,
	FK_INPUT_ERROR,   /* could not open or read; reported through d */
	FK_INPUT_STOPPED, /* fn or the diagnostics asked to stop */
};

struct fk_input_stream; /* private to input.c */

struct fk_input {
	const char *path;        /* as given; "-" is standard input */
	const char *name;        /* what messages call it ("<stdin>" for "-") */
	enum fk_input_kind kind; /* sniffed at open; a caller may override it */
	bool gzip;
	/* A plain regular file mapped whole (NULL otherwise: read it as a
	 * stream), for readers that read it in pieces across threads (its
	 * addresses saying where bytes lie) or parse it in place. */
	const char *map;
	size_t map_len;
	/* The first decoded bytes (at least FK_DETECT_PEEK, or all of a
	 * shorter input): what the kind was told from. */
	const char *peek;
	size_t peek_len;
	struct fk_input_stream *s;
};

/* Opens path ("-": standard input), peeks and sniffs. false, reported
 * through d ("name: No such file or directory", "name: is a directory",
 * read and gzip errors found while peeking), when it cannot be read. */
bool fk_input_open(struct fk_input *in, const char *path, struct fk_diag *d);
/* The same over n bytes at data (borrowed: they must outlive the input),
 * for tests and fuzzing harnesses; gzip data is inflated as from a file.
 * The bytes are read as a stream (map stays NULL). */
bool fk_input_open_memory(struct fk_input *in, const char *name, const void *data, size_t n,
			  struct fk_diag *d);
void fk_input_close(struct fk_input *in);

/* The whole input, from its first byte, as lines or as blocks. */
enum fk_input_result fk_input_read_lines(struct fk_input *in, fk_line_fn fn, void *ctx,
					 struct fk_diag *d);
/* Blocks of any size, gzip inflated, for formats that are not line-based. */
typedef bool (*fk_chunk_fn)(void *ctx, const char *p, size_t n);
enum fk_input_result fk_input_read_chunks(struct fk_input *in, fk_chunk_fn fn, void *ctx,
					  struct fk_diag *d);

/* Open, read, close in one call, for callers that know the kind already.
 * name is what messages call the input. */
enum fk_input_result fk_input_lines(const char *path, const char *name,
				    fk_line_fn fn, void *ctx, struct fk_diag *d);
enum fk_input_result fk_input_chunks(const char *path, const char *name,
				     fk_chunk_fn fn, void *ctx, struct fk_diag *d);

/* The lines of a buffer, numbered from first_line + 1. *lines gets how many
 * were read. */
enum fk_input_result fk_input_buffer_lines(const char *p, size_t n, const char *name,
					   uint64_t first_line, fk_line_fn fn, void *ctx,
					   struct fk_diag *d, uint64_t *lines);

/* Up to n bytes of a mapped input from off into buf, read with pread() (see
 * fk_input_pread_lines): how many (fewer only at the file's end), -1 with
 * errno on an error. */
ssize_t fk_input_pread(const struct fk_input *in, void *buf, size_t n, size_t off);

/* A line read through a buffer: line is in the buffer (valid during the
 * call), home where the same bytes lie in the input's mapping. */
typedef bool (*fk_home_line_fn)(void *ctx, const char *line, size_t len, const char *home,
				uint64_t lineno);
/* The lines of a mapped input's bytes [off, off + n), numbered from
 * first_line + 1, read with pread() rather than through the mapping: on
 * virtual machines a page's first touch in a mapping costs several times
 * what reading it does (README, "Mapped input"). A caller that keeps a
 * line keeps its home and reads it again (fk_input_pread at home - map).
 * Over-long lines are reported and skipped as everywhere; a file that
 * shrank is an error. *lines gets how many were read. */
enum fk_input_result fk_input_pread_lines(const struct fk_input *in, size_t off, size_t n,
					  const char *name, uint64_t first_line,
					  fk_home_line_fn fn, void *ctx, struct fk_diag *d,
					  uint64_t *lines);

/* How fk_input_pread_piece passes a piece's lines on. */
struct fk_piece_reader {
	fk_home_line_fn line;
	/* NULL, or called after the lines of each read (also when line stopped
	 * the reading), before the buffer they were passed in is read into
	 * again or freed: for a caller that keeps lines by their address in it
	 * for a while. false stops the reading, as line's false does. */
	bool (*lines_read)(void *ctx);
	/* NULL, or asked before each read how many of the want bytes from pos
	 * it may take (0: the piece ends at pos, which must then be a line's
	 * start): for a piece whose end another reader may move back. */
	size_t (*claim)(void *ctx, size_t pos, size_t want);
	void *ctx;
};
/* fk_input_pread_lines, with the hooks above. */
enum fk_input_result fk_input_pread_piece(const struct fk_input *in, size_t off, size_t n,
					  const char *name, uint64_t first_line,
					  const struct fk_piece_reader *r, struct fk_diag *d,
					  uint64_t *lines);

#define FK_INPUT_MAX_THREADS 16

/* Threads to read a mapped input of this size with: 1 below min_bytes,
 * else FLAMEKIT_THREADS, or the CPUs up to default_max; at most
 * FK_INPUT_MAX_THREADS. */
unsigned fk_input_threads(size_t bytes, size_t min_bytes, unsigned default_max);

/* "<stdin>" for "-", else path. */
const char *fk_input_display_name(const char *path);

#endif
