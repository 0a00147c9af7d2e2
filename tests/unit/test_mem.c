/* test_mem.c - the memory timeline model and math: analysis/memevents.h
 * (ns -> us exactly as Python's int(t / 1000), sorting, device selection,
 * optional arrays), analysis/memcoalesce.h (torch's coalescing on the
 * documented example, pre-existing rows, t_min), analysis/memreplay.h (peak,
 * live groups, leaks, not-live warnings, addresses reused, 64-bit overflow,
 * folded live stacks), and render/memplot.h (the PNG decoded with libpng:
 * its size, each category's colour where the data puts it, nothing where
 * it does not, so a blank plot fails).
 */
#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/mem/coalesce.h"
#include "analysis/mem/events.h"
#include "analysis/mem/replay.h"
#include "render/memhtml.h"
#include "render/memcolors.h"
#include "render/memplot.h"

/* Pairs (t, int(t / 1000)) computed by CPython 3.11, the oracle: values
 * around 2^53 and random epoch times, where (double)t / 1000.0 is wrong. */
static const int64_t ns_to_us_cases[][2] = {
{ INT64_C(9007199254740992), INT64_C(9007199254740) },
{ INT64_C(9007199254740993), INT64_C(9007199254740) },
{ INT64_C(9007199254741491), INT64_C(9007199254741) },
{ INT64_C(1700000000000000875), INT64_C(1700000000000001) },
{ INT64_C(1700000000000000999), INT64_C(1700000000000001) },
{ INT64_C(4611686018427388404), INT64_C(4611686018427388) },
{ INT64_C(9007199254740993500), INT64_C(9007199254740994) },
{ INT64_C(9223372036854775807), INT64_C(9223372036854776) },
{ INT64_C(8751522060614153272), INT64_C(8751522060614153) },
{ INT64_C(3650611181638257975), INT64_C(3650611181638258) },
{ INT64_C(454370880871703632), INT64_C(454370880871703) },
{ INT64_C(7583925510670593843), INT64_C(7583925510670594) },
{ INT64_C(877203607440560171), INT64_C(877203607440560) },
{ INT64_C(5384277854032611832), INT64_C(5384277854032612) },
{ INT64_C(8399546225390060661), INT64_C(8399546225390061) },
{ INT64_C(1989248422110514933), INT64_C(1989248422110515) },
{ INT64_C(801730537304183000), INT64_C(801730537304183) },
{ INT64_C(3865964579695847258), INT64_C(3865964579695847) },
{ INT64_C(2228731587588131727), INT64_C(2228731587588131) },
{ INT64_C(5091521032141469657), INT64_C(5091521032141470) },
{ INT64_C(554205380355115558), INT64_C(554205380355115) },
{ INT64_C(5224397015519892655), INT64_C(5224397015519893) },
{ INT64_C(8747688320407010339), INT64_C(8747688320407010) },
{ INT64_C(5825504645512310873), INT64_C(5825504645512311) },
{ INT64_C(5386204517356238517), INT64_C(5386204517356239) },
{ INT64_C(579583884792761769), INT64_C(579583884792761) },
{ INT64_C(5409673601424884943), INT64_C(5409673601424885) },
{ INT64_C(466387880446319124), INT64_C(466387880446319) },
{ INT64_C(2048127142942464716), INT64_C(2048127142942464) },
{ INT64_C(5143334658417416112), INT64_C(5143334658417416) },
{ INT64_C(1237328086790608587), INT64_C(1237328086790608) },
{ INT64_C(3874882528911545750), INT64_C(3874882528911546) },
{ INT64_C(4995954294888720036), INT64_C(4995954294888720) },
{ INT64_C(5274756590646829504), INT64_C(5274756590646830) },
{ INT64_C(5176468498279868984), INT64_C(5176468498279869) },
{ INT64_C(6299371817210325039), INT64_C(6299371817210325) },
{ INT64_C(959528340749030795), INT64_C(959528340749030) },
{ INT64_C(5277437786102939537), INT64_C(5277437786102940) },
{ INT64_C(1741811560001557831), INT64_C(1741811560001557) },
{ INT64_C(907645652032647683), INT64_C(907645652032647) },
{ INT64_C(6577069725513743145), INT64_C(6577069725513743) },
{ INT64_C(5214385933097562167), INT64_C(5214385933097562) },
{ INT64_C(5718362991938897332), INT64_C(5718362991938897) },
{ INT64_C(4587622734891693535), INT64_C(4587622734891694) },
{ INT64_C(4913260830825296212), INT64_C(4913260830825296) },
{ INT64_C(7177677380439683198), INT64_C(7177677380439683) },
{ INT64_C(4303426424417284847), INT64_C(4303426424417285) },
{ INT64_C(8526250619041178065), INT64_C(8526250619041178) },
{ INT64_C(3344015822980113456), INT64_C(3344015822980113) },
{ INT64_C(2300338009183979437), INT64_C(2300338009183979) },
{ INT64_C(1667062821728056359), INT64_C(1667062821728056) },
{ INT64_C(7201665993724218516), INT64_C(7201665993724219) },
{ INT64_C(763986442903690235), INT64_C(763986442903690) },
{ INT64_C(2778316532664331951), INT64_C(2778316532664332) },
{ INT64_C(4575649539967633185), INT64_C(4575649539967633) },
{ INT64_C(3177011252757594823), INT64_C(3177011252757595) },
{ INT64_C(4148771959611387168), INT64_C(4148771959611387) },
{ INT64_C(5625662781034744328), INT64_C(5625662781034744) },
{ INT64_C(684166059416927544), INT64_C(684166059416927) },
{ INT64_C(4730754186100707088), INT64_C(4730754186100707) },
{ INT64_C(1530514045856782568), INT64_C(1530514045856782) },
{ INT64_C(3163915179705761023), INT64_C(3163915179705761) },
{ INT64_C(8616905548457604437), INT64_C(8616905548457604) },
{ INT64_C(3898488026508865410), INT64_C(3898488026508865) },
{ INT64_C(8882067109317278871), INT64_C(8882067109317279) },
{ INT64_C(724929747302232528), INT64_C(724929747302232) },
{ INT64_C(5156347510464899742), INT64_C(5156347510464900) },
{ INT64_C(7287116321747227634), INT64_C(7287116321747228) },
{ INT64_C(1698033596246376908), INT64_C(1698033596246377) },
{ INT64_C(1700932047974883471), INT64_C(1700932047974883) },
{ INT64_C(1743156764381585357), INT64_C(1743156764381585) },
{ INT64_C(1619819570928410474), INT64_C(1619819570928410) },
{ INT64_C(1626977208589885694), INT64_C(1626977208589885) },
{ INT64_C(1677804702424014550), INT64_C(1677804702424014) },
{ INT64_C(1618734968025243930), INT64_C(1618734968025244) },
{ INT64_C(1689238252213828406), INT64_C(1689238252213828) },
{ INT64_C(1766581657974488193), INT64_C(1766581657974488) },
{ INT64_C(1796353247474845963), INT64_C(1796353247474846) },
{ INT64_C(1728447206744762789), INT64_C(1728447206744762) },
{ INT64_C(1700017456049607454), INT64_C(1700017456049607) },
{ INT64_C(1702455553475848594), INT64_C(1702455553475848) },
{ INT64_C(1776085568139376614), INT64_C(1776085568139376) },
{ INT64_C(1742297317900942712), INT64_C(1742297317900942) },
{ INT64_C(1662894105471460096), INT64_C(1662894105471460) },
{ INT64_C(1682846615314557633), INT64_C(1682846615314557) },
{ INT64_C(1714686197781213059), INT64_C(1714686197781213) },
{ INT64_C(1743108314045448880), INT64_C(1743108314045449) },
{ INT64_C(1647951815557315047), INT64_C(1647951815557315) },
{ INT64_C(1715766073684259330), INT64_C(1715766073684259) },
{ INT64_C(1680081677638440977), INT64_C(1680081677638441) },
{ INT64_C(1639466273593454937), INT64_C(1639466273593455) },
{ INT64_C(1724089416950764249), INT64_C(1724089416950764) },
{ INT64_C(1758589991783372297), INT64_C(1758589991783372) },
{ INT64_C(1796781521709329728), INT64_C(1796781521709329) },
{ INT64_C(1709654740817311237), INT64_C(1709654740817311) },
{ INT64_C(1666509595621580637), INT64_C(1666509595621580) },
{ INT64_C(1623918707879362749), INT64_C(1623918707879362) },
{ INT64_C(1643608787988028144), INT64_C(1643608787988028) },
{ INT64_C(1789804510001071734), INT64_C(1789804510001071) },
{ INT64_C(1603476940237040106), INT64_C(1603476940237040) },
{ INT64_C(1652556757122206815), INT64_C(1652556757122206) },
{ INT64_C(1681260997117172933), INT64_C(1681260997117173) },
{ INT64_C(1641988360512489305), INT64_C(1641988360512489) },
{ INT64_C(1754085355157459951), INT64_C(1754085355157460) },
{ INT64_C(1775766465818355437), INT64_C(1775766465818355) },
{ INT64_C(1691833562931379473), INT64_C(1691833562931379) },
{ INT64_C(1636170466313779648), INT64_C(1636170466313779) },
{ INT64_C(1788781231404125940), INT64_C(1788781231404126) },
{ INT64_C(1731618590118017637), INT64_C(1731618590118017) },
{ INT64_C(1796162417273608339), INT64_C(1796162417273608) },
{ INT64_C(1761199106822334883), INT64_C(1761199106822335) },
{ INT64_C(1714735758030598563), INT64_C(1714735758030598) },
{ INT64_C(1713597359797271044), INT64_C(1713597359797271) },
{ INT64_C(1738789502087948332), INT64_C(1738789502087948) },
{ INT64_C(1715419732611484939), INT64_C(1715419732611485) },
{ INT64_C(1654939456686225704), INT64_C(1654939456686225) },
{ INT64_C(1727002046400397578), INT64_C(1727002046400397) },
{ INT64_C(1631684674519348133), INT64_C(1631684674519348) },
{ INT64_C(1773147845607408021), INT64_C(1773147845607408) },
{ INT64_C(1629508908040427613), INT64_C(1629508908040427) },
{ INT64_C(1763364252244986312), INT64_C(1763364252244986) },
{ INT64_C(1754669804567481471), INT64_C(1754669804567481) },
{ INT64_C(1776897721525176879), INT64_C(1776897721525177) },
{ INT64_C(1620267083195955706), INT64_C(1620267083195955) },
{ INT64_C(1659938282415603511), INT64_C(1659938282415603) },
{ INT64_C(1708440732791185436), INT64_C(1708440732791185) },
{ INT64_C(1782856111551375261), INT64_C(1782856111551375) },
{ INT64_C(1773595157892859249), INT64_C(1773595157892859) }
,
	{ INT64_C(0), INT64_C(0) },
	{ INT64_C(999), INT64_C(0) },
	{ INT64_C(1000), INT64_C(1) },
	{ INT64_C(1000500), INT64_C(1000) },
};

