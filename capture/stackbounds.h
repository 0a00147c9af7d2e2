/* stackbounds.h - the main thread's stack, found without reading
 * /proc/self/maps: the bounds the unwinders check the frames they read
 * against (shim.h: thread_state's stack_lo, stack_hi).
 */
#ifndef STACKCAP_STACKBOUNDS_H
#define STACKCAP_STACKBOUNDS_H

#include <stdbool.h>
#include <stdint.h>

/* The bounds of the process's initial stack when `here`, an address on
 * the caller's stack, lies on it and RLIMIT_STACK is finite: hi is the
 * end of the page holding __libc_stack_end (the stack pointer the program
 * started with: every frame lies below it), as pthread_getattr_np gives
 * it; lo is RLIMIT_STACK below hi, as far as the stack may grow (glibc
 * counts the limit from the true top, above the environment's strings:
 * its lo is that much higher). False otherwise (another thread's stack,
 * an unlimited one): pthread_getattr_np's answer then. */
bool main_stack_bounds(uintptr_t here, uintptr_t *lo, uintptr_t *hi);

#endif
