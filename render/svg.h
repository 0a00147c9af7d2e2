/* svg.h - writing a laid-out flame graph as an interactive SVG, with the
 * geometry, number formats, titles and colours flamegraph.pl writes for the
 * same input and options, plus the embedded viewer (flamegraph.js/.css).
 *
 * Owns: nothing; colours come through a callback so palette policy stays
 * in flame.c.
 */
#ifndef FK_SVG_H
#define FK_SVG_H

#include <stdio.h>

#include "render/flame.h"
#include "render/layout.h"

typedef struct fk_rgb (*fk_frame_color_fn)(void *ctx, const struct fk_layout *L,
					   const struct fk_frame *f);

/* timemax: the value that spans the full width. */
void fk_svg_write_flame(FILE *out, const struct fk_layout *L, double timemax,
			const struct fk_flame_opts *o, fk_frame_color_fn color, void *ctx);

/* The small SVG flamegraph.pl writes when there is nothing to draw. */
void fk_svg_write_empty(FILE *out, const struct fk_flame_opts *o);

/* flamegraph.pl's number formats, exposed for tests. */
void fk_perl_number(double v, char *buf, size_t n);      /* Perl's "%.15g" */
void fk_commas(const char *digits, char *buf, size_t n); /* 1234567 -> 1,234,567 */

#endif
