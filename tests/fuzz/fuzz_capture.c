/* fuzz_capture.c - libFuzzer harness: arbitrary bytes as a stackcap capture
 * (chunk validation and resync, payload decoding, then everything the
 * commands do with it: capture_pipeline.h), as a torch raw memory timeline
 * and as perf script text. All in memory: no file, no printing per run.
 * Crashes and sanitizer reports are findings. Damaged chunks are mostly
 * skipped here (their CRC fails); fuzz_chunks.c reaches the payloads.
 *
 * Build and run (clang): make fuzz
 */
#include <stdint.h>

#include "analysis/mem/torch.h"
#include "analysis/stackfold/perf.h"
#include "capture_pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_diag d;
	fk_diag_init(&d, "fuzz");
	d.quiet = true;
	d.out = fuzz_null(); /* errors too: printing would cost more than the run */
	fuzz_capture_pipeline(data, size, &d);

	struct fk_input in;
	if (fk_input_open_memory(&in, "fuzz", data, size, &d)) {
		struct fk_mem_timeline raw;
		fk_mem_init(&raw);
		fk_mem_read_torch_raw(&in, &raw, &d);
		fk_mem_free(&raw);
		fk_input_close(&in);
	}
	if (fk_input_open_memory(&in, "fuzz", data, size, &d)) {
		struct fk_stacks perf = { 0 };
		struct fk_perf_opts po = { .pid = size & 1, .tid = size & 2, .kernel = size & 4,
					   .jit = size & 8, .addrs = size & 16, .srcline = size & 32 };
		fk_perf_load_input(&in, &po, &perf, &d);
		fk_stacks_free(&perf);
		fk_input_close(&in);
	}
	return 0;
}
