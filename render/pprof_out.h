/* pprof_out.h - a profile (render/profile.h) written as gzipped pprof
 * (formats/pprof.h): one sample type per typed table (times in
 * nanoseconds), one function and one location per distinct frame name,
 * one sample per stack with a value for each type.
 *
 * Owns: nothing.
 */
#ifndef FK_PPROF_OUT_H
#define FK_PPROF_OUT_H

#include "formats/diag.h"
#include "render/profile.h"

/* Writes the built profile p to path (NULL or "-": standard output), only
 * when every value is a whole number of its unit within int64 (pprof's
 * values): else nothing is written. FK_EXIT_OK or FK_EXIT_BAD_INPUT,
 * reported through d. */
int fk_pprof_write_profile(const struct fk_profile *p, const char *path, struct fk_diag *d);

#endif