static void test_ns_to_us_matches_python(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof ns_to_us_cases / sizeof *ns_to_us_cases; i++) {
		int64_t got = fk_mem_ns_to_us(ns_to_us_cases[i][0]);
		if (got != ns_to_us_cases[i][1])
			fail_msg("t=%lld: got %lld, Python says %lld", (long long)ns_to_us_cases[i][0],
				 (long long)got, (long long)ns_to_us_cases[i][1]);
	}
	/* The naive C conversion really is wrong on some of them. */
	int naive_wrong = 0;
	for (size_t i = 0; i < sizeof ns_to_us_cases / sizeof *ns_to_us_cases; i++)
		naive_wrong += (int64_t)((double)ns_to_us_cases[i][0] / 1000.0) != ns_to_us_cases[i][1];
	assert_true(naive_wrong > 0);
}

static void add(struct fk_mem_timeline *tl, int64_t t, int action, uint64_t bytes, int cat,
		int cat_to)
{
	struct fk_mem_event ev = { .t_ns = t, .bytes = bytes, .action = (uint8_t)action,
				   .category = (uint8_t)cat,
				   .category_to = (uint8_t)(cat_to < 0 ? cat : cat_to),
				   .device = FK_MEM_DEVICE_ANY };
	assert_true(fk_mem_add(tl, &ev));
}

