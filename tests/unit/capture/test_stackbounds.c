/* test_stackbounds.c - the main thread's stack bounds without
 * /proc/self/maps (capture/stackbounds.c), held against glibc's
 * pthread_getattr_np on this process: the same top, a bottom RLIMIT_STACK
 * below it (glibc's is higher by what lies above the top page's start:
 * the environment's strings, a few pages at most); no answer for an
 * address off the stack, for another thread or for an unlimited stack.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sys/resource.h>

#include "capture/stackbounds.h"

static void glibc_bounds(uintptr_t *lo, uintptr_t *hi)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;
	assert_int_equal(pthread_getattr_np(pthread_self(), &attr), 0);
	assert_int_equal(pthread_attr_getstack(&attr, &addr, &size), 0);
	pthread_attr_destroy(&attr);
	*lo = (uintptr_t)addr;
	*hi = (uintptr_t)addr + size;
}

static void test_as_glibc_says(void **state)
{
	(void)state;
	uintptr_t lo, hi, glibc_lo, glibc_hi;
	struct rlimit limit;
	assert_int_equal(getrlimit(RLIMIT_STACK, &limit), 0);
	assert_true(limit.rlim_cur != RLIM_INFINITY); /* the test's own condition */
	assert_true(main_stack_bounds((uintptr_t)__builtin_frame_address(0), &lo, &hi));
	glibc_bounds(&glibc_lo, &glibc_hi);
	assert_int_equal(hi, glibc_hi);
	assert_int_equal(hi - lo, limit.rlim_cur);
	assert_true(lo <= glibc_lo);
	assert_true(glibc_lo - lo < ((uintptr_t)1 << 20));
	uintptr_t here = (uintptr_t)__builtin_frame_address(0); /* not a local's: ASan may move those */
	assert_true(lo < here && here < hi);
}

static void test_not_off_the_stack(void **state)
{
	(void)state;
	static char not_stack[16];
	uintptr_t lo = 1, hi = 2;
	assert_false(main_stack_bounds((uintptr_t)not_stack, &lo, &hi));
	assert_false(main_stack_bounds(0, &lo, &hi)); /* far below: past the limit */
	assert_int_equal(lo, 1); /* untouched */
	assert_int_equal(hi, 2);
}

static void *on_a_thread(void *arg)
{
	uintptr_t lo, hi;
	*(bool *)arg = main_stack_bounds((uintptr_t)__builtin_frame_address(0), &lo, &hi);
	return NULL;
}

static void test_not_another_thread(void **state)
{
	(void)state;
	bool answered = true;
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, on_a_thread, &answered), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_false(answered);
}

static void test_not_unlimited(void **state)
{
	(void)state;
	struct rlimit old, unlimited;
	assert_int_equal(getrlimit(RLIMIT_STACK, &old), 0);
	if (old.rlim_max != RLIM_INFINITY)
		skip(); /* cannot raise it here */
	unlimited = (struct rlimit){ RLIM_INFINITY, RLIM_INFINITY };
	assert_int_equal(setrlimit(RLIMIT_STACK, &unlimited), 0);
	uintptr_t lo, hi;
	bool answered = main_stack_bounds((uintptr_t)__builtin_frame_address(0), &lo, &hi);
	assert_int_equal(setrlimit(RLIMIT_STACK, &old), 0);
	assert_false(answered);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_as_glibc_says),
		cmocka_unit_test(test_not_off_the_stack),
		cmocka_unit_test(test_not_another_thread),
		cmocka_unit_test(test_not_unlimited),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
