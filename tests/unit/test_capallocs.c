/* test_capallocs.c - ALLOCS records as the shim writes them
 * (formats/capture.h's fk_cap_put_alloc) read back by the model
 * (analysis/capture/model.c): every record's kind, time, thread, address,
 * size and stack as it was put, whether it was written near the record
 * before (same thread: no tid, the address a difference, up or down, by
 * any amount) or in full (another thread, the first of a chunk); the
 * version 2 kinds are still read; a near record with nothing before it in
 * its chunk is damage, said and counted, never a made-up address.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scratch_dir.h"
#include "capture_build.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("test_capallocs");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

static const struct fk_cap_alloc want[] = {
	{ 1100, 0x7f0000001000, 64, 7, 1, FK_CAP_ALLOC },
	{ 1150, 0x7f0000001080, 4096, 7, 1, FK_CAP_ALLOC },          /* near, up */
	{ 1150, 0x7f0000001000, 0, 7, 0, FK_CAP_FREE },              /* near, down */
	{ 1200, 0x55aa00000010, 24, 9, 1, FK_CAP_ALLOC },            /* another thread */
	{ 1190, 0x7f0000000010, 0, 7, 0, FK_CAP_FREE },              /* back, time down */
	{ 1300, 0x10, 1, 7, 1, FK_CAP_ALLOC },                        /* far down */
	{ 1301, UINT64_C(0xfffffffffffff000), 8, 7, 1, FK_CAP_ALLOC }, /* far up */
	{ 1302, 0x10, 0, 7, 0, FK_CAP_FREE },
};
#define NWANT (sizeof want / sizeof *want)

static void put_all(struct cap *b, uint64_t base)
{
	struct fk_cap_allocs_writer w;
	fk_cap_allocs_begin(&b->p, &w, base);
	for (size_t i = 0; i < NWANT; i++) {
		const struct fk_cap_alloc *a = &want[i];
		fk_cap_put_alloc(&b->p, &w, a->kind == FK_CAP_ALLOC, a->t_ns, a->tid, a->addr,
				 a->size, a->node);
	}
	cap_chunk(b, FK_CAP_ALLOCS);
}

static void assert_read_back(const struct fk_capture *c, size_t from)
{
	for (size_t i = 0; i < NWANT; i++) {
		const struct fk_cap_alloc *got = &c->allocs[from + i], *a = &want[i];
		assert_int_equal(got->kind, a->kind);
		assert_int_equal(got->t_ns, a->t_ns);
		assert_int_equal(got->tid, a->tid);
		assert_int_equal(got->addr, a->addr);
		assert_int_equal(got->size, a->kind == FK_CAP_ALLOC ? a->size : 0);
		assert_int_equal(got->node, a->node);
	}
}

static void test_records_read_back_as_put(void **state)
{
	(void)state;
	struct cap b;
	cap_begin(&b);
	put_all(&b, 1000);
	put_all(&b, 1000); /* a second chunk starts in full again */
	cap_end(&b);
	struct fk_capture c;
	cap_load(&b, "t.stackcap", &c);
	assert_int_equal(c.nallocs, 2 * NWANT);
	assert_int_equal(c.bad_records, 0);
	assert_read_back(&c, 0);
	assert_read_back(&c, NWANT);
	fk_capture_free(&c);
}

/* The near form is what makes the records short: same thread, a near
 * address, 5 bytes for a free (kind, time, address) against 10 in full. */
static void test_near_records_are_short(void **state)
{
	(void)state;
	struct fk_cap_buf p = { 0 };
	struct fk_cap_allocs_writer w;
	fk_cap_allocs_begin(&p, &w, 0);
	fk_cap_put_alloc(&p, &w, true, 1, 4242, 0x7f0000001000, 64, 3);
	size_t first = p.len;
	fk_cap_put_alloc(&p, &w, false, 2, 4242, 0x7f0000001000, 0, 0);
	assert_int_equal(p.p[first], FK_CAP_FREE_NEAR);
	assert_int_equal(p.len - first, 3); /* kind, time +1, address +0 */
	fk_cap_put_alloc(&p, &w, false, 3, 4243, 0x7f0000001000, 0, 0);
	assert_int_equal(p.p[first + 3], FK_CAP_FREE); /* another thread: in full */
	fk_cap_buf_free(&p);
}

/* Version 2's records, kinds 1 and 2 with every field, read as before. */
static void test_version_2_records_still_read(void **state)
{
	(void)state;
	struct cap b;
	cap_begin(&b);
	fk_cap_put_uvarint(&b.p, 1000);
	fk_cap_put_u8(&b.p, FK_CAP_ALLOC);
	fk_cap_put_svarint(&b.p, 5);
	fk_cap_put_uvarint(&b.p, 7), fk_cap_put_uvarint(&b.p, 0x1000);
	fk_cap_put_uvarint(&b.p, 32), fk_cap_put_uvarint(&b.p, 1);
	fk_cap_put_u8(&b.p, FK_CAP_FREE);
	fk_cap_put_svarint(&b.p, 5);
	fk_cap_put_uvarint(&b.p, 7), fk_cap_put_uvarint(&b.p, 0x1000);
	cap_chunk(&b, FK_CAP_ALLOCS);
	cap_end(&b);
	struct fk_capture c;
	cap_load(&b, "t.stackcap", &c);
	assert_int_equal(c.nallocs, 2);
	assert_int_equal(c.allocs[1].kind, FK_CAP_FREE);
	assert_int_equal(c.allocs[1].t_ns, 1010);
	assert_int_equal(c.allocs[1].addr, 0x1000);
	assert_int_equal(c.bad_records, 0);
	fk_capture_free(&c);
}

/* A near record first in its chunk has nothing to be near: the chunk is
 * counted bad and loss begins there, no record is made up. */
static void test_near_record_first_is_damage(void **state)
{
	(void)state;
	struct cap b;
	cap_begin(&b);
	fk_cap_put_uvarint(&b.p, 1000);
	fk_cap_put_u8(&b.p, FK_CAP_FREE_NEAR);
	fk_cap_put_svarint(&b.p, 5);
	fk_cap_put_svarint(&b.p, 16);
	cap_chunk(&b, FK_CAP_ALLOCS);
	cap_end(&b);
	struct fk_capture c;
	cap_load(&b, "t.stackcap", &c);
	assert_int_equal(c.nallocs, 0);
	assert_int_equal(c.bad_records, 1);
	assert_true(c.loss_until_ns != 0);
	fk_capture_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_read_back_as_put),
		cmocka_unit_test(test_near_records_are_short),
		cmocka_unit_test(test_version_2_records_still_read),
		cmocka_unit_test(test_near_record_first_is_damage),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
