/* launch.h - running a program under the capture shim: what `stackcap
 * PROGRAM ARGS` does once its options are parsed. The settings travel to
 * libstackcap.so as STACKCAP_* environment variables (the same ones
 * launchers such as torchrun can set themselves), the shim is preloaded,
 * and stackcap execs the program: it becomes the program, pid, signals and
 * exit status included.
 *
 * Owns: nothing; the options point at caller-owned strings.
 */
#ifndef FK_LAUNCH_H
#define FK_LAUNCH_H

#include <stdbool.h>

#include "formats/diag.h"

struct fk_launch_opts {
	char *const *argv;      /* PROGRAM and its arguments, NULL-terminated */
	const char *output;     /* NULL: PROGRAM.<pid>.stackcap */
	long hz;                /* CPU samples per second per thread (0: none) */
	bool alloc;             /* record host allocations */
	long alloc_sample;      /* 0: every allocation; else the Poisson mean, bytes */
	bool alloc_drop;        /* a full ring drops events instead of waiting */
	bool fp;                /* unwind with frame pointers, not libunwind */
	bool libunwind_only;    /* stacks by libunwind alone, not the shim's fast walk */
	bool follow;            /* capture programs PROGRAM executes */
	bool python;            /* Python frames in the stacks of a CPython process */
	/* Capture windows (formats/capwindow.h), as given (checked by the
	 * caller); NULL: not asked for. */
	const char *delay, *duration, *toggle_signal, *capture_range, *schedule, *step_marker;
	int toggle_sig;         /* the toggle signal: blocked until the shim's handler is in */
	const char *self;       /* how stackcap was called, for messages */
};

void fk_launch_opts_defaults(struct fk_launch_opts *o);

/* Runs the program in this process's place. Returns only when it cannot,
 * reported through d: FK_EXIT_USAGE when the shim or the capture's
 * directory is not usable, 127 when the program is not found, 126 when it
 * cannot be run. */
int fk_launch_run(const struct fk_launch_opts *o, struct fk_diag *d);

/* Runs stackcap-read (`stackcap info`, `stackcap export`) in this
 * process's place with argv (argv[0] becomes its path): found as
 * libstackcap.so is, or where STACKCAP_READ says. Returns only when it
 * cannot: 127 not found, 126 not run, said through d. */
int fk_launch_read(char **argv, struct fk_diag *d);

#endif
