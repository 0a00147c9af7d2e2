/* test_capleaks.c - leak reports never invent leaks from a capture's loss
 * (analysis/capture/model.c's loss_until_ns, fk_capture_memory and
 * fk_mem_replay): captures built here chunk by chunk, with a chunk lost
 * (a gap in the sequence numbers), dropped events, no END, an address
 * allocated twice and a free of a block never seen.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/mem/replay.h"

#include "scratch_dir.h"
#include "capture_build.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("test_capleaks");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

/* ---- ALLOCS and DROPS chunks ---- */

static uint64_t prev_t; /* the previous ALLOCS record's time */

/* An ALLOCS chunk of the writer cycle that began at base. */
static void allocs_begin(struct cap *b, uint64_t base)
{
	fk_cap_put_uvarint(&b->p, base);
	prev_t = base;
}

static void event(struct cap *b, uint8_t kind, uint64_t t, uint64_t addr, uint64_t size)
{
	fk_cap_put_u8(&b->p, kind);
	fk_cap_put_svarint(&b->p, (int64_t)(t - prev_t));
	fk_cap_put_uvarint(&b->p, 7);
	fk_cap_put_uvarint(&b->p, addr);
	if (kind == FK_CAP_ALLOC) {
		fk_cap_put_uvarint(&b->p, size);
		fk_cap_put_uvarint(&b->p, 1);
	}
	prev_t = t;
}

static void drops(struct cap *b, uint64_t events)
{
	fk_cap_put_uvarint(&b->p, 7), fk_cap_put_uvarint(&b->p, 0);
	fk_cap_put_uvarint(&b->p, events);
	cap_chunk(b, FK_CAP_DROPS);
}

/* The capture's host heap replayed: rep's leaks, tl's loss fields. */
static void replay(struct cap *b, struct fk_mem_timeline *tl, struct fk_mem_report *rep)
{
	struct fk_diag d;
	fk_diag_init(&d, "test");
	struct fk_capture c;
	cap_load(b, "t.stackcap", &c);
	fk_mem_init(tl);
	assert_true(fk_capture_memory(&c, 0, tl, &d));
	fk_capture_free(&c);
	size_t bad;
	assert_int_equal(fk_mem_replay(tl, rep, NULL, NULL, &bad), FK_MEM_REPLAY_OK);
}

static uint64_t leaked_bytes(const struct fk_mem_report *rep)
{
	uint64_t sum = 0;
	for (size_t i = 0; i < rep->n_leaked; i++)
		sum += rep->leaked[i].bytes * rep->leaked[i].count;
	return sum;
}

/* Cycle 1 (base 100): A and B allocated; then, when lose_chunk, a chunk
 * lost, or when drop, events dropped; cycle 2 (base 300): C allocated. */
static void two_cycles(struct cap *b, bool lose_chunk, uint64_t dropped, bool with_end)
{
	cap_begin(b);
	allocs_begin(b, 100);
	event(b, FK_CAP_ALLOC, 110, 0x1000, 100);
	event(b, FK_CAP_ALLOC, 120, 0x2000, 200);
	cap_chunk(b, FK_CAP_ALLOCS);
	if (lose_chunk)
		b->seq++; /* a chunk (its frees) that never reached the file */
	if (dropped)
		drops(b, dropped);
	allocs_begin(b, 300);
	event(b, FK_CAP_ALLOC, 310, 0x3000, 4000);
	cap_chunk(b, FK_CAP_ALLOCS);
	if (with_end)
		cap_end(b);
}

static void test_clean_capture_reports_every_leak(void **state)
{
	(void)state;
	struct cap b;
	two_cycles(&b, false, 0, true);
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	replay(&b, &tl, &rep);
	assert_int_equal(leaked_bytes(&rep), 4300);
	assert_int_equal(rep.unsure_count, 0);
	assert_false(tl.no_end);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

static void test_lost_chunk_keeps_older_blocks_out(void **state)
{
	(void)state;
	struct cap b;
	two_cycles(&b, true, 0, true);
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	replay(&b, &tl, &rep);
	/* A and B may have been freed in the lost chunk: only C is a leak. */
	assert_int_equal(leaked_bytes(&rep), 4000);
	assert_int_equal(rep.unsure_count, 2);
	assert_int_equal(rep.unsure_bytes, 300);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

static void test_dropped_events_keep_older_blocks_out(void **state)
{
	(void)state;
	struct cap b;
	two_cycles(&b, false, 3, true);
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	replay(&b, &tl, &rep);
	assert_int_equal(leaked_bytes(&rep), 4000);
	assert_int_equal(rep.unsure_count, 2);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

static void test_loss_in_the_last_cycle_keeps_all_out(void **state)
{
	(void)state;
	struct cap b;
	two_cycles(&b, false, 0, false);
	drops(&b, 1); /* no later cycle says when the loss ended */
	cap_end(&b);
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	replay(&b, &tl, &rep);
	assert_int_equal(rep.n_leaked, 0);
	assert_int_equal(rep.unsure_count, 3);
	assert_int_equal(rep.unsure_bytes, 4300);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

static void test_no_end_reports_no_leak(void **state)
{
	(void)state;
	struct cap b;
	two_cycles(&b, false, 0, false);
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	replay(&b, &tl, &rep);
	assert_true(tl.no_end);
	assert_int_equal(rep.n_leaked, 0);
	assert_int_equal(rep.unsure_count, 3);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

static void test_address_allocated_again_is_no_leak(void **state)
{
	(void)state;
	struct cap b;
	cap_begin(&b);
	allocs_begin(&b, 100);
	event(&b, FK_CAP_ALLOC, 110, 0x1000, 100);
	event(&b, FK_CAP_ALLOC, 120, 0x1000, 50); /* the free between them was lost */
	event(&b, FK_CAP_FREE, 130, 0x9000, 0);   /* a block never seen allocated */
	cap_chunk(&b, FK_CAP_ALLOCS);
	cap_end(&b);
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	replay(&b, &tl, &rep);
	assert_int_equal(leaked_bytes(&rep), 50);
	assert_int_equal(rep.reused, 1);
	assert_int_equal(tl.unmatched_frees, 1);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_capture_reports_every_leak),
		cmocka_unit_test(test_lost_chunk_keeps_older_blocks_out),
		cmocka_unit_test(test_dropped_events_keep_older_blocks_out),
		cmocka_unit_test(test_loss_in_the_last_cycle_keeps_all_out),
		cmocka_unit_test(test_no_end_reports_no_leak),
		cmocka_unit_test(test_address_allocated_again_is_no_leak),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
