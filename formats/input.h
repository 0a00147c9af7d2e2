/* input.h - reading an input file as lines: plain files (mmap), stdin and
 * pipes (large reads), and gzip data from either (zlib, detected by its magic
 * bytes, so ".gz" files and compressed pipes both work).
 *
 * Owns: nothing that outlives a call. fk_input_lines() opens, streams and
 * closes. Lines are passed without their '\n'; a final line without '\n' is
 * still a line. Memory is bounded by the longest line; lines longer than
 * FK_INPUT_MAX_LINE are reported as bad lines and skipped.
 */
#ifndef FK_INPUT_H
#define FK_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

#define FK_INPUT_MAX_LINE ((size_t)64 << 20)

/* Return false to stop reading (the call then returns FK_INPUT_STOPPED). */
typedef bool (*fk_line_fn)(void *ctx, const char *line, size_t len, uint64_t lineno);

enum fk_input_result {
	FK_INPUT_OK = 0,
	FK_INPUT_ERROR,   /* could not open or read; reported through d */
	FK_INPUT_STOPPED, /* fn or the diagnostics asked to stop */
};

/* path "-" is standard input; name is what messages call it. */
enum fk_input_result fk_input_lines(const char *path, const char *name,
				    fk_line_fn fn, void *ctx, struct fk_diag *d);

/* The bytes of an input as they come (gzip inflated), in blocks of any size,
 * for readers of formats that are not line-based (JSON). Return false to stop. */
typedef bool (*fk_chunk_fn)(void *ctx, const char *p, size_t n);
enum fk_input_result fk_input_chunks(const char *path, const char *name,
				     fk_chunk_fn fn, void *ctx, struct fk_diag *d);

/* A plain (not compressed) regular file mapped whole, for readers that split
 * the work across threads. */
struct fk_input_map {
	const char *data;
	size_t len;
};

/* true when path is a non-empty regular file without gzip magic and it could
 * be mapped; false otherwise (use fk_input_lines then), never an error. */
bool fk_input_map_open(const char *path, struct fk_input_map *m);
void fk_input_map_close(struct fk_input_map *m);
/* Hands mapped pages between from and to (whole pages only) back to the
 * kernel once read, so memory follows what is kept, not the file size. */
void fk_input_release(const char *from, const char *to);

/* The lines of a buffer, numbered from first_line + 1. *lines gets how many
 * were read. */
enum fk_input_result fk_input_buffer_lines(const char *p, size_t n, const char *name,
					   uint64_t first_line, fk_line_fn fn, void *ctx,
					   struct fk_diag *d, uint64_t *lines);

#define FK_INPUT_MAX_THREADS 16

/* Threads to read a mapped input of this size with: 1 below min_bytes,
 * else FLAMEKIT_THREADS, or the CPUs up to default_max; at most
 * FK_INPUT_MAX_THREADS. */
unsigned fk_input_threads(size_t bytes, size_t min_bytes, unsigned default_max);

/* "<stdin>" for "-", else path. */
const char *fk_input_display_name(const char *path);

#endif
