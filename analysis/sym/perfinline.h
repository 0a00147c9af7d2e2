/* perfinline.h - stackcollapse-perf.pl's --inline (and --context): a perf
 * script frame line is replaced by the chain of functions addr2line finds
 * inlined at its address, "outer;...;inner" (with --context
 * "outer:file.c:12;..."). The script runs `addr2line -a PC -e MOD -i -f -s
 * -C` for each new address, and when that knows nothing and the frame reads
 * "func+0xOFF", looks func up in `nm MOD` and asks again at its address plus
 * OFF; here analysis/addr2line answers both without running anything.
 *
 * Owns: the answers, per (PC text, module), as the script caches them, and
 * the files read for them. Not thread-safe.
 */
#ifndef FK_PERFINLINE_H
#define FK_PERFINLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "formats/diag.h"

struct fk_perf_inline;

/* d: where a module that cannot be read is reported, once (like
 * addr2line's own complaint, it changes nothing: the frame keeps its name).
 * NULL when out of memory. */
struct fk_perf_inline *fk_perf_inline_new(bool context, struct fk_diag *d);
void fk_perf_inline_free(struct fk_perf_inline *pi);

/* What replaces the frame line "PC RAWFUNC (MOD)": the frames, joined with
 * ';', outermost first, or NULL when the line keeps its own name (MOD is
 * perf's, a JIT map or the kernel; addr2line knew nothing; the file could
 * not be read). *failed is set when memory ran out. The text stays valid
 * until fk_perf_inline_free. */
const char *fk_perf_inline_frames(struct fk_perf_inline *pi, const char *pc, size_t pclen,
				  const char *rawfunc, size_t rflen, const char *mod, size_t modlen,
				  bool *failed);

#endif
