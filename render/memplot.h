/* memplot.h - torch's memory timeline plot, drawn with cairo as a PNG: the
 * stacked live bytes of each category over time, as
 * torch.profiler's export_memory_timeline(".html") draws it with matplotlib
 * (a 20x12 in figure at 80 dpi, fill_between per category at alpha 0.7,
 * figure legend, "Time (ms)" from 0, "Memory (GB)" in GiB, a title).
 *
 * Memory stays bounded for any number of rows: when there are more rows
 * than pixel columns, each column is drawn from the lowest and highest value
 * every boundary takes in it, which covers the same pixels as the full
 * polygon would.
 *
 * Owns: the PNG bytes it returns (free()).
 */
#ifndef FK_MEMPLOT_H
#define FK_MEMPLOT_H

#include <stddef.h>

#include "analysis/mem/events.h"

/* The category colours: fk_mem_category_colors (render/memcolors.h). */
#define FK_MEMPLOT_WIDTH 1600
#define FK_MEMPLOT_HEIGHT 960

/* Draws the sorted, one-device timeline under title (lines separated by
 * '\n'). Returns 0 and the PNG in *png, or -1 (out of memory, or cairo
 * failed; *error says why). */
int fk_memplot_png(const struct fk_mem_timeline *tl, const char *title, unsigned char **png,
		   size_t *len, const char **error);

/* Frees what cairo and fontconfig keep for the whole process (font caches),
 * so leak checkers see a clean exit. Call once, after the last plot. */
void fk_memplot_release(void);

#endif
