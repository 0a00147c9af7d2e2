/* outfile.h - output files that appear only when complete: a regular file
 * (or a new one) is written as an unnamed file in the same directory
 * (O_TMPFILE) and linked in place of the old one when it is done, so a failed
 * or interrupted run leaves no partial output and the old file untouched.
 * Devices, pipes and file systems without O_TMPFILE are written directly.
 *
 * Owns: nothing beyond the descriptor it returns.
 */
#ifndef FK_OUTFILE_H
#define FK_OUTFILE_H

#include <stdbool.h>

/* A descriptor to write path's new content to; -1 with errno on failure. */
int fk_outfile_open(const char *path);
/* Puts the written file in place and closes fd; false with errno on failure. */
bool fk_outfile_commit(int fd, const char *path);
/* Closes fd and drops what was written, when it can. */
void fk_outfile_abort(int fd);

#endif
