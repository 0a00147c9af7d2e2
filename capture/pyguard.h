/* pyguard.h - the Python walk's fault guard (pyguard.c): a thread arms it
 * with a jump buffer around reads of interpreter memory; a SIGSEGV or
 * SIGBUS then jumps back instead of killing the program.
 *
 * Owns: the process's SIGSEGV/SIGBUS disposition once installed (the
 * program's handlers are kept and chained).
 */
#ifndef STACKCAP_PYGUARD_H
#define STACKCAP_PYGUARD_H

#include <setjmp.h>
#include <stdbool.h>

#include "capture/shim.h"

/* Non-NULL while this thread reads interpreter memory. */
extern SHIM_TLS sigjmp_buf *volatile py_guard_jmp;

/* Installs the handler (once; false when it cannot). The program's own
 * handlers for the two signals, set before or after, are called for
 * faults that are not the walk's. */
bool py_guard_install(void);

#endif
