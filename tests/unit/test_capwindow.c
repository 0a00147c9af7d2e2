/* test_capwindow.c - capture windows: formats/capwindow.h (the spec the
 * launcher and the shim parse, torch.profiler.schedule's step actions, the
 * META text) and analysis/capture/windows.h (edge records made into the
 * windows a capture recorded).
 *
 * Covers fk_win_seconds (decimals, fractions, junk, signs, hex/inf,
 * range), fk_win_signal (numbers, names with and without SIG, RTMIN+N,
 * refused signals), fk_win_range, fk_win_schedule_parse (keys in any
 * order, duplicates, missing active, trailing comma), fk_win_schedule_action
 * against torch's schedule (wait, warmup, active, repeat, repeat=0 cycling,
 * skip_first), fk_win_describe, fk_cap_windows_finish (ordering by edge
 * number, a file's first record, lost edges, an unclosed window),
 * fk_cap_in_windows, and a windowed capture read back: its info line, and
 * GPU time charged only for work launched inside its windows.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/capture/windows.h"
#include "formats/capwindow.h"

#include "scratch_dir.h"
#include "capture_build.h"
#include "fold_text.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("test_capwindow");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

static void test_seconds(void **state)
{
	(void)state;
	double v = -1;
	assert_true(fk_win_seconds("0", &v));
	assert_true(v == 0);
	assert_true(fk_win_seconds("1.5", &v));
	assert_true(v == 1.5);
	assert_true(fk_win_seconds(".25", &v));
	assert_true(v == 0.25);
	assert_true(fk_win_seconds("10000000", &v));
	const char *bad[] = { "", "-1", "+1", " 1", "1 ", "1s", "abc", "1e3", "0x10", "inf", "nan",
			      "10000001", "1..2" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		v = 7;
		assert_false(fk_win_seconds(bad[i], &v));
		assert_true(v == 7);
	}
}

static void test_signal(void **state)
{
	(void)state;
	assert_int_equal(fk_win_signal("USR1"), SIGUSR1);
	assert_int_equal(fk_win_signal("sigusr2"), SIGUSR2);
	assert_int_equal(fk_win_signal("SIGHUP"), SIGHUP);
	assert_int_equal(fk_win_signal("10"), 10);
	assert_int_equal(fk_win_signal("RTMIN"), SIGRTMIN);
	assert_int_equal(fk_win_signal("SIGRTMIN+3"), SIGRTMIN + 3);
	assert_int_equal(fk_win_signal("RTMAX-1"), SIGRTMAX - 1);
	/* Uncatchable, faults, job control, SIGCHLD, glibc's own, junk. */
	const char *bad[] = { "KILL", "9", "STOP", "SEGV", "BUS", "FPE", "ILL", "CHLD", "CONT",
			      "TSTP", "32", "33", "0", "", "USR", "RTMIN+99", "65", "USR1x" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_int_equal(fk_win_signal(bad[i]), 0);
}

static void test_range(void **state)
{
	(void)state;
	struct fk_win_spec w;
	fk_win_spec_init(&w);
	assert_false(fk_win_spec_any(&w));
	assert_true(fk_win_range("nvtx:forward*", &w));
	assert_int_equal(w.trigger, FK_WIN_NVTX);
	assert_string_equal(w.pattern, "forward*");
	assert_true(fk_win_spec_any(&w));
	assert_true(fk_win_range("cuda-profiler-api", &w));
	assert_int_equal(w.trigger, FK_WIN_CUDA_PROFILER);
	fk_win_spec_init(&w);
	assert_false(fk_win_range("nvtx:", &w));
	assert_false(fk_win_range("nvtx", &w));
	assert_false(fk_win_range("cuda", &w));
	assert_int_equal(w.trigger, FK_WIN_ALWAYS);
	char long_name[FK_WIN_PATTERN_MAX + 8] = "nvtx:";
	memset(long_name + 5, 'x', FK_WIN_PATTERN_MAX);
	long_name[5 + FK_WIN_PATTERN_MAX] = 0;
	assert_false(fk_win_range(long_name, &w));
}

