/* onethread.h - whether the process has a single thread, by glibc's own
 * flag: the one its malloc trusts to skip its arena locks. While it holds,
 * no other thread can race an update of the shim's shared tables, so a
 * plain load and store do the work of a compare-and-swap without its
 * locked instruction (which waits for every store before it to drain:
 * four of them a sampled allocation and its free cost the malloc loop of
 * make bench about 0.5 % of its time). glibc clears the flag in
 * pthread_create before the new thread runs and never sets it again.
 *
 * A signal handler that updates the same table would still race the
 * interrupted update: none of the shim's does, and a program's handler
 * that allocates breaks glibc's malloc the same way.
 */
#ifndef STACKCAP_ONETHREAD_H
#define STACKCAP_ONETHREAD_H

#include <stdbool.h>
#include <sys/single_threaded.h>

static inline bool one_thread(void)
{
	return __libc_single_threaded;
}

#endif
