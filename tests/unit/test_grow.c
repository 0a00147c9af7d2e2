/* test_grow.c - formats/grow.h and formats/bsearch.h: the growable array
 * and the binary search every stage uses.
 *
 * Covers fk_grow_cap (first capacity, doubling, jumps, the clamp that keeps
 * doubling from wrapping, refusals), fk_grow / FK_GROW (contents kept,
 * nothing touched on refusal or when out of memory), fk_resize /
 * FK_RESIZE (a large array's huge-page advice keeps it one mapping), and
 * fk_lower_bound / fk_upper_bound / fk_partition_point on
 * empty, one-element, duplicate and not-found cases, checked against a
 * linear scan.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "formats/bsearch.h"
#include "formats/grow.h"

/* The out-of-memory test asks for more than any allocator gives: under
 * ASan that must come back as NULL, as it does from glibc, not abort. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

struct item {
	uint64_t a, b;
};

static void test_grow_cap_policy(void **state)
{
	(void)state;
	size_t n = 0;
	assert_true(fk_grow_cap(0, 1, 64, 4, &n));
	assert_int_equal(n, 64); /* the caller's first capacity */
	assert_true(fk_grow_cap(0, 100, 64, 4, &n));
	assert_int_equal(n, 128); /* first capacity doubled until it holds need */
	assert_true(fk_grow_cap(64, 65, 16, 4, &n));
	assert_int_equal(n, 128); /* an existing capacity doubles, min ignored */
	assert_true(fk_grow_cap(64, 1000, 16, 4, &n));
	assert_int_equal(n, 1024);
	assert_true(fk_grow_cap(64, 64, 16, 4, &n));
	assert_int_equal(n, 64); /* already holds need: unchanged */
	assert_true(fk_grow_cap(64, 0, 16, 4, &n));
	assert_int_equal(n, 64);
	assert_true(fk_grow_cap(0, 3, 0, 4, &n));
	assert_int_equal(n, 4); /* no first capacity: from 1 */
	assert_true(fk_grow_cap(3, 4, 0, 1, &n));
	assert_int_equal(n, 6); /* a capacity not a power of two doubles as is */
}

static void test_grow_cap_overflow(void **state)
{
	(void)state;
	size_t n = 7, max = FK_GROW_MAX_BYTES;
	/* need * elem_size would wrap, or pass the most an object may hold. */
	assert_false(fk_grow_cap(0, SIZE_MAX, 16, 2, &n));
	assert_false(fk_grow_cap(0, SIZE_MAX / 8 + 1, 16, 8, &n));
	assert_false(fk_grow_cap(0, max / 8 + 1, 16, 8, &n));
	assert_false(fk_grow_cap(0, max + 1, 16, 1, &n));
	assert_false(fk_grow_cap(1, 2, 16, SIZE_MAX, &n));
	assert_false(fk_grow_cap(0, 1, 16, 0, &n)); /* no element size */
	assert_int_equal(n, 7);                     /* out untouched */
	/* The largest need that fits is accepted. */
	assert_true(fk_grow_cap(0, max / 8, 16, 8, &n));
	assert_int_equal(n, max / 8);
	/* Doubling stops at the largest count that fits instead of wrapping. */
	assert_true(fk_grow_cap(max / 32 + 1, max / 32 + 2, 16, 16, &n));
	assert_int_equal(n, max / 16);
	assert_true(fk_grow_cap(max / 2 + 1, max / 2 + 2, 16, 1, &n));
	assert_int_equal(n, max);
	/* A first capacity larger than can fit is cut to what fits. */
	assert_true(fk_grow_cap(0, 1, SIZE_MAX, 4, &n));
	assert_int_equal(n, max / 4);
}

static void test_grow_appends(void **state)
{
	(void)state;
	struct item *v = NULL;
	size_t n = 0, cap = 0;
	for (uint64_t i = 0; i < 1000; i++) {
		assert_true(FK_GROW(v, cap, n + 1, 16));
		assert_true(cap >= n + 1);
		v[n++] = (struct item){ i, ~i };
	}
	assert_int_equal(cap, 1024); /* 16 doubled six times */
	for (uint64_t i = 0; i < 1000; i++) {
		assert_true(v[i].a == i);
		assert_true(v[i].b == ~i);
	}
	/* Room already there: nothing moves. */
	struct item *before = v;
	assert_true(FK_GROW(v, cap, 1024, 16));
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 1024);
	free(v);
}

static void test_grow_bytes_jump(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t cap = 0;
	assert_true(FK_GROW(buf, cap, 10, 4096));
	assert_int_equal(cap, 4096);
	memset(buf, 'x', 10);
	assert_true(FK_GROW(buf, cap, 100000, 4096));
	assert_int_equal(cap, 131072);
	assert_memory_equal(buf, "xxxxxxxxxx", 10);
	free(buf);
}

