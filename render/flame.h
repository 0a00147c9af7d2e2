/* flame.h - flame graph options (flamegraph.pl's, with its defaults) and the
 * top-level call that turns aggregated stacks into an SVG.
 *
 * Owns: struct fk_flame_opts (strings point at caller memory).
 */
#ifndef FK_FLAME_H
#define FK_FLAME_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/core/stackload.h"
#include "analysis/core/stacks.h"
#include "render/color.h"

struct fk_flame_opts {
	const char *title;     /* NULL: "Flame Graph", "Icicle Graph" or "Flame Chart" */
	const char *subtitle;  /* NULL or "": none */
	long width;            /* image width, px (1200) */
	long frameheight;      /* px per row (16) */
	double minwidth;       /* px, or percent of the total when minwidth_pct (0.1) */
	bool minwidth_pct;
	const char *fonttype;  /* "Verdana" */
	double fontsize;       /* 12 */
	double fontwidth;      /* 0.59: average glyph width / font size */
	const char *countname; /* "samples" */
	bool bytes;            /* --bytes: counts are bytes, shown in KiB/MiB/GiB too */
	const char *nametype;  /* "Function:" */
	enum fk_palette palette;     /* hot */
	const char *bgcolors;  /* NULL: the palette's; yellow|blue|green|grey|#rrggbb */
	enum fk_color_mode color_mode;
	bool consistent_palette; /* --cp: read/write palette.map */
	const char *palette_file; /* "palette.map" */
	bool inverted, flamechart, negate;
	const char *notes;
	double factor;         /* scales the numbers shown, not the geometry (1) */
	double total;          /* --total: 0 = the sum of the input */
	const char *encoding;  /* NULL: none declared */
	const char *searchcolor; /* "rgb(230,0,230)" */
};

void fk_flame_opts_defaults(struct fk_flame_opts *o);

/* What rendering found, for messages. */
struct fk_flame_report {
	size_t frames;      /* frames drawn */
	uint64_t omitted;   /* frames narrower than minwidth, left out */
	double total;       /* sum of the widths */
	char warning[256];  /* e.g. an unreadable palette.map, or "" */
};

enum fk_flame_status {
	FK_FLAME_OK = 0,
	FK_FLAME_EMPTY,  /* nothing to draw: an error SVG was written */
	FK_FLAME_NOMEM,
};

/* Stacks in flamegraph.pl's merge order (order = their ids sorted with
 * FK_ORDER_FLAME), or, for flame charts, the lines in input order (seq). */
enum fk_flame_status fk_flame_render(FILE *out, const struct fk_stacks *stacks,
				     const uint32_t *order, const struct fk_seq *seq,
				     const struct fk_flame_opts *o, struct fk_flame_report *rep);

#endif