static void test_schedule_parse(void **state)
{
	(void)state;
	struct fk_win_schedule s;
	assert_true(fk_win_schedule_parse("wait=1,warmup=2,active=3,repeat=4", &s));
	assert_true(s.wait == 1 && s.warmup == 2 && s.active == 3 && s.repeat == 4 && s.skip_first == 0);
	assert_true(fk_win_schedule_parse("active=2,skip_first=5", &s));
	assert_true(s.active == 2 && s.skip_first == 5 && s.wait == 0 && s.repeat == 0);
	const char *bad[] = { "", "active=0", "wait=1", "active=1,active=2", "active=1,", ",active=1",
			      "active=x", "active=-1", "active", "activ=1", "active=1,wiat=1",
			      "active=1000000" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		assert_false(fk_win_schedule_parse(bad[i], &s));
}

/* torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=1): steps 0
 * NONE, 1 WARMUP, 2 and 3 RECORD, then NONE for good. */
static void test_schedule_action(void **state)
{
	(void)state;
	struct fk_win_schedule s = { .wait = 1, .warmup = 1, .active = 2, .repeat = 1 };
	const enum fk_win_action once[] = { FK_WIN_STEP_NONE, FK_WIN_STEP_WARMUP, FK_WIN_STEP_RECORD,
					    FK_WIN_STEP_RECORD, FK_WIN_STEP_NONE, FK_WIN_STEP_NONE,
					    FK_WIN_STEP_NONE, FK_WIN_STEP_NONE };
	for (uint64_t k = 0; k < 8; k++)
		assert_int_equal(fk_win_schedule_action(&s, k), once[k]);
	/* repeat=0: the cycle of 4 steps forever. */
	s.repeat = 0;
	for (uint64_t k = 0; k < 40; k++)
		assert_int_equal(fk_win_schedule_action(&s, k), once[k % 4]);
	/* repeat=2, skip_first=3: three NONE, then two cycles. */
	s.repeat = 2;
	s.skip_first = 3;
	for (uint64_t k = 0; k < 3; k++)
		assert_int_equal(fk_win_schedule_action(&s, k), FK_WIN_STEP_NONE);
	for (uint64_t k = 3; k < 11; k++)
		assert_int_equal(fk_win_schedule_action(&s, k), once[(k - 3) % 4]);
	for (uint64_t k = 11; k < 20; k++)
		assert_int_equal(fk_win_schedule_action(&s, k), FK_WIN_STEP_NONE);
	/* active only: every step recorded. */
	struct fk_win_schedule all = { .active = 1 };
	assert_int_equal(fk_win_schedule_action(&all, 0), FK_WIN_STEP_RECORD);
	assert_int_equal(fk_win_schedule_action(&all, 123456), FK_WIN_STEP_RECORD);
}

static void test_describe(void **state)
{
	(void)state;
	struct fk_win_spec w;
	char buf[300];
	fk_win_spec_init(&w);
	fk_win_describe(&w, buf, sizeof buf);
	assert_string_equal(buf, "whole run");
	w.delay_s = 0.5;
	w.duration_s = 2;
	w.trigger = FK_WIN_TOGGLE;
	w.signal = SIGUSR1;
	size_t n = fk_win_describe(&w, buf, sizeof buf);
	assert_string_equal(buf, "delay 0.5 s, duration 2 s, toggle-signal SIGUSR1 (starts paused)");
	assert_int_equal(n, strlen(buf));
	fk_win_spec_init(&w);
	w.trigger = FK_WIN_SCHEDULE;
	w.schedule = (struct fk_win_schedule){ .wait = 1, .warmup = 1, .active = 2, .repeat = 1 };
	strcpy(w.pattern, FK_WIN_DEFAULT_STEP);
	fk_win_describe(&w, buf, sizeof buf);
	assert_string_equal(buf, "schedule skip_first=0,wait=1,warmup=1,active=2,repeat=1 over NVTX "
				 "ranges ProfilerStep#*");
	/* Cut, still terminated. */
	n = fk_win_describe(&w, buf, 10);
	assert_int_equal(n, 9);
	assert_int_equal(strlen(buf), 9);
}

static void add_edge(struct fk_capture *c, uint64_t edge, uint64_t t, uint64_t step)
{
	c->edges = realloc(c->edges, (c->nedges + 1) * sizeof *c->edges);
	assert_non_null(c->edges);
	c->edges[c->nedges++] = (struct fk_cap_window_edge){ edge, t, step };
}

static void test_windows_finish(void **state)
{
	(void)state;
	struct fk_capture c;
	memset(&c, 0, sizeof c);
	c.last_t_ns = 1000;
	/* Out of order as two threads' rings give them; the file's first
	 * record (edge 0, closed) repeated; edge 4 lost; 5 never closed. */
	add_edge(&c, 2, 300, 0);
	add_edge(&c, 0, 10, 0);
	add_edge(&c, 1, 100, 3);
	add_edge(&c, 3, 290, 0); /* its clock a little behind edge 2's */
	add_edge(&c, 5, 700, 0);
	assert_true(fk_cap_windows_finish(&c));
	assert_int_equal(c.nwindows, 2);
	assert_int_equal(c.windows[0].start_ns, 100);
	assert_int_equal(c.windows[0].end_ns, 300);
	assert_int_equal(c.windows[0].step, 3);
	/* Never before the edge it follows; the close (4) was lost, so the
	 * window runs on through 5 (merged: info says so) to the last record. */
	assert_int_equal(c.windows[1].start_ns, 300);
	assert_int_equal(c.windows[1].end_ns, 1000);
	assert_int_equal(c.window_edges_lost, 1);
	free(c.edges);
	free(c.windows);

	/* A forked child's file: open from its first record (edge 7). */
	memset(&c, 0, sizeof c);
	c.last_t_ns = 50;
	add_edge(&c, 7, 5, 0);
	add_edge(&c, 7, 5, 0);
	assert_true(fk_cap_windows_finish(&c));
	assert_int_equal(c.nwindows, 1);
	assert_int_equal(c.windows[0].start_ns, 5);
	assert_int_equal(c.windows[0].end_ns, 50);
	assert_int_equal(c.window_edges_lost, 0);
	free(c.edges);
	free(c.windows);
}

static void test_in_windows(void **state)
{
	(void)state;
	struct fk_capture c;
	memset(&c, 0, sizeof c);
	assert_true(fk_cap_in_windows(&c, 5)); /* a whole-run capture */
	struct fk_cap_window w[] = { { 10, 20, 0 }, { 30, 40, 0 }, { 40, 50, 0 } };
	c.window_spec = "test";
	assert_false(fk_cap_in_windows(&c, 15)); /* none recorded */
	c.windows = w;
	c.nwindows = 3;
	const uint64_t in[] = { 10, 15, 20, 30, 45, 50 }, out[] = { 0, 9, 21, 29, 51, 1000 };
	for (size_t i = 0; i < 6; i++) {
		assert_true(fk_cap_in_windows(&c, in[i]));
		assert_false(fk_cap_in_windows(&c, out[i]));
	}
}

/* Two kernels without host calls, at 5000 ns (in the window 4000-6000)
 * and 9000 (after it): self_cuda_time_total has the first only. */
static void test_windowed_capture(void **state)
{
	(void)state;
	struct cap b;
	cap_begin(&b);
	fk_cap_put_string(&b.p, "window", 6);
	fk_cap_put_string(&b.p, "delay 0.000003 s", 16);
	fk_cap_put_string(&b.p, "gpu_clock", 9);
	fk_cap_put_string(&b.p, "monotonic", 9);
	cap_chunk(&b, FK_CAP_META);
	fk_cap_put_uvarint(&b.p, 1000); /* base time, then (edge, delta, step) */
	fk_cap_put_uvarint(&b.p, 0), fk_cap_put_svarint(&b.p, 0), fk_cap_put_uvarint(&b.p, 0);
	fk_cap_put_uvarint(&b.p, 1), fk_cap_put_svarint(&b.p, 3000), fk_cap_put_uvarint(&b.p, 0);
	fk_cap_put_uvarint(&b.p, 2), fk_cap_put_svarint(&b.p, 2000), fk_cap_put_uvarint(&b.p, 0);
	cap_chunk(&b, FK_CAP_WINDOWS);
	fk_cap_put_u8(&b.p, FK_CAP_GPU_NAME);
	fk_cap_put_uvarint(&b.p, 1);
	fk_cap_put_string(&b.p, "k", 1);
	for (uint64_t i = 0; i < 2; i++) {
		fk_cap_put_u8(&b.p, FK_CAP_GPU_KERNEL);
		fk_cap_put_uvarint(&b.p, 100 + i); /* correlation: no API call */
		fk_cap_put_uvarint(&b.p, 0), fk_cap_put_uvarint(&b.p, 7);
		fk_cap_put_uvarint(&b.p, i ? 9000 : 5000);
		fk_cap_put_uvarint(&b.p, i ? 7000 : 3000); /* ns: 3 us in, 7 us out */
		fk_cap_put_uvarint(&b.p, 1), fk_cap_put_uvarint(&b.p, 0);
	}
	cap_chunk(&b, FK_CAP_GPU_KERNELS);
	cap_end(&b);
	struct fk_capture c;
	cap_load(&b, "w.stackcap", &c);
	assert_string_equal(c.window_spec, "delay 0.000003 s");
	assert_int_equal(c.nwindows, 1);
	assert_int_equal(c.windows[0].start_ns, 4000);
	assert_int_equal(c.windows[0].end_ns, 6000);
	struct fk_cap_fold_opts o = { .metric = FK_METRIC_SELF_CUDA };
	char *text = fold_text(&c, &o);
	assert_string_equal(text, "[no host stack];k 3\n");
	free(text);
	char *info = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&info, &len);
	fk_capture_info(f, "w", &c);
	fclose(f);
	assert_non_null(strstr(info, "\nwindows:     asked: delay 0.000003 s; 1 recorded, 0.000 s in "
				     "all: 0.000-0.000 s\n"));
	free(info);
	fk_capture_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_range),
		cmocka_unit_test(test_schedule_parse),
		cmocka_unit_test(test_schedule_action),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_windows_finish),
		cmocka_unit_test(test_in_windows),
		cmocka_unit_test(test_windowed_capture),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