/* torch's documented example (torch-formats.md §2). */
static void example(struct fk_mem_timeline *tl)
{
	fk_mem_init(tl);
	add(tl, -1, FK_MEM_PREEXISTING, 4096, FK_MEM_PARAMETER, -1);
	add(tl, 1000500, FK_MEM_CREATE, 1024, FK_MEM_ACTIVATION, -1);
	add(tl, 1000900, FK_MEM_CREATE, 256, FK_MEM_TEMPORARY, -1);
	add(tl, 1000950, FK_MEM_DESTROY, 256, FK_MEM_TEMPORARY, -1);
	add(tl, 2000000, FK_MEM_INCREMENT_VERSION, 4096, FK_MEM_PARAMETER, FK_MEM_PARAMETER);
}

static void expect_row(struct fk_mem_rows *r, int64_t t, const int64_t sizes[FK_MEM_COLUMNS])
{
	assert_true(fk_mem_rows_next(r));
	assert_int_equal(r->t, t);
	assert_memory_equal(r->sizes, sizes, FK_MEM_COLUMNS * sizeof *sizes);
}

static void test_coalesce_documented_example(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	struct fk_mem_rows r;
	example(&tl);
	fk_mem_rows_start(&r, &tl);
	assert_int_equal(r.t_min, 1000);
	expect_row(&r, 1000, (const int64_t[]){ 0, 4096, 0, 0, 0, 0, 0, 0, 0 });
	expect_row(&r, 1000, (const int64_t[]){ 0, 4096, 0, 0, 0, 1024, 0, 0, 0 });
	expect_row(&r, 2000, (const int64_t[]){ 0, 4096, 0, 0, 0, 1024, 0, 0, 0 });
	assert_false(fk_mem_rows_next(&r));
	fk_mem_free(&tl);
}

