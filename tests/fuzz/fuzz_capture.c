/* fuzz_capture.c - libFuzzer harness: arbitrary bytes as every input kind
 * but stack text (fuzz_stacks.c has that), each read by the reader its
 * first bytes select, as the commands do (formats/detect.h): a stackcap
 * capture (chunk validation and resync, payload decoding, then what the
 * commands do with it: capture_pipeline.h), a torch raw memory timeline,
 * perf script, a Chrome/Kineto trace, DTrace stacks. All in memory: no
 * file, no printing per run. Crashes and sanitizer reports are findings.
 * Damaged chunks are mostly skipped here (their CRC fails); fuzz_chunks.c
 * reaches the payloads.
 *
 * Build and run (clang): make fuzz
 */
#include <stdint.h>

#include "analysis/mem/torch.h"
#include "analysis/stackfold/load.h"
#include "capture_pipeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_diag d;
	fk_diag_init(&d, "fuzz");
	d.quiet = true;
	d.out = fuzz_null(); /* errors too: printing would cost more than the run */
	/* The options come from the size: any byte of a capture is under a
	 * checksum, and a trailing byte of text is part of its last line. */
	const uint8_t op = (uint8_t)(size % 251);
	struct fk_input in;
	if (!fk_input_open_memory(&in, "fuzz", data, size, &d))
		return 0;
	if (in.kind == FK_KIND_CAPTURE) {
		fk_input_close(&in);
		fuzz_capture_pipeline(data, size, op, &d);
	} else if (in.kind == FK_KIND_TORCH_MEMORY) {
		struct fk_mem_timeline raw;
		fk_mem_init(&raw);
		fk_mem_read_torch_raw(&in, &raw, &d);
		fk_mem_free(&raw);
		fk_input_close(&in);
	} else {
		/* perf script, traces (CPU or GPU time; both for a table), DTrace,
		 * and what is none of them: stackfold's loader says so. */
		struct fk_stackfold_read o = {
			.perf = { .pid = op & 1, .tid = op & 2, .kernel = op & 4, .jit = op & 8,
				  .addrs = op & 16, .srcline = op & 32 },
			.capture = { .metric = op & 64 ? FK_METRIC_SELF_CUDA : FK_METRIC_SELF_CPU },
			.join_backward = op & 128,
		};
		struct fk_stacks into = { 0 }, gpu = { 0 };
		struct fk_stackfold_found found = { 0 };
		fk_stackfold_load_input(&in, &o, &into, op % 3 == 0 ? &gpu : NULL, &found, &d);
		fk_stacks_free(&into);
		fk_stacks_free(&gpu);
		fk_input_close(&in);
	}
	return 0;
}