static void test_grow_refused_leaves_array(void **state)
{
	(void)state;
	struct item *v = NULL;
	size_t cap = 0;
	assert_true(FK_GROW(v, cap, 3, 4));
	v[0] = (struct item){ 1, 2 };
	struct item *before = v;
	/* Overflow: refused before any allocation. */
	assert_false(FK_GROW(v, cap, SIZE_MAX, 4));
	assert_false(FK_GROW(v, cap, SIZE_MAX / sizeof *v + 1, 4));
	assert_false(fk_grow(&v, &cap, 5, 4, SIZE_MAX));
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 4);
	/* Out of memory: allowed, but more bytes than any machine has. */
	assert_false(FK_GROW(v, cap, FK_GROW_MAX_BYTES / sizeof *v, 4));
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 4);
	assert_true(v[0].a == 1 && v[0].b == 2);
	/* Still usable. */
	assert_true(FK_GROW(v, cap, 5, 4));
	assert_int_equal(cap, 8);
	assert_true(v[0].a == 1 && v[0].b == 2);
	free(v);
}

static void test_resize(void **state)
{
	(void)state;
	uint32_t *v = NULL;
	assert_true(FK_RESIZE(v, 3));
	v[0] = 7, v[1] = 8, v[2] = 9;
	assert_true(FK_RESIZE(v, 1000));
	assert_int_equal(v[2], 9);
	assert_true(FK_RESIZE(v, 2));
	assert_int_equal(v[1], 8);
	uint32_t *before = v;
	assert_false(FK_RESIZE(v, SIZE_MAX / 2));                  /* bytes would wrap */
	assert_false(FK_RESIZE(v, FK_GROW_MAX_BYTES / 4 + 1));     /* past the limit */
	assert_false(FK_RESIZE(v, FK_GROW_MAX_BYTES / 4));         /* out of memory */
	assert_false(fk_resize(&v, 1, 0));
	assert_ptr_equal(v, before);
	assert_int_equal(v[0], 7);
	/* Zero elements keep a valid block (realloc(p, 0) might free it). */
	assert_true(FK_RESIZE(v, 0));
	assert_non_null(v);
	free(v);
}

/* The mapping of /proc/self/maps that holds address a: [*lo, *hi). */
static void mapping_of(uintptr_t a, uintptr_t *lo, uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	assert_non_null(f);
	char line[512];
	*lo = *hi = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned long l, h;
		if (sscanf(line, "%lx-%lx", &l, &h) == 2 && l <= a && a < h) {
			*lo = l;
			*hi = h;
			break;
		}
	}
	fclose(f);
	assert_true(*hi > *lo);
}

/* Arrays of FK_HUGE_MIN_BYTES and more are advised to use huge pages as
 * whole pages: advising only their 2 MiB-aligned middle would cut their
 * mapping in three, and realloc then copies them (mremap refuses a range
 * across mappings). Contents survive growth either way. */
static void test_resize_large_stays_one_mapping(void **state)
{
	(void)state;
	char *p = NULL;
	size_t n = FK_HUGE_MIN_BYTES * 3 + 12345;
	assert_true(FK_RESIZE(p, n));
	memset(p, 7, n);
	uintptr_t lo, hi;
	mapping_of((uintptr_t)p, &lo, &hi);
	assert_true(lo <= (uintptr_t)p && hi >= (uintptr_t)p + n);
	assert_true(FK_RESIZE(p, 2 * n));
	mapping_of((uintptr_t)p, &lo, &hi);
	assert_true(lo <= (uintptr_t)p && hi >= (uintptr_t)p + 2 * n);
	assert_int_equal(p[0], 7);
	assert_int_equal(p[n - 1], 7);
	free(p);
}

/* ---- bounds ---- */

static int cmp_int(const void *key, const void *element)
{
	int k = *(const int *)key, e = *(const int *)element;
	return k < e ? -1 : k > e;
}

static size_t lower(const int *v, size_t n, int key)
{
	return fk_lower_bound(v, n, sizeof *v, &key, cmp_int);
}

static size_t upper(const int *v, size_t n, int key)
{
	return fk_upper_bound(v, n, sizeof *v, &key, cmp_int);
}

static void test_bounds_empty(void **state)
{
	(void)state;
	assert_int_equal(lower(NULL, 0, 5), 0);
	assert_int_equal(upper(NULL, 0, 5), 0);
	int one = 1;
	assert_int_equal(lower(&one, 0, 1), 0);
	assert_int_equal(upper(&one, 0, 1), 0);
}

static void test_bounds_one(void **state)
{
	(void)state;
	int v[] = { 10 };
	assert_int_equal(lower(v, 1, 5), 0);
	assert_int_equal(upper(v, 1, 5), 0);
	assert_int_equal(lower(v, 1, 10), 0);
	assert_int_equal(upper(v, 1, 10), 1);
	assert_int_equal(lower(v, 1, 15), 1);
	assert_int_equal(upper(v, 1, 15), 1);
}