static void test_coalesce_edges(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	struct fk_mem_rows r;
	/* Only pre-existing events: the time stays -1. */
	fk_mem_init(&tl);
	add(&tl, -1, FK_MEM_PREEXISTING, 10, FK_MEM_INPUT, -1);
	add(&tl, -1, FK_MEM_PREEXISTING, 5, FK_MEM_UNKNOWN, -1);
	fk_mem_rows_start(&r, &tl);
	expect_row(&r, -1, (const int64_t[]){ 0, 0, 0, 10, 0, 0, 0, 0, 5 });
	assert_false(fk_mem_rows_next(&r));
	fk_mem_free(&tl);
	/* A first time of 0 us is t_min; a version change moves the bytes. */
	fk_mem_init(&tl);
	add(&tl, -1, FK_MEM_PREEXISTING, 7, FK_MEM_GRADIENT, -1);
	add(&tl, 999, FK_MEM_CREATE, 3, FK_MEM_INPUT, -1);
	add(&tl, 5000, FK_MEM_INCREMENT_VERSION, 3, FK_MEM_INPUT, FK_MEM_ACTIVATION);
	add(&tl, 5999, FK_MEM_DESTROY, 7, FK_MEM_GRADIENT, -1);
	fk_mem_rows_start(&r, &tl);
	assert_int_equal(r.t_min, 0);
	expect_row(&r, 0, (const int64_t[]){ 0, 0, 0, 0, 0, 0, 7, 0, 0 });
	expect_row(&r, 0, (const int64_t[]){ 0, 0, 0, 3, 0, 0, 7, 0, 0 });
	expect_row(&r, 5, (const int64_t[]){ 0, 0, 0, 0, 0, 3, 0, 0, 0 });
	assert_false(fk_mem_rows_next(&r));
	fk_mem_free(&tl);
	/* Empty. */
	fk_mem_init(&tl);
	fk_mem_rows_start(&r, &tl);
	assert_false(fk_mem_rows_next(&r));
	fk_mem_free(&tl);
}

static void test_sort_is_stable_by_time_then_action(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	fk_mem_init(&tl);
	add(&tl, 50, FK_MEM_DESTROY, 1, FK_MEM_INPUT, -1);
	add(&tl, 50, FK_MEM_CREATE, 2, FK_MEM_INPUT, -1);
	add(&tl, 10, FK_MEM_CREATE, 3, FK_MEM_INPUT, -1);
	add(&tl, 50, FK_MEM_CREATE, 4, FK_MEM_INPUT, -1);
	add(&tl, -1, FK_MEM_PREEXISTING, 5, FK_MEM_INPUT, -1);
	assert_int_equal(tl.out_of_order, 3);
	size_t *order;
	assert_true(fk_mem_sort(&tl, &order));
	const uint64_t want[] = { 5, 3, 2, 4, 1 };
	const size_t from[] = { 4, 2, 1, 3, 0 };
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(tl.bytes[i], want[i]);
		assert_int_equal(order[i], from[i]);
	}
	free(order);
	assert_true(fk_mem_sort(&tl, &order)); /* sorted now: nothing to do */
	assert_null(order);
	fk_mem_free(&tl);
}

static void test_optional_arrays_and_devices(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	fk_mem_init(&tl);
	add(&tl, 1, FK_MEM_CREATE, 1, FK_MEM_UNKNOWN, -1);
	assert_null(tl.device);
	assert_null(tl.address);
	struct fk_mem_event ev = { .t_ns = 2, .bytes = 2, .action = FK_MEM_CREATE,
				   .category = FK_MEM_UNKNOWN, .category_to = FK_MEM_UNKNOWN,
				   .device = 1, .address = 0x1000 };
	ev.stack = fk_mem_stack(&tl, "main;f", 6);
	assert_true(fk_mem_add(&tl, &ev));
	ev.t_ns = 3, ev.device = FK_MEM_DEVICE_CPU, ev.address = 0x2000, ev.stack = 0;
	assert_true(fk_mem_add(&tl, &ev));
	struct fk_mem_event got;
	fk_mem_get(&tl, 0, &got);
	assert_int_equal(got.device, FK_MEM_DEVICE_ANY);
	assert_int_equal(got.address, 0);
	fk_mem_get(&tl, 1, &got);
	assert_int_equal(got.device, 1);
	assert_int_equal(got.address, 0x1000);
	assert_string_equal(fk_mem_stack_text(&tl, got.stack)->p, "main;f");
	fk_mem_select_device(&tl, 1);
	assert_int_equal(tl.count, 2); /* the unknown-device event stays */
	assert_int_equal(tl.bytes[1], 2);
	int16_t d;
	assert_true(fk_mem_parse_device("cuda:3", &d));
	assert_int_equal(d, 3);
	assert_true(fk_mem_parse_device("cpu", &d));
	assert_int_equal(d, FK_MEM_DEVICE_CPU);
	assert_false(fk_mem_parse_device("cuda:", &d));
	assert_false(fk_mem_parse_device("cuda:x", &d));
	assert_false(fk_mem_parse_device("gpu", &d));
	fk_mem_free(&tl);
}

