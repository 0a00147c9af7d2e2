/* memcolors.h - the colours of torch's memory categories (the matplotlib
 * colours torch's memory plot draws them in), shared by the plot, the
 * page's legend and the category palette of flame graphs, so a memory
 * flame graph reads like the timeline above it.
 *
 * Owns: nothing.
 */
#ifndef FK_MEMCOLORS_H
#define FK_MEMCOLORS_H

#include <stddef.h>

#include "analysis/mem/events.h"

/* 0xRRGGBB, indexed by category. */
extern const unsigned fk_mem_category_colors[FK_MEM_NCAT];

/* The category named name[0, len) ("PARAMETER", ..., "Unknown"), or -1. */
int fk_mem_category_of_name(const char *name, size_t len);

#endif
