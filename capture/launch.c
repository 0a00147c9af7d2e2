/* launch.c - a program run under the capture shim (see launch.h). */
#include "capture/launch.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/cli.h"

void fk_launch_opts_defaults(struct fk_launch_opts *o)
{
	*o = (struct fk_launch_opts){ .hz = 999, .follow = true, .python = true, .self = "stackcap" };
}

/* One of flamekit's files that stackcap needs (libstackcap.so,
 * stackcap-read): beside this binary, or in ../lib/flamekit (installed);
 * the file env names when it is set. */
static bool find_own_file(const char *file, const char *env, char *out, size_t n)
{
	const char *named = getenv(env);
	if (named && *named) {
		snprintf(out, n, "%s", named);
		return access(out, R_OK) == 0;
	}
	char self[PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	if (len <= 0)
		return false;
	self[len] = 0;
	const char *dir = dirname(self);
	snprintf(out, n, "%s/%s", dir, file);
	if (access(out, R_OK) == 0)
		return true;
	snprintf(out, n, "%s/../lib/flamekit/%s", dir, file);
	return access(out, R_OK) == 0;
}

int fk_launch_read(char **argv, struct fk_diag *d)
{
	char path[PATH_MAX];
	if (!find_own_file("stackcap-read", "STACKCAP_READ", path, sizeof path)) {
		const char *named = getenv("STACKCAP_READ");
		if (named && *named)
			fk_diag_error(d, "STACKCAP_READ=%s: %s", named, strerror(errno));
		else
			fk_diag_error(d, "stackcap-read not found beside %s or in ../lib/flamekit "
				      "(set STACKCAP_READ)", argv[0]);
		return 127;
	}
	argv[0] = path;
	execv(path, argv);
	fk_diag_error(d, "%s: %s", path, strerror(errno));
	return 126;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static bool set_env(const char *name, const char *value, struct fk_diag *d)
{
	if (setenv(name, value, 1) == 0)
		return true;
	fk_diag_error(d, "cannot set %s: %s", name, strerror(errno));
	return false;
}

static bool set_num(const char *name, long value, struct fk_diag *d)
{
	char num[32];
	snprintf(num, sizeof num, "%ld", value);
	return set_env(name, num, d);
}

/* The shim's settings, for this process's children. */
static bool set_settings(const struct fk_launch_opts *o, struct fk_diag *d)
{
	char out[PATH_MAX];
	if (o->output)
		snprintf(out, sizeof out, "%s", o->output);
	else
		snprintf(out, sizeof out, "%s.%%p.stackcap", base_name(o->argv[0]));
	return set_num("STACKCAP_HZ", o->hz, d) &&
	       set_env("STACKCAP_ALLOC", o->alloc ? "1" : "0", d) &&
	       set_env("STACKCAP_ALLOC_DROP", o->alloc_drop ? "1" : "0", d) &&
	       set_num("STACKCAP_ALLOC_SAMPLE", o->alloc_sample, d) &&
	       set_env("STACKCAP_UNWIND", o->fp ? "fp" : o->libunwind_only ? "libunwind" : "dwarf", d) &&
	       set_env("STACKCAP_FOLLOW", o->follow ? "1" : "0", d) &&
	       set_env("STACKCAP_PYTHON", o->python ? "1" : "0", d) &&
	       set_env("STACKCAP_DELAY", o->delay ? o->delay : "", d) &&
	       set_env("STACKCAP_DURATION", o->duration ? o->duration : "", d) &&
	       set_env("STACKCAP_TOGGLE_SIGNAL", o->toggle_signal ? o->toggle_signal : "", d) &&
	       set_env("STACKCAP_CAPTURE_RANGE", o->capture_range ? o->capture_range : "", d) &&
	       set_env("STACKCAP_SCHEDULE", o->schedule ? o->schedule : "", d) &&
	       set_env("STACKCAP_STEP_MARKER", o->step_marker ? o->step_marker : "", d) &&
	       set_env("STACKCAP_OUTPUT", out, d);
}

/* The capture's directory must take new files before the program runs:
 * the shim can only say "not capturing" once it is too late. */
static bool output_writable(const struct fk_launch_opts *o, struct fk_diag *d)
{
	char dir[PATH_MAX];
	const char *path = o->output ? o->output : "./";
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	if (access(dir, W_OK | X_OK) == 0)
		return true;
	fk_diag_error(d, "cannot write the capture %s: %s: %s (the program was not run)",
		      o->output ? o->output : "here", dir, strerror(errno));
	return false;
}

/* An executable regular file at path. */
static bool is_program(const char *path, struct stat *st)
{
	return stat(path, st) == 0 && S_ISREG(st->st_mode) && access(path, X_OK) == 0;
}

/* Says, as a shell would, why PROGRAM cannot run, before anything is
 * started: 0 when it can, else the shell's status (127 not found, 126
 * found but not runnable). execvp's own errno says "Permission denied"
 * for a directory. */
static int program_status(const char *prog, struct fk_diag *d)
{
	struct stat st;
	if (strchr(prog, '/')) {
		if (stat(prog, &st) != 0) {
			fk_diag_error(d, "%s: %s", prog, strerror(errno));
			return 127;
		}
		if (S_ISDIR(st.st_mode)) {
			fk_diag_error(d, "%s: is a directory, not a program", prog);
			return 126;
		}
		if (!is_program(prog, &st)) {
			fk_diag_error(d, "%s: not executable", prog);
			return 126;
		}
		return 0;
	}
	const char *path = getenv("PATH");
	for (const char *dir = path && *path ? path : "/bin:/usr/bin"; dir;) {
		const char *colon = strchr(dir, ':');
		int len = colon ? (int)(colon - dir) : (int)strlen(dir);
		char full[PATH_MAX];
		if (snprintf(full, sizeof full, "%.*s/%s", len ? len : 1, len ? dir : ".", prog) <
			    (int)sizeof full &&
		    is_program(full, &st))
			return 0;
		dir = colon ? colon + 1 : NULL;
	}
	if (stat(prog, &st) == 0 && S_ISDIR(st.st_mode))
		fk_diag_error(d, "%s: command not found (here, %s is a directory)", prog, prog);
	else if (stat(prog, &st) == 0)
		fk_diag_error(d, "%s: command not found in PATH (to run the one here: ./%s)", prog,
			      prog);
	else
		fk_diag_error(d, "%s: command not found", prog);
	return 127;
}

extern char **environ;

/* The program started as execvp would: a file the kernel will not run
 * (no #! line) is run by /bin/sh. 0, or the error. */
static int spawn(char *const *argv, pid_t *pid)
{
	int err = posix_spawnp(pid, argv[0], NULL, NULL, argv, environ);
	if (err != ENOEXEC)
		return err;
	size_t n = 0;
	while (argv[n])
		n++;
	char **sh = calloc(n + 2, sizeof *sh);
	if (!sh)
		return ENOMEM;
	sh[0] = "/bin/sh";
	memcpy(sh + 1, argv, (n + 1) * sizeof *sh);
	err = posix_spawn(pid, "/bin/sh", NULL, NULL, sh, environ);
	free(sh);
	return err;
}

/* The toggle signal sent to stackcap goes on to the program. */
static volatile sig_atomic_t forward_to;

static void forward(int sig)
{
	if (forward_to > 0)
		kill((pid_t)forward_to, sig);
}

int fk_launch_run(const struct fk_launch_opts *o, struct fk_diag *d)
{
	if (!output_writable(o, d))
		return FK_EXIT_USAGE;
	int status = program_status(o->argv[0], d);
	if (status != 0)
		return status;
	char shim[PATH_MAX];
	if (!find_own_file("libstackcap.so", "STACKCAP_LIB", shim, sizeof shim)) {
		fk_diag_error(d, "libstackcap.so not found beside %s or in ../lib/flamekit "
			      "(set STACKCAP_LIB)", o->self);
		return FK_EXIT_USAGE;
	}
	char preload[PATH_MAX + 64];
	const char *old = getenv("LD_PRELOAD");
	snprintf(preload, sizeof preload, "%s%s%s", shim, old && *old ? " " : "", old ? old : "");
	if (!set_settings(o, d))
		return FK_EXIT_USAGE;

	/* The shim knows the program stackcap started by its parent: -o FILE
	 * is that program's, and it alone replaces an old capture. */
	if (!set_num("STACKCAP_LAUNCHER_PID", (long)getpid(), d) ||
	    !set_env("STACKCAP_FRESH", "1", d) || !set_env("LD_PRELOAD", preload, d))
		return 127;

	/* The program starts with the toggle signal blocked (the mask goes
	 * through exec): the shim unblocks it once its handler is in, so an
	 * early signal cannot kill the program. */
	sigset_t toggle, old_mask;
	sigemptyset(&toggle);
	if (o->toggle_sig > 0)
		sigaddset(&toggle, o->toggle_sig);
	sigprocmask(SIG_BLOCK, &toggle, &old_mask);
	/* Spawned, not forked: no copy of this process's page tables, no
	 * page copied on a write before the exec (each first touch cost
	 * 10 us on a VM: a millisecond or more of a short capture). */
	pid_t pid;
	int err = spawn(o->argv, &pid);
	if (err != 0) {
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		fk_diag_error(d, "%s: %s", o->argv[0], strerror(err));
		return err == ENOENT ? 127 : 126;
	}
	if (o->toggle_sig > 0) {
		forward_to = pid;
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = forward;
		sa.sa_flags = SA_RESTART;
		sigaction(o->toggle_sig, &sa, NULL);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	/* Like system(): the terminal's ^C and ^\ are for the program. */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	char written[PATH_MAX + 32];
	if (o->output)
		snprintf(written, sizeof written, "%s", o->output);
	else
		snprintf(written, sizeof written, "%s.%d.stackcap", base_name(o->argv[0]), (int)pid);
	if (access(written, F_OK) == 0)
		fk_diag_note(d, "wrote %s", written);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
