/* memhtml.h - the memory timeline page: torch's HTML wrapper around the
 * plot (a base64 PNG), then what torch does not show, as text: the peak
 * (time, total, each category) and the largest allocations live at it,
 * with their stacks when the input has them.
 *
 * Owns: nothing. Every text from the input is escaped.
 */
#ifndef FK_MEMHTML_H
#define FK_MEMHTML_H

#include <stdio.h>

#include "analysis/mem/replay.h"

/* Groups of allocations listed at most. */
#define FK_MEMHTML_TOP 20

/* The plot title torch writes: "Max memory allocated: X GiB" and, when
 * known, " \nMax memory reserved: Y GiB". */
void fk_memhtml_title(char *buf, size_t n, const struct fk_mem_timeline *tl,
		      const struct fk_mem_report *rep);

/* loss: what the inputs lost, shown first (escaped), or NULL / "". */
void fk_memhtml_write(FILE *out, const unsigned char *png, size_t png_len,
		      const struct fk_mem_timeline *tl, const struct fk_mem_report *rep,
		      const char *loss);

#endif
