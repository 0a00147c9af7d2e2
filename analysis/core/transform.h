/* transform.h - per-stack transformations applied between reading and output:
 * root tag, address stripping, frame reversal, include/exclude filters and
 * value scaling. They run once per unique stack, never per input line.
 *
 * Owns: nothing; struct fk_fold_opts points at caller-owned objects.
 */
#ifndef FK_FOLD_H
#define FK_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/core/regex.h"
#include "analysis/core/stacks.h"

struct fk_fold_opts {
	const char *root;         /* extra root frame (--tag-files), or NULL */
	bool strip_addresses;     /* "_at_0x7f.." removed, other long hex -> "0x..." */
	bool strip_hex;           /* every 0x[0-9a-fA-F]+ -> "0x..." (difffolded.pl -s) */
	bool reverse;             /* leaf first (flamegraph --reverse) */
	bool chain_wakers;        /* flamegraph --colors chain: frames after ";--;"
				     get "_[w]" and every stack ends in "--" */
	struct fk_regex *include; /* keep stacks with a matching frame */
	struct fk_regex *exclude; /* drop stacks with a matching frame */
	bool scaled;
	struct fk_num scale;      /* multiply values by this when scaled */
};

struct fk_fold_stats {
	uint64_t filtered; /* unique stacks dropped by include/exclude */
};

/* Adds every stack of src, transformed, into dst (merging equal results).
 * When map is given (fk_stacks_count(src) entries), map[src id] = dst id, or
 * FK_STRTAB_NONE for a stack the filters dropped. */
enum fk_stacks_status fk_fold(struct fk_stacks *dst, const struct fk_stacks *src,
			      const struct fk_fold_opts *o, struct fk_fold_stats *stats,
			      uint32_t *map);

/* Address stripping of one frame into out (at least len bytes); returns the
 * new length. Exposed for tests. */
size_t fk_strip_addresses(const char *in, size_t len, char *out);
/* difffolded.pl -s: every "0x" and hex digits after it becomes "0x...".
 * out must hold len * 5 / 3 + 5 bytes ("0x1" grows to 5). Returns its length. */
size_t fk_strip_hex(const char *in, size_t len, char *out);

#endif
