/* capwindow.c - capture window specs (see capwindow.h). */
#include "formats/capwindow.h"

#include <ctype.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fk_win_spec_init(struct fk_win_spec *w)
{
	memset(w, 0, sizeof *w);
}

bool fk_win_spec_any(const struct fk_win_spec *w)
{
	return w->delay_s > 0 || w->duration_s > 0 || w->trigger != FK_WIN_ALWAYS;
}

bool fk_win_seconds(const char *s, double *out)
{
	if (!s || !*s || isspace((unsigned char)*s) || *s == '-' || *s == '+')
		return false;
	char *end;
	double v = strtod(s, &end);
	if (*end || !isfinite(v) || v < 0 || v > 1e7)
		return false;
	/* strtod takes hex, inf and nan: seconds are plain decimals. */
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p) && *p != '.')
			return false;
	*out = v;
	return true;
}

/* A decimal in [lo, hi] filling s[0..len), else -1. */
static long small_number(const char *s, size_t len, long lo, long hi)
{
	if (len == 0 || len > 6)
		return -1;
	long v = 0;
	for (size_t i = 0; i < len; i++) {
		if (!isdigit((unsigned char)s[i]))
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v >= lo && v <= hi ? v : -1;
}

/* The real-time signals as the programs stackcap runs number them: the
 * shim lives in glibc programs, whose SIGRTMIN is 34 (glibc keeps 32 and
 * 33 for itself). The launcher may be built on musl, whose own SIGRTMIN
 * is 35: it must block and name the signal the shim will catch. */
#define PROGRAM_SIGRTMIN 34
#define PROGRAM_SIGRTMAX 64

/* The short names of the standard signals (what glibc's sigabbrev_np
 * gives, which musl lacks). */
static const char *const signal_names[32] = {
	[SIGHUP] = "HUP", [SIGINT] = "INT", [SIGQUIT] = "QUIT", [SIGILL] = "ILL",
	[SIGTRAP] = "TRAP", [SIGABRT] = "ABRT", [SIGBUS] = "BUS", [SIGFPE] = "FPE",
	[SIGKILL] = "KILL", [SIGUSR1] = "USR1", [SIGSEGV] = "SEGV", [SIGUSR2] = "USR2",
	[SIGPIPE] = "PIPE", [SIGALRM] = "ALRM", [SIGTERM] = "TERM", [SIGSTKFLT] = "STKFLT",
	[SIGCHLD] = "CHLD", [SIGCONT] = "CONT", [SIGSTOP] = "STOP", [SIGTSTP] = "TSTP",
	[SIGTTIN] = "TTIN", [SIGTTOU] = "TTOU", [SIGURG] = "URG", [SIGXCPU] = "XCPU",
	[SIGXFSZ] = "XFSZ", [SIGVTALRM] = "VTALRM", [SIGPROF] = "PROF", [SIGWINCH] = "WINCH",
	[SIGIO] = "IO", [SIGPWR] = "PWR", [SIGSYS] = "SYS",
};

static const char *signal_name(int sig)
{
	return sig > 0 && sig < 32 ? signal_names[sig] : NULL;
}

/* Signals a program cannot lose: faults, the uncatchable, job control,
 * SIGCHLD (every child's exit would toggle), and glibc's own real-time ones. */
static bool can_toggle(int sig)
{
	switch (sig) {
	case SIGKILL: case SIGSTOP: case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL:
	case SIGTRAP: case SIGSYS: case SIGABRT: case SIGCHLD: case SIGCONT: case SIGTSTP:
	case SIGTTIN: case SIGTTOU:
		return false;
	}
	return sig > 0 && sig <= PROGRAM_SIGRTMAX && (sig < 32 || sig >= PROGRAM_SIGRTMIN);
}

int fk_win_signal(const char *s)
{
	if (!s || !*s)
		return 0;
	long n = small_number(s, strlen(s), 1, PROGRAM_SIGRTMAX);
	if (n > 0)
		return can_toggle((int)n) ? (int)n : 0;
	const char *name = strncasecmp(s, "SIG", 3) == 0 ? s + 3 : s;
	int sig = 0;
	if (strncasecmp(name, "RTMIN+", 6) == 0 || strncasecmp(name, "RTMAX-", 6) == 0) {
		long k = small_number(name + 6, strlen(name + 6), 0, PROGRAM_SIGRTMAX - PROGRAM_SIGRTMIN);
		if (k >= 0)
			sig = toupper((unsigned char)name[2]) == 'M' && toupper((unsigned char)name[3]) == 'I'
				      ? PROGRAM_SIGRTMIN + (int)k : PROGRAM_SIGRTMAX - (int)k;
	} else if (strcasecmp(name, "RTMIN") == 0) {
		sig = PROGRAM_SIGRTMIN;
	} else if (strcasecmp(name, "RTMAX") == 0) {
		sig = PROGRAM_SIGRTMAX;
	} else {
		for (int i = 1; i < 32 && !sig; i++) {
			const char *abbrev = signal_name(i);
			if (abbrev && strcasecmp(abbrev, name) == 0)
				sig = i;
		}
	}
	return can_toggle(sig) ? sig : 0;
}

bool fk_win_pattern(const char *s, char *out)
{
	size_t len = s ? strlen(s) : 0;
	if (len == 0 || len >= FK_WIN_PATTERN_MAX)
		return false;
	memcpy(out, s, len + 1);
	return true;
}

bool fk_win_range(const char *s, struct fk_win_spec *w)
{
	if (s && strcmp(s, "cuda-profiler-api") == 0) {
		w->trigger = FK_WIN_CUDA_PROFILER;
		return true;
	}
	if (s && strncmp(s, "nvtx:", 5) == 0 && fk_win_pattern(s + 5, w->pattern)) {
		w->trigger = FK_WIN_NVTX;
		return true;
	}
	return false;
}

bool fk_win_schedule_parse(const char *s, struct fk_win_schedule *out)
{
	static const char *const keys[] = { "skip_first", "wait", "warmup", "active", "repeat" };
	uint64_t v[5] = { 0 };
	bool seen[5] = { false };
	if (!s || !*s)
		return false;
	for (const char *p = s; *p;) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);
		if (!eq)
			return false;
		size_t k = 0;
		while (k < 5 && !(strlen(keys[k]) == (size_t)(eq - p) && !memcmp(p, keys[k], (size_t)(eq - p))))
			k++;
		long n = small_number(eq + 1, len - (size_t)(eq + 1 - p), 0, 999999);
		if (k == 5 || seen[k] || n < 0)
			return false;
		seen[k] = true;
		v[k] = (uint64_t)n;
		p += len;
		if (*p == ',' && !*++p)
			return false; /* a trailing comma */
	}
	if (v[3] == 0)
		return false;
	*out = (struct fk_win_schedule){ v[0], v[1], v[2], v[3], v[4] };
	return true;
}

