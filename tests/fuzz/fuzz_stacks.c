/* fuzz_stacks.c - libFuzzer harness: arbitrary bytes as a stack text file,
 * through the whole pipeline stackfold and flamegraph run (parse, aggregate,
 * fold with every rewrite, sort, write folded text; lay out and write the
 * SVG in every other run).
 * In memory (one run in four from a memfd, mapped as files are): no
 * printing per run. Crashes, sanitizer reports and broken invariants are
 * findings.
 *
 * Build and run (clang): make fuzz   (FUZZ_SECONDS=60 by default)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/core/transform.h"
#include "analysis/core/folded_write.h"
#include "analysis/core/stackload.h"
#include "render/flame.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* flamegraph's half: lay out and write the SVG. */
static void draw(FILE *out, const struct fk_stacks *folded, const uint32_t *ids, size_t size)
{
	struct fk_flame_opts o;
	fk_flame_opts_defaults(&o);
	o.minwidth = 0;
	o.inverted = size % 5 == 0;
	struct fk_flame_report rep;
	fk_flame_render(out, folded, ids, NULL, &o, &rep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_diag d;
	fk_diag_init(&d, "fuzz");
	d.quiet = true;
	FILE *null = fuzz_null();
	d.out = null; /* errors too: printing would cost more than the run */
	/* One run in four reads a file, which is mapped: the readers' path,
	 * whose new stacks are split after reading (the others stream). */
	struct fk_input in;
	int fd = size % 4 == 1 ? memfd_create("fuzz", MFD_CLOEXEC) : -1;
	if (fd >= 0) {
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		bool opened = write(fd, data, size) == (ssize_t)size && fk_input_open(&in, path, &d);
		close(fd);
		if (!opened)
			return 0;
	} else if (!fk_input_open_memory(&in, "fuzz", data, size, &d)) {
		return 0;
	}
	/* Drawing costs more than all the rest: one run in two draws, chosen
	 * by the last byte (a count's last digit, or the last newline). */
	const bool drawn = size && data[size - 1] & 1;
	struct fk_stacks raw = { 0 }, folded = { 0 };
	struct fk_fold_opts fo = { .strip_addresses = true, .reverse = size % 2,
				   .chain_wakers = size % 3 == 0, .root = "root" };
	uint32_t *ids = NULL;
	if (fk_load_stacktext_input(&in, &raw, NULL, &d) == FK_INPUT_OK &&
	    fk_fold(&folded, &raw, &fo, NULL, NULL) == FK_STACKS_OK &&
	    (ids = fk_stacks_sorted(&folded, FK_ORDER_FLAME)) != NULL) {
		struct fk_folded_opts wo = { .order = ids, .count = fk_stacks_count(&folded) };
		uint64_t written;
		fk_folded_write(null, &folded, &wo, &written);
		if (drawn)
			draw(null, &folded, ids, size);
	}
	free(ids);
	fk_input_close(&in);
	fk_stacks_free(&raw);
	fk_stacks_free(&folded);
	return 0;
}
