/* fuzz_common.h - what every harness shares: its output, a stream that
 * takes every byte and keeps none, and its AddressSanitizer defaults.
 * Header-only: each harness is a program of its own.
 */
#ifndef FK_FUZZ_COMMON_H
#define FK_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

/* Without a system call: writing to /dev/null costs a write(2) per
 * buffer, more than many runs. Made once per process; it holds no state a
 * run could leave behind. */
static ssize_t fuzz_null_write(void *cookie, const char *p, size_t n)
{
	(void)cookie;
	(void)p;
	return (ssize_t)n;
}

static FILE *fuzz_null(void)
{
	static FILE *null;
	if (!null) {
		null = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = fuzz_null_write });
		/* One buffer for the process: its bytes are dropped when it fills. */
		if (!null || setvbuf(null, NULL, _IOFBF, (size_t)64 << 10) != 0)
			abort();
	}
	return null;
}

/* ASan keeps freed memory out of use (its quarantine) to catch use after
 * free: 256 MiB by default, so every allocation of a run lands on memory
 * not touched for thousands of runs (a page fault, cache misses), which
 * cost a small input ten times its parsing. 10 MiB, as OSS-Fuzz and
 * ClusterFuzz run fuzzers, still holds the frees of many whole runs.
 * ASAN_OPTIONS in the environment still has the last word. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=10";
}

#endif
