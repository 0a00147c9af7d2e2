/* capwindow.h - capture windows: which part of a run stackcap records.
 * The spec of --delay, --duration, --toggle-signal, --capture-range and
 * --schedule (or their STACKCAP_* environment variables), parsed the same
 * way by the launcher (usage errors) and by the shim (its constructor);
 * its one-line text for the capture's META `window`; and torch.profiler's
 * step schedule (wait, warmup, active, repeat, skip_first).
 *
 * Owns: nothing; pure functions, no allocation, async-signal-safe.
 */
#ifndef FK_CAPWINDOW_H
#define FK_CAPWINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What opens and closes the window, besides --delay and --duration. */
enum fk_win_trigger {
	FK_WIN_ALWAYS = 0,    /* nothing: open from the delay to the duration */
	FK_WIN_TOGGLE,        /* each toggle signal opens or closes it; starts closed */
	FK_WIN_NVTX,          /* open while a matching NVTX range is open, on any thread */
	FK_WIN_CUDA_PROFILER, /* open between cudaProfilerStart and cudaProfilerStop */
	FK_WIN_SCHEDULE,      /* open during the active steps of a schedule */
};

struct fk_win_schedule { /* torch.profiler.schedule's arguments */
	uint64_t skip_first, wait, warmup, active;
	uint64_t repeat; /* 0: cycles forever */
};

#define FK_WIN_PATTERN_MAX 256
#define FK_WIN_DEFAULT_STEP "ProfilerStep#*"

struct fk_win_spec {
	double delay_s;        /* nothing before this, from the process's start */
	double duration_s;     /* nothing after delay + this; 0: no end */
	int signal;            /* FK_WIN_TOGGLE: the signal */
	enum fk_win_trigger trigger;
	/* FK_WIN_NVTX: the range names (a glob); FK_WIN_SCHEDULE: the step
	 * marker, an NVTX range name glob (default FK_WIN_DEFAULT_STEP). */
	char pattern[FK_WIN_PATTERN_MAX];
	struct fk_win_schedule schedule;
};

/* No window: everything recorded, as without these options. */
void fk_win_spec_init(struct fk_win_spec *w);
/* Whether w asks for any window (then the capture records its windows). */
bool fk_win_spec_any(const struct fk_win_spec *w);

/* Seconds: a decimal number >= 0 (fractions allowed), at most 10^7. */
bool fk_win_seconds(const char *s, double *out);
/* A signal that can toggle a capture: a number, or a name with or without
 * SIG ("USR1", "SIGUSR2", "RTMIN+3"); 0 when s is none, or one that cannot
 * be taken from a program (KILL, STOP, faults, SIGCHLD, job control). */
int fk_win_signal(const char *s);
/* "nvtx:PATTERN" or "cuda-profiler-api" into w's trigger and pattern. */
bool fk_win_range(const char *s, struct fk_win_spec *w);
/* "wait=N,warmup=N,active=N,repeat=N[,skip_first=N]" (any order, each at
 * most once, active >= 1; the others default to 0) into *out. */
bool fk_win_schedule_parse(const char *s, struct fk_win_schedule *out);
/* A step-marker pattern: 1 to FK_WIN_PATTERN_MAX - 1 bytes. */
bool fk_win_pattern(const char *s, char *out);

/* What torch.profiler.schedule does at step `step` (0-based, counted after
 * nothing): skipped, waiting and warming up record nothing. */
enum fk_win_action { FK_WIN_STEP_NONE, FK_WIN_STEP_WARMUP, FK_WIN_STEP_RECORD };
enum fk_win_action fk_win_schedule_action(const struct fk_win_schedule *s, uint64_t step);

/* w in one line ("delay 0.5 s, duration 2 s, toggle SIGUSR1"), into buf;
 * returns its length (cut to n - 1). */
size_t fk_win_describe(const struct fk_win_spec *w, char *buf, size_t n);

#endif
