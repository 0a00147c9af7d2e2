/* togglesig.c - the toggle signal (--toggle-signal): the shim takes it
 * from the program. Its handler opens or closes the window at once (an
 * atomic update) and leaves the edge for the writer to record.
 *
 * The program must never see the signal, even when it installs a handler
 * for it later: sigaction() and signal() are interposed for that one
 * signal (the interposers are pyguard.c's, which ask togglesig_owns). The
 * program's calls succeed and are remembered (a later call
 * returns what it set before), but the shim's handler stays in place, so
 * the program's own handler for that signal is never called while it is
 * captured. Other ways of setting a handler (sigset, sysv_signal, a raw
 * rt_sigaction system call) are not covered: use a signal the program
 * does not use. The stackcap launcher starts the program with the signal
 * blocked, and the shim unblocks it once its handler is in place, so a
 * signal sent early cannot kill the program.
 */
#include <dlfcn.h>
#include <signal.h>
#include <string.h>

#include "capture/shim.h"
#include "capture/window.h"

static int taken;                   /* the signal, once the shim holds it */
static struct sigaction program_sa; /* what the program set for it (SIG_DFL at first) */

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static sigaction_fn real_sigaction(void)
{
	static sigaction_fn real;
	if (!real)
		real = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	return real;
}

static void on_toggle(int sig)
{
	(void)sig;
	win_toggle();
}

void win_take_signal(void)
{
	if (win_spec.trigger != FK_WIN_TOGGLE || !real_sigaction())
		return;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_toggle;
	sa.sa_flags = SA_RESTART;
	sigfillset(&sa.sa_mask);
	if (real_sigaction()(win_spec.signal, &sa, &program_sa) != 0)
		return;
	taken = win_spec.signal;
	sigset_t one;
	sigemptyset(&one);
	sigaddset(&one, taken);
	pthread_sigmask(SIG_UNBLOCK, &one, NULL);
}

bool togglesig_owns(int sig)
{
	return taken && sig == taken;
}

void togglesig_swap(const struct sigaction *act, struct sigaction *old)
{
	struct sigaction before = program_sa;
	if (act)
		program_sa = *act;
	if (old)
		*old = before;
}