enum fk_win_action fk_win_schedule_action(const struct fk_win_schedule *s, uint64_t step)
{
	if (step < s->skip_first)
		return FK_WIN_STEP_NONE;
	step -= s->skip_first;
	uint64_t cycle = s->wait + s->warmup + s->active;
	if (cycle == 0 || (s->repeat > 0 && step / cycle >= s->repeat))
		return FK_WIN_STEP_NONE;
	uint64_t at = step % cycle;
	if (at < s->wait)
		return FK_WIN_STEP_NONE;
	return at < s->wait + s->warmup ? FK_WIN_STEP_WARMUP : FK_WIN_STEP_RECORD;
}

/* Appends to buf at *k, cut at n - 1. */
static void put(char *buf, size_t n, size_t *k, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t n, size_t *k, const char *fmt, ...)
{
	if (*k + 1 >= n)
		return;
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(buf + *k, n - *k, fmt, ap);
	va_end(ap);
	if (m > 0)
		*k = *k + (size_t)m < n ? *k + (size_t)m : n - 1;
}

size_t fk_win_describe(const struct fk_win_spec *w, char *buf, size_t n)
{
	size_t k = 0;
	if (n == 0)
		return 0;
	buf[0] = 0;
	const char *sep = "";
	if (w->delay_s > 0) {
		put(buf, n, &k, "delay %g s", w->delay_s);
		sep = ", ";
	}
	if (w->duration_s > 0) {
		put(buf, n, &k, "%sduration %g s", sep, w->duration_s);
		sep = ", ";
	}
	const struct fk_win_schedule *s = &w->schedule;
	switch (w->trigger) {
	case FK_WIN_ALWAYS:
		if (!*sep)
			put(buf, n, &k, "whole run");
		break;
	case FK_WIN_TOGGLE: {
		const char *abbrev = signal_name(w->signal);
		if (abbrev)
			put(buf, n, &k, "%stoggle-signal SIG%s (starts paused)", sep, abbrev);
		else
			put(buf, n, &k, "%stoggle-signal %d (starts paused)", sep, w->signal);
		break;
	}
	case FK_WIN_NVTX:
		put(buf, n, &k, "%scapture-range nvtx:%s", sep, w->pattern);
		break;
	case FK_WIN_CUDA_PROFILER:
		put(buf, n, &k, "%scapture-range cuda-profiler-api", sep);
		break;
	case FK_WIN_SCHEDULE:
		put(buf, n, &k, "%sschedule skip_first=%llu,wait=%llu,warmup=%llu,active=%llu,repeat=%llu "
		    "over NVTX ranges %s", sep, (unsigned long long)s->skip_first,
		    (unsigned long long)s->wait, (unsigned long long)s->warmup,
		    (unsigned long long)s->active, (unsigned long long)s->repeat, w->pattern);
		break;
	}
	return k;
}