struct warnings {
	int count;
	size_t last_event;
	char last[200];
};

static void on_warn(void *ctx, size_t event, const char *msg)
{
	struct warnings *w = ctx;
	w->count++;
	w->last_event = event;
	snprintf(w->last, sizeof w->last, "%s", msg);
}

static void test_replay_peak_and_leaks(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	struct warnings w = { 0 };
	size_t bad;
	fk_mem_init(&tl);
	add(&tl, -1, FK_MEM_PREEXISTING, 100, FK_MEM_PARAMETER, -1);
	add(&tl, 10, FK_MEM_CREATE, 50, FK_MEM_ACTIVATION, -1);
	add(&tl, 20, FK_MEM_CREATE, 50, FK_MEM_ACTIVATION, -1);
	add(&tl, 20, FK_MEM_CREATE, 7, FK_MEM_TEMPORARY, -1);
	add(&tl, 30, FK_MEM_DESTROY, 7, FK_MEM_TEMPORARY, -1);  /* same time as the next */
	add(&tl, 30, FK_MEM_DESTROY, 50, FK_MEM_ACTIVATION, -1);
	add(&tl, 40, FK_MEM_CREATE, 20, FK_MEM_GRADIENT, -1);   /* leaked */
	add(&tl, 50, FK_MEM_INCREMENT_VERSION, 50, FK_MEM_ACTIVATION, FK_MEM_GRADIENT);
	assert_int_equal(fk_mem_replay(&tl, &rep, on_warn, &w, &bad), FK_MEM_REPLAY_OK);
	assert_int_equal(w.count, 0);
	assert_int_equal(rep.peak_total, 207);
	assert_int_equal(rep.peak_t_ns, 20);
	assert_int_equal(rep.peak_events, 4);
	assert_int_equal(rep.peak[FK_MEM_ACTIVATION], 100);
	assert_int_equal(rep.final[FK_MEM_GRADIENT], 70);
	assert_int_equal(rep.final[FK_MEM_ACTIVATION], 0);
	assert_int_equal(rep.max[FK_MEM_ACTIVATION], 100);
	assert_int_equal(rep.first_t_ns, 10);
	assert_int_equal(rep.last_t_ns, 50);
	assert_int_equal(rep.by_action[FK_MEM_CREATE], 4);
	/* At the peak: 100 (pre-existing), 2 x 50, 7; largest first. */
	assert_int_equal(rep.n_at_peak, 3);
	assert_int_equal(rep.at_peak[0].bytes, 100);
	assert_int_equal(rep.at_peak[0].first_t_ns, -1);
	assert_int_equal(rep.at_peak[1].bytes, 50);
	assert_int_equal(rep.at_peak[1].count, 2);
	assert_int_equal(rep.at_peak[1].first_t_ns, 10);
	assert_int_equal(rep.at_peak[2].bytes, 7);
	/* Leaked: created here, live at the end (not the parameter). */
	assert_int_equal(rep.n_leaked, 2);
	assert_int_equal(rep.leaked[0].bytes, 50);
	assert_int_equal(rep.leaked[0].category, FK_MEM_GRADIENT);
	assert_int_equal(rep.leaked[1].bytes, 20);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(fk_mem_write_live_stacks(f, &tl, rep.at_peak, rep.n_at_peak), 0);
	fclose(f);
	assert_string_equal(text, "PARAMETER 100\nTEMPORARY 7\nACTIVATION 100\n");
	free(text);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

static void test_replay_warnings(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	struct warnings w = { 0 };
	size_t bad;
	fk_mem_init(&tl);
	add(&tl, 10, FK_MEM_CREATE, 8, FK_MEM_INPUT, -1);
	add(&tl, 20, FK_MEM_DESTROY, 8, FK_MEM_ACTIVATION, -1); /* wrong category: not live */
	assert_int_equal(fk_mem_replay(&tl, &rep, on_warn, &w, &bad), FK_MEM_REPLAY_OK);
	assert_int_equal(w.count, 1);
	assert_int_equal(w.last_event, 1);
	assert_non_null(strstr(w.last, "DESTROY of 8 bytes (ACTIVATION) that are not live"));
	assert_int_equal(rep.not_live, 1);
	assert_int_equal(rep.final[FK_MEM_ACTIVATION], -8); /* kept, as torch would */
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
	/* By address: a second CREATE at a live address replaces it. */
	fk_mem_init(&tl);
	struct fk_mem_event ev = { .t_ns = 1, .bytes = 16, .action = FK_MEM_CREATE,
				   .category = FK_MEM_UNKNOWN, .category_to = FK_MEM_UNKNOWN,
				   .device = FK_MEM_DEVICE_CPU, .address = 0xabc };
	assert_true(fk_mem_add(&tl, &ev));
	ev.t_ns = 2;
	assert_true(fk_mem_add(&tl, &ev));
	ev.t_ns = 3, ev.action = FK_MEM_DESTROY, ev.bytes = 16;
	assert_true(fk_mem_add(&tl, &ev));
	w.count = 0;
	assert_int_equal(fk_mem_replay(&tl, &rep, on_warn, &w, &bad), FK_MEM_REPLAY_OK);
	assert_int_equal(w.count, 1);
	assert_int_equal(rep.reused, 1);
	assert_non_null(strstr(w.last, "0xabc"));
	assert_int_equal(rep.n_leaked, 0);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
	/* Totals past 64 bits are an error at the event that overflows. */
	fk_mem_init(&tl);
	add(&tl, 1, FK_MEM_CREATE, (uint64_t)INT64_MAX, FK_MEM_INPUT, -1);
	add(&tl, 2, FK_MEM_CREATE, 1, FK_MEM_INPUT, -1);
	assert_int_equal(fk_mem_replay(&tl, &rep, NULL, NULL, &bad), FK_MEM_REPLAY_OVERFLOW);
	assert_int_equal(bad, 1);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

/* Many allocations by address, freed in another order: the live set's
 * deletions keep every remaining entry findable. */
static void test_replay_many_addresses(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	struct warnings w = { 0 };
	size_t bad;
	fk_mem_init(&tl);
	const uint64_t n = 20000;
	struct fk_mem_event ev = { .action = FK_MEM_CREATE, .category = FK_MEM_UNKNOWN,
				   .category_to = FK_MEM_UNKNOWN, .device = FK_MEM_DEVICE_CPU };
	int64_t t = 1;
	for (uint64_t i = 0; i < n; i++) {
		ev.t_ns = t++, ev.address = 0x10000 + i * 64, ev.bytes = i + 1;
		assert_true(fk_mem_add(&tl, &ev));
	}
	ev.action = FK_MEM_DESTROY;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t i = (k * 7919) % n; /* a permutation: 7919 is prime to n */
		if (i % 10 == 0)
			continue; /* leaked */
		ev.t_ns = t++, ev.address = 0x10000 + i * 64, ev.bytes = i + 1;
		assert_true(fk_mem_add(&tl, &ev));
	}
	assert_int_equal(fk_mem_replay(&tl, &rep, on_warn, &w, &bad), FK_MEM_REPLAY_OK);
	assert_int_equal(w.count, 0);
	assert_int_equal(rep.n_leaked, n / 10);
	assert_int_equal(rep.peak_total, (int64_t)(n * (n + 1) / 2));
	assert_int_equal(rep.n_at_peak, n);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

/* ---- the plot, decoded ---- */

struct image {
	png_uint_32 w, h;
	png_bytep rgb;
};

static void decode(const unsigned char *p, size_t n, struct image *img)
{
	png_image pi;
	memset(&pi, 0, sizeof pi);
	pi.version = PNG_IMAGE_VERSION;
	assert_true(png_image_begin_read_from_memory(&pi, p, n));
	pi.format = PNG_FORMAT_RGB;
	img->w = pi.width, img->h = pi.height;
	img->rgb = malloc(PNG_IMAGE_SIZE(pi));
	assert_non_null(img->rgb);
	assert_true(png_image_finish_read(&pi, NULL, img->rgb, 0, NULL));
}

/* The colour of category c at alpha 0.7 over white, as drawn. */
static void blended(int c, int rgb[3])
{
	unsigned col = fk_mem_category_colors[c];
	for (int k = 0; k < 3; k++) {
		double v = ((col >> (16 - 8 * k)) & 0xff) / 255.0;
		rgb[k] = (int)lround((0.7 * v + 0.3) * 255);
	}
}

/* Pixels of category c's colour in a box of the image. */
static long count_color(const struct image *img, int c, int x0, int y0, int x1, int y1)
{
	int want[3];
	long n = 0;
	blended(c, want);
	for (int y = y0; y < y1; y++)
		for (int x = x0; x < x1; x++) {
			const png_byte *px = img->rgb + ((size_t)y * img->w + (size_t)x) * 3;
			if (abs(px[0] - want[0]) <= 2 && abs(px[1] - want[1]) <= 2 &&
			    abs(px[2] - want[2]) <= 2)
				n++;
		}
	return n;
}

static void render(const struct fk_mem_timeline *tl, struct image *img)
{
	unsigned char *png = NULL;
	size_t len = 0;
	const char *why = NULL;
	assert_int_equal(fk_memplot_png(tl, "Max memory allocated: 1.00 GiB", &png, &len, &why), 0);
	assert_memory_equal(png, "\x89PNG\r\n\x1a\n", 8);
	decode(png, len, img);
	free(png);
	assert_int_equal(img->w, FK_MEMPLOT_WIDTH);
	assert_int_equal(img->h, FK_MEMPLOT_HEIGHT);
}

#define PLOT_X0 200
#define PLOT_X1 1440
#define PLOT_Y0 116
#define PLOT_Y1 854
#define GIB ((uint64_t)1 << 30)

static void test_plot_colors_where_the_data_is(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	struct image img;
	/* Parameters (1 GiB) the whole time; activations (1 GiB) only in the
	 * second half, stacked above them. Like matplotlib's fill_between,
	 * values are joined by straight lines: the empty row just before the
	 * activations keeps their ramp 1 ms wide. */
	fk_mem_init(&tl);
	add(&tl, -1, FK_MEM_PREEXISTING, GIB, FK_MEM_PARAMETER, -1);
	add(&tl, 1000000000, FK_MEM_CREATE, 1, FK_MEM_UNKNOWN, -1);
	add(&tl, 1499000000, FK_MEM_CREATE, 0, FK_MEM_UNKNOWN, -1);
	add(&tl, 1500000000, FK_MEM_CREATE, GIB, FK_MEM_ACTIVATION, -1);
	add(&tl, 2000000000, FK_MEM_DESTROY, 1, FK_MEM_UNKNOWN, -1);
	render(&tl, &img);
	int xmid = (PLOT_X0 + PLOT_X1) / 2, ymid = (PLOT_Y0 + PLOT_Y1) / 2;
	/* Parameters fill the lower half of the data range left and right. */
	assert_true(count_color(&img, FK_MEM_PARAMETER, PLOT_X0 + 100, ymid + 60, xmid - 100,
				PLOT_Y1 - 60) > 10000);
	/* Activations: upper half, right side only. */
	assert_true(count_color(&img, FK_MEM_ACTIVATION, xmid + 60, PLOT_Y0 + 60, PLOT_X1 - 100,
				ymid - 60) > 10000);
	assert_int_equal(count_color(&img, FK_MEM_ACTIVATION, PLOT_X0 + 100, PLOT_Y0 + 60,
				     xmid - 100, ymid - 60), 0);
	/* No gradients anywhere in the plot. */
	assert_int_equal(count_color(&img, FK_MEM_GRADIENT, PLOT_X0, PLOT_Y0, PLOT_X1, PLOT_Y1), 0);
	/* The legend shows every category's swatch (upper right corner). */
	for (int c = 0; c < FK_MEM_NCAT; c++)
		assert_true(count_color(&img, c, 1400, 0, 1600, 160) > 50);
	/* Text was drawn: dark pixels under the x axis (tick labels, label). */
	long dark = 0;
	for (int y = PLOT_Y1 + 5; y < 920; y++)
		for (int x = PLOT_X0; x < PLOT_X1; x++)
			dark += img.rgb[((size_t)y * img.w + (size_t)x) * 3] < 100;
	assert_true(dark > 300);
	free(img.rgb);
	fk_mem_free(&tl);
}

static void test_plot_blank_has_no_data_colors(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	struct image img;
	fk_mem_init(&tl);
	render(&tl, &img);
	for (int c = 0; c < FK_MEM_NCAT; c++)
		assert_int_equal(count_color(&img, c, PLOT_X0 + 2, PLOT_Y0 + 2, PLOT_X1 - 2,
					     PLOT_Y1 - 2), 0);
	free(img.rgb);
	fk_mem_free(&tl);
}

/* More rows than pixel columns: drawn from per-column envelopes, the areas
 * still where the data is. The oscillating category is the last one: the
 * edges of empty bands stacked above an oscillating one would cover it
 * (in matplotlib too). */
static void test_plot_dense(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	struct image img;
	fk_mem_init(&tl);
	add(&tl, -1, FK_MEM_PREEXISTING, GIB, FK_MEM_INPUT, -1);
	for (int64_t i = 0; i < 100000; i++) { /* one row per us */
		add(&tl, 1000000 + i * 2000, FK_MEM_CREATE, GIB / 2, FK_MEM_UNKNOWN, -1);
		add(&tl, 1000000 + i * 2000 + 1000, FK_MEM_DESTROY, GIB / 2, FK_MEM_UNKNOWN, -1);
	}
	render(&tl, &img);
	int ymid = (PLOT_Y0 + PLOT_Y1) / 2;
	assert_true(count_color(&img, FK_MEM_INPUT, PLOT_X0 + 100, ymid, PLOT_X1 - 100,
				PLOT_Y1 - 60) > 10000);
	assert_true(count_color(&img, FK_MEM_UNKNOWN, PLOT_X0 + 100, PLOT_Y0 + 60,
				PLOT_X1 - 100, ymid - 100) > 10000);
	assert_int_equal(count_color(&img, FK_MEM_UNKNOWN, PLOT_X0 + 100, ymid + 20,
				     PLOT_X1 - 100, PLOT_Y1 - 60), 0);
	free(img.rgb);
	fk_mem_free(&tl);
}

/* The page: torch's wrapper first, and the stacks of the input escaped. */
static void test_html_escapes_stacks(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	size_t bad;
	fk_mem_init(&tl);
	const char *evil = "main;<script>alert(1)</script>;a&b";
	struct fk_mem_event ev = { .t_ns = 1000, .bytes = 64, .action = FK_MEM_CREATE,
				   .category = FK_MEM_UNKNOWN, .category_to = FK_MEM_UNKNOWN,
				   .device = FK_MEM_DEVICE_CPU, .address = 0x40 };
	ev.stack = fk_mem_stack(&tl, evil, strlen(evil));
	assert_true(fk_mem_add(&tl, &ev));
	assert_int_equal(fk_mem_replay(&tl, &rep, NULL, NULL, &bad), FK_MEM_REPLAY_OK);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	fk_memhtml_write(f, (const unsigned char *)"PNG", 3, &tl, &rep, NULL);
	fclose(f);
	/* A host heap: torch's wrapper but for the word in the title. */
	const char *head = "<html>\n<head><meta charset=\"utf-8\" /><title>Host Memory Timeline "
			   "HTML</title></head>\n<body>\n  <img src='data:image/png;base64,UE5H'>\n";
	assert_memory_equal(text, head, strlen(head));
	assert_non_null(strstr(text, "main;&lt;script&gt;alert(1)&lt;/script&gt;;a&amp;b"));
	assert_null(strstr(text, "<script>"));
	assert_non_null(strstr(text, "<h2>Peak: 64 B at 0.000 ms</h2>"));
	assert_true(len > 7 && strcmp(text + len - 7, "</html>") == 0);
	free(text);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

/* A GPU timeline keeps torch's title; a group of allocations made over a
 * while shows when the first and the last were made. */
static void test_html_gpu_title_and_group_times(void **state)
{
	(void)state;
	struct fk_mem_timeline tl;
	struct fk_mem_report rep;
	size_t bad;
	fk_mem_init(&tl);
	for (int i = 0; i < 3; i++) { /* 3 x 64 B from one stack, at 0, 40 and 80 ms */
		struct fk_mem_event ev = { .t_ns = 1000000 + (int64_t)i * 40000000, .bytes = 64,
					   .action = FK_MEM_CREATE, .category = FK_MEM_UNKNOWN,
					   .category_to = FK_MEM_UNKNOWN, .device = 0,
					   .address = 0x1000 + (uint64_t)i * 64 };
		ev.stack = fk_mem_stack(&tl, "main;grow", 9);
		assert_true(fk_mem_add(&tl, &ev));
	}
	assert_int_equal(fk_mem_replay(&tl, &rep, NULL, NULL, &bad), FK_MEM_REPLAY_OK);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	fk_memhtml_write(f, (const unsigned char *)"PNG", 3, &tl, &rep, NULL);
	fclose(f);
	assert_non_null(strstr(text, "<title>GPU Memory Timeline HTML</title>"));
	assert_non_null(strstr(text, "<td class=\"n\">0.000&#8211;80.000</td>"));
	assert_non_null(strstr(text, "img{max-width:100%;height:auto}"));
	free(text);
	fk_mem_report_free(&rep);
	fk_mem_free(&tl);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ns_to_us_matches_python),
		cmocka_unit_test(test_coalesce_documented_example),
		cmocka_unit_test(test_coalesce_edges),
		cmocka_unit_test(test_sort_is_stable_by_time_then_action),
		cmocka_unit_test(test_optional_arrays_and_devices),
		cmocka_unit_test(test_replay_peak_and_leaks),
		cmocka_unit_test(test_replay_warnings),
		cmocka_unit_test(test_replay_many_addresses),
		cmocka_unit_test(test_plot_colors_where_the_data_is),
		cmocka_unit_test(test_plot_blank_has_no_data_colors),
		cmocka_unit_test(test_plot_dense),
		cmocka_unit_test(test_html_escapes_stacks),
		cmocka_unit_test(test_html_gpu_title_and_group_times),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	fk_memplot_release();
	return failed;
}
