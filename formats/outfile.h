/* outfile.h - output files that appear only when complete: a regular file
 * (or a new one) is written as an unnamed file in the same directory
 * (O_TMPFILE) and linked in place of the old one when it is done, so a failed
 * or interrupted run leaves no partial output and the old file untouched.
 * Devices, pipes and file systems without O_TMPFILE are written directly.
 *
 * Owns: nothing beyond the descriptor or stream it returns.
 */
#ifndef FK_OUTFILE_H
#define FK_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "formats/diag.h"

/* A descriptor to write path's new content to; -1 with errno on failure. */
int fk_outfile_open(const char *path);
/* Puts the written file in place and closes fd; false with errno on failure. */
bool fk_outfile_commit(int fd, const char *path);
/* Closes fd and drops what was written, when it can. */
void fk_outfile_abort(int fd);

/* The same as a stdio stream, fully buffered: standard output for NULL or
 * "-", else the file (appearing on fk_outfile_fclose()). NULL, reported
 * through d ("prog: path: reason"), when it cannot be opened. */
FILE *fk_outfile_fopen(const char *path, struct fk_diag *d);
/* Flushes and closes f (puts a file in place); false, reported through d
 * ("prog: path: write error: reason"), on a write error. */
bool fk_outfile_fclose(FILE *f, const char *path, struct fk_diag *d);

#endif
