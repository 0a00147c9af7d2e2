/* pyguard.c - the fault guard of the Python walk. Interpreter frames can
 * be half pushed or popped when a signal lands, and a code object freed
 * under a hook: the walk reads with a per-thread jump buffer armed, and a
 * SIGSEGV/SIGBUS handler jumps back to it (the walk then counts the fault
 * and keeps native frames only). Any other fault goes on to the handler
 * the program set (faulthandler, which pytest enables; a JVM; a crash
 * reporter) or to the default action, so crashes still crash, with their
 * core. Programs that set their handler after ours (Python's faulthandler
 * is enabled late) reach the interposed sigaction/signal below: their
 * handler is kept as the one to chain to, and ours stays first. The same
 * interposers keep the toggle signal of a capture window from the program
 * (capture/togglesig.c).
 *
 * Limits: a handler set with a raw rt_sigaction syscall, or with sigset,
 * sysv_signal or bsd_signal, replaces ours (the walk then faults into the
 * program's handler); sigaction calls racing the installation itself
 * (once, at detection) may be lost.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include "capture/pyguard.h"
#include "capture/window.h"

SHIM_TLS sigjmp_buf *volatile py_guard_jmp;

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);
static sigaction_fn real_sigaction;
static signal_fn real_signal;
static _Atomic int installed;
static struct sigaction theirs[2]; /* SIGSEGV, SIGBUS: the program's handlers */

static int slot(int sig)
{
	return sig == SIGSEGV ? 0 : sig == SIGBUS ? 1 : -1;
}

static bool resolve(void)
{
	if (!real_sigaction)
		real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	if (!real_signal)
		real_signal = (signal_fn)dlsym(RTLD_NEXT, "signal");
	return real_sigaction && real_signal;
}

/* Early, so that a sigaction called from a signal handler never has to
 * run dlsym. */
__attribute__((constructor)) static void resolve_early(void)
{
	resolve();
}

/* A fault that is not the walk's: what the program asked for. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	int i = sig == SIGBUS;
	struct sigaction h = theirs[i];
	if (h.sa_flags & SA_RESETHAND) {
		memset(&theirs[i], 0, sizeof theirs[0]);
		theirs[i].sa_handler = SIG_DFL;
	}
	bool has_fn = (h.sa_flags & SA_SIGINFO) ? h.sa_sigaction != NULL
						: h.sa_handler != SIG_DFL && h.sa_handler != SIG_IGN;
	if (!has_fn) {
		/* The default action (an ignored fault is fatal too): a fault
		 * happens again as we return, a sent signal is sent again. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof dfl);
		dfl.sa_handler = SIG_DFL;
		real_sigaction(sig, &dfl, NULL);
		if (si->si_code <= 0)
			raise(sig);
		return;
	}
	sigset_t old;
	pthread_sigmask(SIG_BLOCK, &h.sa_mask, &old);
	if (h.sa_flags & SA_SIGINFO)
		h.sa_sigaction(sig, si, uc);
	else
		h.sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
	sigjmp_buf *jb = py_guard_jmp;
	if (jb) {
		py_guard_jmp = NULL;
		siglongjmp(*jb, 1);
	}
	chain(sig, si, uc);
}

bool py_guard_install(void)
{
	if (atomic_load(&installed))
		return true;
	if (!resolve())
		return false;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_fault;
	/* NODEFER: the jump leaves the handler without unblocking the signal. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (real_sigaction(SIGSEGV, NULL, &theirs[0]) != 0 ||
	    real_sigaction(SIGBUS, NULL, &theirs[1]) != 0)
		return false;
	if (real_sigaction(SIGSEGV, &sa, NULL) != 0)
		return false;
	if (real_sigaction(SIGBUS, &sa, NULL) != 0) {
		real_sigaction(SIGSEGV, &theirs[0], NULL);
		return false;
	}
	atomic_store(&installed, 1);
	return true;
}

/* ---- the program's calls for SIGSEGV and SIGBUS, once ours is in ---- */

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!resolve()) {
		errno = ENOSYS;
		return -1;
	}
	if (togglesig_owns(sig)) {
		togglesig_swap(act, old);
		return 0;
	}
	int i = slot(sig);
	if (i < 0 || !atomic_load(&installed))
		return real_sigaction(sig, act, old);
	struct sigaction prev = theirs[i];
	if (act)
		theirs[i] = *act;
	if (old)
		*old = prev;
	return 0;
}

sighandler_t signal(int sig, sighandler_t handler)
{
	if (!resolve()) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	if ((slot(sig) < 0 || !atomic_load(&installed)) && !togglesig_owns(sig))
		return real_signal(sig, handler);
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART; /* glibc's signal(): BSD semantics */
	sigemptyset(&sa.sa_mask);
	if (sig > 0 && sig < NSIG && sig != SIGKILL && sig != SIGSTOP)
		sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old) != 0)
		return SIG_ERR;
	return old.sa_handler; /* sa_sigaction's bits, too: they share a union */
}
