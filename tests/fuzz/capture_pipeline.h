/* capture_pipeline.h - what the commands do with a capture, for the
 * fuzzing harnesses: load, fold for every metric (with symbolization and
 * GPU attribution), the host heap as memory events and its replay, and
 * the info summary. Header-only: each harness is a program of its own.
 */
#ifndef FK_FUZZ_CAPTURE_PIPELINE_H
#define FK_FUZZ_CAPTURE_PIPELINE_H

#include "analysis/capture/model.h"
#include "analysis/mem/replay.h"
#include "analysis/sym/symbolize.h"
#include "formats/input.h"
#include "fuzz_common.h"

static void fuzz_capture_pipeline(const void *data, size_t size, struct fk_diag *d)
{
	struct fk_input in;
	if (!fk_input_open_memory(&in, "fuzz", data, size, d))
		return;
	struct fk_capture c;
	bool loaded = fk_capture_load_input(&in, &c, size & 1, d);
	fk_input_close(&in);
	if (!loaded)
		return;
	/* Frames are named "module+0x..." without opening the files a capture
	 * lists: those are this machine's files, not the input, and reading
	 * their symbols and DWARF (libdwfl) costs as much as thousands of runs. */
	const unsigned sym = FK_SYM_NO_FILES;
	for (int m = FK_METRIC_SELF_CPU; m <= FK_METRIC_GPU_ALLOC_BYTES; m++) {
		struct fk_stacks s = { 0 };
		struct fk_cap_fold_opts o = { .metric = (enum fk_cap_metric)m, .threads = m == 0,
					      .nvtx = (size & 1) && m == 0,
					      .no_kernel_frames = size & 2, .sym_flags = sym };
		fk_capture_fold(&c, &o, &s, d);
		fk_stacks_free(&s);
	}
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
	fk_capture_info(fuzz_null(), "fuzz", &c);
	fk_capture_free(&c);
}

#endif
