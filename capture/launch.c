/* launch.c - a program run under the capture shim (see launch.h). */
#include "capture/launch.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
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

/* Finds PROGRAM as execvp would (in PATH unless it has a slash) and puts
 * the file to run in path; else says, as a shell would, why it cannot run:
 * 0 when it can, else the shell's status (127 not found, 126 found but not
 * runnable). execvp's own errno says "Permission denied" for a directory. */
static int find_program(const char *prog, char *path, size_t n, struct fk_diag *d)
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
		if (snprintf(path, n, "%s", prog) >= (int)n) {
			fk_diag_error(d, "%s: %s", prog, strerror(ENAMETOOLONG));
			return 127;
		}
		return 0;
	}
	const char *env_path = getenv("PATH");
	for (const char *dir = env_path && *env_path ? env_path : "/bin:/usr/bin"; dir;) {
		const char *colon = strchr(dir, ':');
		int len = colon ? (int)(colon - dir) : (int)strlen(dir);
		if (snprintf(path, n, "%.*s/%s", len ? len : 1, len ? dir : ".", prog) < (int)n &&
		    is_program(path, &st))
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

/* Runs the program at path with argv; one that is not a binary and has
 * no #! line is a shell script to /bin/sh, as execvp and shells have it
 * (musl's execvp does not). Returns only on failure, with errno set. */
static void run_program(const char *path, char *const *argv)
{
	execv(path, argv);
	if (errno != ENOEXEC)
		return;
	size_t argc = 0;
	while (argv[argc])
		argc++;
	char **sh = calloc(argc + 2, sizeof *sh);
	if (!sh) {
		errno = ENOEXEC;
		return;
	}
	sh[0] = "/bin/sh";
	sh[1] = (char *)path;
	for (size_t i = 1; i < argc; i++)
		sh[i + 1] = argv[i];
	execv(sh[0], sh);
	free(sh);
	errno = ENOEXEC;
}

/* Blocks signal sig (0: none) as the program will number it, and returns
 * the mask before. The kernel's call, not sigprocmask: a launcher built
 * on musl would refuse signals 32-34 (musl's own), and glibc programs'
 * first real-time signals are 34 and up. */
static uint64_t block_for_program(int sig)
{
	uint64_t mask = sig > 0 && sig <= 64 ? (uint64_t)1 << (sig - 1) : 0, old = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &mask, &old, sizeof mask);
	return old;
}

int fk_launch_run(const struct fk_launch_opts *o, struct fk_diag *d)
{
	if (!output_writable(o, d))
		return FK_EXIT_USAGE;
	char program[PATH_MAX];
	int status = find_program(o->argv[0], program, sizeof program, d);
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

	/* The shim knows the program stackcap started by its pid, which is
	 * stackcap's own: -o FILE is that program's, and it alone replaces an
	 * old capture. */
	if (!set_num("STACKCAP_LAUNCHER_PID", (long)getpid(), d) ||
	    !set_env("STACKCAP_FRESH", "1", d) || !set_env("LD_PRELOAD", preload, d))
		return 127;

	/* The program starts with the toggle signal blocked (the mask goes
	 * through exec): the shim unblocks it once its handler is in, so an
	 * early signal cannot kill the program. */
	uint64_t old_mask = block_for_program(o->toggle_sig);
	/* stackcap becomes the program, as env and nice do: its pid, signals
	 * and exit status are the program's own, and no second process is
	 * made and torn down (3 ms of every capture on a VM that shadows page
	 * tables). The shim says "wrote FILE" when it finishes the capture. */
	run_program(program, o->argv);
	int err = errno;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old_mask, NULL, sizeof old_mask);
	fk_diag_error(d, "%s: %s", o->argv[0], strerror(err));
	return err == ENOENT ? 127 : 126;
}
