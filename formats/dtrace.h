/* dtrace.h - the reader of DTrace / SystemTap aggregated stacks, the input
 * of FlameGraph's stackcollapse.pl: a header, then blocks of frame lines
 * (leaf first, "module`function+0xoffset"), each ended by a line holding
 * only its count. Frames are tidied as the script tidies them (offsets and
 * C++ argument lists cut, "a->b" inline chains split with _[i], ';' made
 * ':', a leading 'L' dropped); each stack comes out folded, root first,
 * with its count. Spec: formats/DTRACE.md.
 *
 * Owns: nothing beyond a call.
 */
#ifndef FK_DTRACE_H
#define FK_DTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/input.h"

/* One stack "outer;...;leaf" and its count; false stops the reading (out
 * of memory, or a sum the caller cannot hold). */
typedef bool (*fk_dtrace_fn)(void *ctx, const char *stack, size_t len, uint64_t count);

enum fk_input_result fk_dtrace_read(struct fk_input *in, fk_dtrace_fn fn, void *ctx,
				    struct fk_diag *d);

/* Whether the first bytes of an input look like DTrace output: the
 * "CPU ID FUNCTION:NAME" header, or a block of "module`function" frames
 * ended by a count line. */
bool fk_dtrace_detect(const char *p, size_t n);

#endif
