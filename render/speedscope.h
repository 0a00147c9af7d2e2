/* speedscope.h - a profile (render/profile.h) written in speedscope's file
 * format (https://www.speedscope.app/file-format-schema.json): the frame
 * names in one shared table, and one "sampled" profile per sample type,
 * each stack a sample (frame indices, root first) weighted by its exact
 * value in the type's unit (microseconds, bytes, none), so the total
 * speedscope shows is the folded total. A by_thread type becomes one
 * sampled profile per thread (its root frame the profile's name).
 *
 * Owns: nothing.
 */
#ifndef FK_SPEEDSCOPE_H
#define FK_SPEEDSCOPE_H

#include <stdbool.h>
#include <stdio.h>

#include "render/profile.h"

/* Writes the document; false when memory ran out (reported on stderr) or
 * writing failed (for the caller's close to report). */
bool fk_speedscope_write(FILE *out, const struct fk_profile *p);

#endif
