/* windows.h - a capture's windows (formats/CAPTURE.md, WINDOWS): the edge
 * records read, made into the stretches of time the shim recorded, and
 * their line in `stackcap info`.
 *
 * Owns: nothing beyond struct fk_capture's window fields.
 */
#ifndef FK_CAP_WINDOWS_H
#define FK_CAP_WINDOWS_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/capture/model.h"

/* A WINDOWS payload's records, appended to c->edges. */
bool fk_cap_windows_chunk(struct fk_capture *c, struct fk_cap_cursor *k);
/* Once every chunk is read: c->windows from the edges (an open window
 * closes at the capture's last record), and the edge numbers missing.
 * False when out of memory. */
bool fk_cap_windows_finish(struct fk_capture *c);
/* Whether CLOCK_MONOTONIC time t falls in one of c's windows (always, for
 * a whole-run capture). */
bool fk_cap_in_windows(const struct fk_capture *c, uint64_t t_ns);
/* The "windows:" line of `stackcap info` (nothing for a whole-run capture). */
void fk_cap_windows_info(FILE *out, const struct fk_capture *c);

#endif