static void test_bounds_duplicates(void **state)
{
	(void)state;
	int v[] = { 1, 3, 3, 3, 5, 7, 7 };
	size_t n = sizeof v / sizeof *v;
	assert_int_equal(lower(v, n, 3), 1); /* the first 3 */
	assert_int_equal(upper(v, n, 3), 4); /* after the last 3 */
	assert_int_equal(lower(v, n, 7), 5);
	assert_int_equal(upper(v, n, 7), 7);
	assert_int_equal(lower(v, n, 1), 0);
	assert_int_equal(upper(v, n, 1), 1);
	int same[] = { 4, 4, 4, 4 };
	assert_int_equal(lower(same, 4, 4), 0);
	assert_int_equal(upper(same, 4, 4), 4);
}

static void test_bounds_not_found(void **state)
{
	(void)state;
	int v[] = { 1, 3, 3, 3, 5, 7, 7 };
	size_t n = sizeof v / sizeof *v;
	assert_int_equal(lower(v, n, 0), 0); /* below all */
	assert_int_equal(upper(v, n, 0), 0);
	assert_int_equal(lower(v, n, 4), 4); /* between: both at the next one up */
	assert_int_equal(upper(v, n, 4), 4);
	assert_int_equal(lower(v, n, 6), 5);
	assert_int_equal(upper(v, n, 6), 5);
	assert_int_equal(lower(v, n, 8), n); /* above all */
	assert_int_equal(upper(v, n, 8), n);
}

/* Every key against every prefix of a sorted array with runs, by a
 * linear scan. */
static void test_bounds_exhaustive(void **state)
{
	(void)state;
	int v[] = { 0, 0, 2, 2, 2, 3, 6, 6, 9, 10, 10, 10, 10, 12 };
	size_t len = sizeof v / sizeof *v;
	for (size_t n = 0; n <= len; n++) {
		for (int key = -1; key <= 13; key++) {
			size_t lo = 0, up = 0;
			while (lo < n && v[lo] < key)
				lo++;
			while (up < n && v[up] <= key)
				up++;
			assert_int_equal(lower(v, n, key), lo);
			assert_int_equal(upper(v, n, key), up);
		}
	}
}

/* A struct array keyed by one field, as symbol lookup is. */
struct range {
	uint64_t start, end;
};

static int addr_vs_start(const void *key, const void *element)
{
	uint64_t a = *(const uint64_t *)key, s = ((const struct range *)element)->start;
	return a < s ? -1 : a > s;
}

static void test_bounds_structs(void **state)
{
	(void)state;
	struct range r[] = { { 0x1000, 0x1100 }, { 0x2000, 0x2400 }, { 0x3000, 0x3010 } };
	uint64_t pc = 0x2010;
	/* The last range starting at or below pc: the one before the upper bound. */
	size_t i = fk_upper_bound(r, 3, sizeof *r, &pc, addr_vs_start);
	assert_int_equal(i, 2);
	assert_true(r[i - 1].start <= pc && pc < r[i - 1].end);
	pc = 0xfff;
	assert_int_equal(fk_upper_bound(r, 3, sizeof *r, &pc, addr_vs_start), 0);
	pc = 0x3000;
	assert_int_equal(fk_lower_bound(r, 3, sizeof *r, &pc, addr_vs_start), 2);
	assert_int_equal(fk_upper_bound(r, 3, sizeof *r, &pc, addr_vs_start), 3);
}

/* A sequence reached through a function, not an array. */
static bool square_below_50(const void *ctx, size_t i)
{
	(void)ctx;
	return i * i < 50;
}

static bool never(const void *ctx, size_t i)
{
	(void)ctx, (void)i;
	return false;
}

static bool always(const void *ctx, size_t i)
{
	(void)ctx, (void)i;
	return true;
}

static void test_partition_point(void **state)
{
	(void)state;
	assert_int_equal(fk_partition_point(100, NULL, square_below_50), 8);
	assert_int_equal(fk_partition_point(5, NULL, square_below_50), 5);
	assert_int_equal(fk_partition_point(0, NULL, square_below_50), 0);
	assert_int_equal(fk_partition_point(10, NULL, never), 0);
	assert_int_equal(fk_partition_point(10, NULL, always), 10);
	/* No overflow in the midpoint near the top of size_t. */
	assert_int_equal(fk_partition_point(SIZE_MAX, NULL, never), 0);
	assert_true(fk_partition_point(SIZE_MAX, NULL, always) == SIZE_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_grow_cap_policy),
		cmocka_unit_test(test_grow_cap_overflow),
		cmocka_unit_test(test_grow_appends),
		cmocka_unit_test(test_grow_bytes_jump),
		cmocka_unit_test(test_grow_refused_leaves_array),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_resize_large_stays_one_mapping),
		cmocka_unit_test(test_bounds_empty),
		cmocka_unit_test(test_bounds_one),
		cmocka_unit_test(test_bounds_duplicates),
		cmocka_unit_test(test_bounds_not_found),
		cmocka_unit_test(test_bounds_exhaustive),
		cmocka_unit_test(test_bounds_structs),
		cmocka_unit_test(test_partition_point),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
