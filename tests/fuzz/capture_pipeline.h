/* capture_pipeline.h - what the commands do with a capture, for the
 * fuzzing harnesses: load, fold for a metric (with symbolization and GPU
 * attribution) or the host heap as memory events and its replay, and the
 * info summary. Header-only: each harness is a program of its own.
 */
#ifndef FK_FUZZ_CAPTURE_PIPELINE_H
#define FK_FUZZ_CAPTURE_PIPELINE_H

#include "analysis/capture/model.h"
#include "analysis/mem/replay.h"
#include "analysis/sym/symbolize.h"
#include "formats/input.h"
#include "fuzz_common.h"

/* One of the things the commands do with a capture, chosen by op (a byte
 * of the input): a fold for one metric (with options from other bits), the
 * host heap replayed as memory events, or the info summary. One per run,
 * not all of them: a run then costs a fraction, and libFuzzer's coverage
 * still reaches each as the byte mutates. */
static void fuzz_capture_pipeline(const void *data, size_t size, uint8_t op, struct fk_diag *d)
{
	struct fk_input in;
	if (!fk_input_open_memory(&in, "fuzz", data, size, d))
		return;
	struct fk_capture c;
	bool loaded = fk_capture_load_input(&in, &c, op & 0x80, d);
	fk_input_close(&in);
	if (!loaded)
		return;
	/* Frames are named "module+0x..." without opening the files a capture
	 * lists: those are this machine's files, not the input, and reading
	 * their symbols and DWARF (libdwfl) costs as much as thousands of runs. */
	const unsigned sym = FK_SYM_NO_FILES;
	const int nmetrics = FK_METRIC_GPU_ALLOC_BYTES + 1;
	const int which = op % (nmetrics + 2);
	if (which == nmetrics + 1) {
		fk_capture_info(fuzz_null(), "fuzz", &c);
	} else if (which < nmetrics) {
		struct fk_stacks s = { 0 };
		struct fk_cap_fold_opts o = { .metric = (enum fk_cap_metric)which,
					      .threads = op & 0x10, .nvtx = op & 0x20,
					      .no_kernel_frames = op & 0x40, .sym_flags = sym };
		fk_capture_fold(&c, &o, &s, d);
		fk_stacks_free(&s);
	} else {
		struct fk_mem_timeline tl;
		fk_mem_init(&tl);
		if (fk_capture_memory(&c, sym, &tl, d)) {
			struct fk_mem_report rep;
			size_t bad;
			fk_mem_sort(&tl, NULL);
			if (fk_mem_replay(&tl, &rep, NULL, NULL, &bad) == FK_MEM_REPLAY_OK)
				fk_mem_report_free(&rep);
		}
		fk_mem_free(&tl);
	}
	fk_capture_free(&c);
}

#endif
