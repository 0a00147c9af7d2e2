/* fuzz_capture.c - libFuzzer harness: arbitrary bytes as a stackcap capture
 * (and as a torch raw memory timeline, and as perf script text), through
 * what the commands do with
 * them: chunk validation and resync, payload decoding, folding for every
 * metric with symbolization, the host heap as memory events, replay, and
 * the info summary. Crashes and sanitizer reports are findings.
 *
 * Build and run (clang): make fuzz
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "analysis/capture/model.h"
#include "analysis/mem/replay.h"
#include "analysis/stackfold/perf.h"
#include "analysis/mem/torch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_diag d;
	fk_diag_init(&d, "fuzz");
	d.quiet = true;
	int fd = memfd_create("capture", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	struct fk_capture c;
	if (fk_capture_load(path, "fuzz", &c, &d)) {
		for (int m = FK_METRIC_SELF_CPU; m <= FK_METRIC_ALLOC_COUNT; m++) {
			struct fk_stacks s = { 0 };
			struct fk_cap_fold_opts o = { .metric = m, .threads = m == 0 };
			fk_capture_fold(&c, &o, &s, &d);
			fk_stacks_free(&s);
		}
		struct fk_mem_timeline tl;
		fk_mem_init(&tl);
		if (fk_capture_memory(&c, 0, &tl, &d)) {
			struct fk_mem_report rep;
			size_t bad;
			fk_mem_sort(&tl, NULL);
			if (fk_mem_replay(&tl, &rep, NULL, NULL, &bad) == FK_MEM_REPLAY_OK)
				fk_mem_report_free(&rep);
		}
		fk_mem_free(&tl);
		FILE *null = fopen("/dev/null", "w");
		fk_capture_info(null, "fuzz", &c);
		fclose(null);
		fk_capture_free(&c);
	}
	struct fk_mem_timeline raw;
	fk_mem_init(&raw);
	fk_mem_read_torch_raw_path(path, "fuzz", &raw, &d);
	fk_mem_free(&raw);
	struct fk_stacks perf = { 0 };
	struct fk_perf_opts po = { .pid = size & 1, .tid = size & 2, .kernel = size & 4,
				   .jit = size & 8, .addrs = size & 16, .srcline = size & 32 };
	fk_perf_load(path, &po, &perf, &d);
	fk_stacks_free(&perf);
	close(fd);
	return 0;
}
