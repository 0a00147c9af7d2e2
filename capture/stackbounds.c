/* stackbounds.c - the main thread's stack (see stackbounds.h).
 * pthread_getattr_np finds it by reading /proc/self/maps with stdio:
 * 0.2-0.4 ms of every capture's start on a VM, most of it first touches
 * of the pages of code that read it. */
#include "capture/stackbounds.h"

#include <sys/resource.h>
#include <unistd.h>

extern void *__libc_stack_end; /* the dynamic linker's, public */

bool main_stack_bounds(uintptr_t here, uintptr_t *lo, uintptr_t *hi)
{
	struct rlimit limit;
	long page = sysconf(_SC_PAGESIZE);
	if (!__libc_stack_end || page <= 0 || getrlimit(RLIMIT_STACK, &limit) != 0 ||
	    limit.rlim_cur == RLIM_INFINITY)
		return false;
	uintptr_t top = ((uintptr_t)__libc_stack_end + (uintptr_t)page) & ~((uintptr_t)page - 1);
	if (limit.rlim_cur >= top || here >= top || top - here >= limit.rlim_cur)
		return false;
	*lo = top - limit.rlim_cur;
	*hi = top;
	return true;
}
