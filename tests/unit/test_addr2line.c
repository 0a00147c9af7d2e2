/* test_addr2line.c - analysis/addr2line.h on this test's own executable:
 * a function's name, file and line; an inlined function with the function
 * it was inlined into and the call's line; a C function with an assembler
 * name that is a C++ mangled name (linkage name preferred, demangled); an
 * address in no section; nm lookups; files that are missing, not ordinary
 * or not ELF. Addresses are file addresses (runtime minus load base), as
 * perf script prints them and addr2line takes them.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <limits.h>
#include <unistd.h>

#include "analysis/sym/addr2line.h"
#include "scratch_dir.h"

static void *volatile g_ret;     /* a return address inside a2l_inlined */
static volatile int g_ret_line;  /* its line */
static volatile int g_call_line; /* where a2l_outer calls a2l_inlined */

static __attribute__((noinline)) void *return_address(void)
{
	__asm__ volatile("");
	return __builtin_return_address(0);
}

static const int target_first = __LINE__;
static __attribute__((noinline)) int a2l_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}
static const int target_last = __LINE__;

static inline __attribute__((always_inline)) void a2l_inlined(void)
{
	g_ret_line = __LINE__; g_ret = return_address();
}

static __attribute__((noinline)) void a2l_outer(void)
{
	g_call_line = __LINE__; a2l_inlined();
	__asm__ volatile("" ::: "memory");
}

/* A C function whose symbol is a mangled C++ name: DWARF gives it as the
 * linkage name, which wins over DW_AT_name and is demangled. */
int a2l_mangled(int x) __asm__("_ZN2ns6mangleEi");
__attribute__((noinline)) int a2l_mangled(int x)
{
	__asm__ volatile("" ::: "memory");
	return x - 1;
}

static int (*volatile target_ptr)(int) = a2l_target;
static int (*volatile mangled_ptr)(int) = a2l_mangled;

static char exe[PATH_MAX];

/* The file address of code at p in this executable. */
static uint64_t file_addr(const void *p)
{
	Dl_info info;
	assert_true(dladdr(p, &info) != 0);
	return (uint64_t)((uintptr_t)p - (uintptr_t)info.dli_fbase);
}

static int setup(void **state)
{
	(void)state;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	a2l_outer();
	(void)target_ptr(1);
	(void)mangled_ptr(1);
	return scratch_make("fk_a2l");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

static void test_function_file_line(void **state)
{
	(void)state;
	struct fk_a2l *a = fk_a2l_new();
	const char *why = NULL;
	char *t = fk_a2l_text(a, exe, file_addr((const void *)(uintptr_t)a2l_target) + 1, &why);
	assert_non_null(t);
	int line = 0;
	assert_int_equal(sscanf(t, "a2l_target\ntest_addr2line.c:%d\n", &line), 1);
	assert_in_range(line, target_first, target_last);
	int lines = 0; /* one frame: two lines */
	for (const char *p = t; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 2);
	free(t);
	fk_a2l_free(a);
}

static void test_inlined_chain(void **state)
{
	(void)state;
	struct fk_a2l *a = fk_a2l_new();
	const char *why = NULL;
	/* ret - 1: inside the call instruction, on the inlined line */
	char *t = fk_a2l_text(a, exe, file_addr(g_ret) - 1, &why);
	assert_non_null(t);
	char want[256];
	snprintf(want, sizeof want, "a2l_inlined\ntest_addr2line.c:%d\na2l_outer\ntest_addr2line.c:%d\n",
		 g_ret_line, g_call_line);
	assert_string_equal(t, want);
	free(t);
	fk_a2l_free(a);
}

static void test_linkage_name_demangled(void **state)
{
	(void)state;
	struct fk_a2l *a = fk_a2l_new();
	const char *why = NULL;
	char *t = fk_a2l_text(a, exe, file_addr((const void *)(uintptr_t)a2l_mangled) + 1, &why);
	assert_non_null(t);
	assert_true(strncmp(t, "ns::mangle(int)\ntest_addr2line.c:", 33) == 0);
	free(t);
	fk_a2l_free(a);
}

static void test_nowhere(void **state)
{
	(void)state;
	struct fk_a2l *a = fk_a2l_new();
	const char *why = NULL;
	char *t = fk_a2l_text(a, exe, 1, &why); /* below every section */
	assert_string_equal(t, "??\n??:0\n");
	free(t);
	t = fk_a2l_text(a, exe, UINT64_MAX - 16, &why);
	assert_string_equal(t, "??\n??:0\n");
	free(t);
	fk_a2l_free(a);
}

static void test_nm(void **state)
{
	(void)state;
	struct fk_a2l *a = fk_a2l_new();
	uint64_t v = 0;
	assert_true(fk_a2l_nm(a, exe, "a2l_target", &v));
	assert_int_equal(v, file_addr((const void *)(uintptr_t)a2l_target));
	assert_true(fk_a2l_nm(a, exe, "_ZN2ns6mangleEi", &v));
	assert_false(fk_a2l_nm(a, exe, "ns::mangle(int)", &v)); /* nm shows raw names */
	assert_false(fk_a2l_nm(a, exe, "_test_cmocka_no_such_symbol", &v));
	assert_false(fk_a2l_nm(a, exe, "dwfl_begin", &v)); /* libdw's: undefined here, no value */
	fk_a2l_free(a);
}

static void test_unreadable_files(void **state)
{
	(void)state;
	struct fk_a2l *a = fk_a2l_new();
	const char *why = NULL;
	uint64_t v;
	assert_null(fk_a2l_text(a, path_of("missing"), 0x1000, &why));
	assert_string_equal(why, "no such file");
	assert_false(fk_a2l_nm(a, path_of("missing"), "main", &v));
	assert_null(fk_a2l_text(a, tmpdir, 0x1000, &why));
	assert_string_equal(why, "not an ordinary file");
	write_file(path_of("notelf"), "not an object file\n", 19);
	assert_null(fk_a2l_text(a, path_of("notelf"), 0x1000, &why));
	assert_string_equal(why, "file format not recognized");
	/* asked again: the same answer, from the file list */
	assert_null(fk_a2l_text(a, path_of("notelf"), 0x2000, &why));
	assert_string_equal(why, "file format not recognized");
	fk_a2l_free(a);
	fk_a2l_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_function_file_line),
		cmocka_unit_test(test_inlined_chain),
		cmocka_unit_test(test_linkage_name_demangled),
		cmocka_unit_test(test_nowhere),
		cmocka_unit_test(test_nm),
		cmocka_unit_test(test_unreadable_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
