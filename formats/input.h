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

#include "diag.h"

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

/* "<stdin>" for "-", else path. */
const char *fk_input_display_name(const char *path);

#endif
