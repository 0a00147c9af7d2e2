/* sigmask.c - whether a thread blocked the sampling signal, known rather
 * than guessed. A signal delivered with more timer overruns than the
 * kernel's tick coalesces has two causes: the thread had the signal
 * blocked (its CPU time then went to code the signal never saw), or the
 * signal came late (a busy or virtualized machine accounts CPU time in
 * lumps). Only the first makes the extra time "[signal blocked]"; the
 * second is the interrupted stack's own time, as for any sample. The
 * program's pthread_sigmask and sigprocmask calls are interposed to tell
 * them apart: each call that leaves the sampling signal blocked is
 * counted in the thread's state, and on_sample (shim.c) splits a sample's
 * weight only when the count moved since the thread's last sample.
 *
 * Not seen: a raw rt_sigprocmask syscall, glibc's own short internal
 * blocks (thread creation, fork), and a handler of another signal whose
 * sa_mask holds ours. Their late time stays with the interrupted stack.
 */
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>

#include "capture/shim.h"

typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);
static mask_fn real_pthread_sigmask, real_sigprocmask;

/* Early, so that a call from a signal handler never has to run dlsym. */
__attribute__((constructor)) static void resolve_early(void)
{
	real_pthread_sigmask = (mask_fn)dlsym(RTLD_NEXT, "pthread_sigmask");
	real_sigprocmask = (mask_fn)dlsym(RTLD_NEXT, "sigprocmask");
}

/* Calls from inside the shim are not the program's: libunwind blocks
 * signals around its caches while on_sample unwinds (in_tracer), and the
 * writer's start blocks them around pthread_create (shim_guard). */
static void note(int how, const sigset_t *set)
{
	struct thread_state *ts = shim_thread;
	if (ts && !ts->in_tracer && !shim_guard && set && how != SIG_UNBLOCK &&
	    shim_cfg.signal > 0 && sigismember(set, shim_cfg.signal) == 1)
		ts->mask_blocks++;
}

int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (!real_pthread_sigmask)
		resolve_early();
	if (!real_pthread_sigmask)
		return ENOSYS;
	note(how, set);
	return real_pthread_sigmask(how, set, old);
}

int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (!real_sigprocmask)
		resolve_early();
	if (!real_sigprocmask) {
		errno = ENOSYS;
		return -1;
	}
	note(how, set);
	return real_sigprocmask(how, set, old);
}
