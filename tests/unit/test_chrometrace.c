/* test_chrometrace.c - formats/chrometrace.h: torch Chrome / Kineto traces.
 *
 * Covers exact us -> ns from the decimal text (integers, 3 decimals, more
 * decimals rounded, exponents, negatives, too large), the object and bare
 * array forms, the fields and args read (nested args skipped), metadata
 * names, string pids, baseTimeNanoseconds after the events, the rank,
 * raw control characters in names (read as spaces),
 * integers past 64 bits, events skipped for missing times, and bad JSON
 * reported with its byte offset.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "formats/chrometrace.h"

static int64_t ns_of(const char *s)
{
	int64_t v = -12345;
	assert_true(fk_trace_us_to_ns(s, strlen(s), &v));
	return v;
}

static bool ns_fails(const char *s)
{
	int64_t v;
	return !fk_trace_us_to_ns(s, strlen(s), &v);
}

static void test_us_to_ns(void **state)
{
	(void)state;
	assert_true(ns_of("0") == 0);
	assert_true(ns_of("12") == 12000);
	assert_true(ns_of("63.813") == 63813);
	assert_true(ns_of("95777561663.102") == 95777561663102LL);
	/* a double holds 1712195495519689.0 * 1000 only approximately */
	assert_true(ns_of("1712195495519689.0") == 1712195495519689000LL);
	assert_true(ns_of("1712195495519689.001") == 1712195495519689001LL);
	assert_true(ns_of("1.0005") == 1001); /* half away from zero */
	assert_true(ns_of("1.00049") == 1000);
	assert_true(ns_of("-1.5") == -1500);
	assert_true(ns_of("-0.0005") == -1);
	assert_true(ns_of("1.5e3") == 1500000);
	assert_true(ns_of("15E-1") == 1500);
	assert_true(ns_of("0.000000000000000000000000000000000000000001") == 0);
	assert_true(ns_of("9223372036854775.807") == INT64_MAX);
	assert_true(ns_fails("9223372036854775.808"));
	assert_true(ns_fails("1e300"));
	assert_true(ns_fails(""));
	assert_true(ns_fails("-"));
	assert_true(ns_fails("1.2.3"));
	assert_true(ns_fails("abc"));
	assert_true(ns_fails("1e"));
}

#define MAX_EVENTS 16
struct got {
	size_t n;
	struct fk_trace_event ev[MAX_EVENTS];
	char names[MAX_EVENTS][64], meta[MAX_EVENTS][64];
};

static bool collect(void *ctx, const struct fk_trace_event *ev)
{
	struct got *g = ctx;
	assert_true(g->n < MAX_EVENTS);
	g->ev[g->n] = *ev;
	snprintf(g->names[g->n], sizeof g->names[0], "%s", ev->name);
	snprintf(g->meta[g->n], sizeof g->meta[0], "%s", ev->meta_name);
	g->n++;
	return true;
}

/* Reads text as a trace; messages go to *msgs (freed by the caller). */
static bool read_text(const char *text, size_t n, struct got *g, struct fk_trace_info *info,
		      char **msgs)
{
	struct fk_diag d;
	fk_diag_init(&d, "test");
	size_t len;
	d.out = open_memstream(msgs, &len);
	assert_non_null(d.out);
	struct fk_input in;
	assert_true(fk_input_open_memory(&in, "t.json", text, n, &d));
	memset(g, 0, sizeof *g);
	bool ok = fk_chrometrace_read(&in, collect, g, info, &d);
	fk_input_close(&in);
	fclose(d.out);
	return ok;
}

static void test_object_form(void **state)
{
	(void)state;
	static const char t[] =
		"{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3},\n"
		" \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}],\n"
		" \"traceEvents\": [\n"
		"  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 10, \"tid\": 11,"
		"   \"ts\": 5.5, \"dur\": 2.25, \"args\": {\"External id\": 7, \"Input Dims\": [[1, 2]],"
		"   \"Ev Idx\": 9}},\n"
		"  {\"ph\": \"X\", \"cat\": \"Kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 8,"
		"   \"dur\": 1, \"args\": {\"correlation\": 99, \"device\": 0, \"stream\": 7, \"grid\": [1, 1, 1]}},\n"
		"  {\"ph\": \"f\", \"id\": 99, \"pid\": 0, \"tid\": 7, \"ts\": 8, \"cat\": \"ac2g\","
		"   \"name\": \"ac2g\", \"bp\": \"e\"},\n"
		"  {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 10, \"tid\": 11, \"args\": {\"name\": \"main\"}},\n"
		"  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 10,"
		"   \"tid\": 11, \"ts\": 9, \"args\": {\"Device Type\": 1, \"Device Id\": 0,"
		"   \"Addr\": 18446744073709551615, \"Bytes\": -512, \"Total Allocated\": 0, \"Total Reserved\": 2048}},\n"
		"  {\"ph\": \"X\", \"cat\": \"Trace\", \"name\": \"PyTorch Profiler (0)\", \"pid\": \"Spans\","
		"   \"tid\": \"PyTorch Profiler\", \"ts\": 1, \"dur\": 100}\n"
		" ],\n"
		" \"traceName\": \"x\", \"baseTimeNanoseconds\": 1700000000000000000}";
	struct got g;
	struct fk_trace_info info;
	char *msgs = NULL;
	assert_true(read_text(t, sizeof t - 1, &g, &info, &msgs));
	free(msgs);
	assert_int_equal(g.n, 6);
	assert_false(info.bare_array);
	assert_true(info.has_base && info.base_ns == 1700000000000000000LL);
	assert_true(info.has_rank && info.rank == 3);
	assert_int_equal(info.events, 6);
	assert_int_equal(info.skipped, 0);

	const struct fk_trace_event *e = &g.ev[0];
	assert_int_equal(e->ph, 'X');
	assert_int_equal(e->cat, FK_TCAT_CPU_OP);
	assert_string_equal(g.names[0], "aten::mm");
	assert_true(e->pid == 10 && e->tid == 11 && !e->pid_text);
	assert_true(e->ts_ns == 5500 && e->dur_ns == 2250);
	assert_true(fk_trace_has(e, FK_TARG_EXTERNAL_ID) && e->args[FK_TARG_EXTERNAL_ID] == 7);
	assert_false(fk_trace_has(e, FK_TARG_CORRELATION));

	e = &g.ev[1];
	assert_int_equal(e->cat, FK_TCAT_KERNEL); /* the legacy name */
	assert_true(e->args[FK_TARG_CORRELATION] == 99 && e->args[FK_TARG_STREAM] == 7);

	e = &g.ev[2];
	assert_true(e->ph == 'f' && e->cat == FK_TCAT_AC2G && e->has_id && e->id == 99 && e->bp_enclosing);

	e = &g.ev[3];
	assert_int_equal(e->ph, 'M');
	assert_string_equal(g.names[3], "thread_name");
	assert_string_equal(g.meta[3], "main");

	e = &g.ev[4];
	assert_int_equal(e->cat, FK_TCAT_INSTANT);
	assert_true((uint64_t)e->args[FK_TARG_ADDR] == UINT64_MAX);
	assert_true(e->args[FK_TARG_BYTES] == -512 && e->args[FK_TARG_TOTAL_RESERVED] == 2048);
	assert_true(e->args[FK_TARG_DEVICE_TYPE] == 1 && e->args[FK_TARG_DEVICE_ID] == 0);

	e = &g.ev[5];
	assert_int_equal(e->cat, FK_TCAT_TRACE_SPAN);
	assert_true(e->pid_text && e->tid_text);
}

static void test_bare_array(void **state)
{
	(void)state;
	static const char t[] =
		"[{\"name\": \"Operator\", \"cat\": \"Operator\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2,"
		" \"ts\": 1, \"dur\": 3},\n 42, \"x\",\n"
		" {\"name\": \"no dur\", \"cat\": \"cpu_op\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"ts\": 1},\n"
		" {\"name\": \"bad ts\", \"cat\": \"cpu_op\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2,"
		"  \"ts\": \"soon\", \"dur\": 1},\n"
		" {\"name\": \"string ts\", \"cat\": \"cpu_op\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2,"
		"  \"ts\": \"4.5\", \"dur\": -2}]";
	struct got g;
	struct fk_trace_info info;
	char *msgs = NULL;
	assert_true(read_text(t, sizeof t - 1, &g, &info, &msgs));
	free(msgs);
	assert_true(info.bare_array);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.ev[0].cat, FK_TCAT_CPU_OP);
	assert_int_equal(info.skipped, 2);
	assert_string_equal(g.names[1], "string ts");
	assert_true(g.ev[1].ts_ns == 4500 && g.ev[1].dur_ns == 0);
}

static void test_control_chars_and_huge(void **state)
{
	(void)state;
	static const char t[] =
		"{\"traceEvents\": [{\"name\": \"a\tb\x01" "c\\\"\x1f\", \"ph\": \"X\", \"cat\": \"cpu_op\","
		" \"pid\": 1, \"tid\": 2, \"ts\": 1, \"dur\": 1,"
		" \"args\": {\"correlation\": 123456789012345678901234567890, \"Python id\": 5.5}}],\n"
		" \"traceName\": \"tab\there\"}";
	struct got g;
	struct fk_trace_info info;
	char *msgs = NULL;
	assert_true(read_text(t, sizeof t - 1, &g, &info, &msgs));
	free(msgs);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.names[0], "a b c\" ");
	assert_int_equal(info.control_chars, 4);
	assert_false(fk_trace_has(&g.ev[0], FK_TARG_CORRELATION));
	assert_false(fk_trace_has(&g.ev[0], FK_TARG_PYTHON_ID));
	assert_int_equal(info.huge_numbers, 1);
}

static void test_bad_json(void **state)
{
	(void)state;
	static const char t[] = "{\"traceEvents\": [{\"name\": \"a\", \"ph\": \"X\",, }]}";
	struct got g;
	struct fk_trace_info info;
	char *msgs = NULL;
	assert_false(read_text(t, sizeof t - 1, &g, &info, &msgs));
	assert_non_null(strstr(msgs, "t.json: byte 42: malformed JSON ("));
	free(msgs);

	static const char cut[] = "{\"traceEvents\": [{\"name\": \"a\"";
	assert_false(read_text(cut, sizeof cut - 1, &g, &info, &msgs));
	assert_non_null(strstr(msgs, "t.json: byte 29: malformed JSON ("));
	free(msgs);

	assert_false(read_text("", 0, &g, &info, &msgs));
	assert_non_null(strstr(msgs, "t.json: byte 0: empty input"));
	free(msgs);

	assert_false(read_text("42", 2, &g, &info, &msgs));
	assert_non_null(strstr(msgs, "t.json: byte 0: a trace is a JSON object or array"));
	free(msgs);
}

static bool stop_at_first(void *ctx, const struct fk_trace_event *ev)
{
	(void)ev;
	++*(int *)ctx;
	return false;
}

static void test_stop(void **state)
{
	(void)state;
	static const char t[] = "[{\"ph\": \"M\", \"name\": \"a\"}, {\"ph\": \"M\", \"name\": \"b\"}]";
	struct fk_diag d;
	fk_diag_init(&d, "test");
	struct fk_input in;
	assert_true(fk_input_open_memory(&in, "t.json", t, sizeof t - 1, &d));
	struct fk_trace_info info;
	int calls = 0;
	assert_false(fk_chrometrace_read(&in, stop_at_first, &calls, &info, &d));
	assert_int_equal(calls, 1);
	fk_input_close(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_us_to_ns),
		cmocka_unit_test(test_object_form),
		cmocka_unit_test(test_bare_array),
		cmocka_unit_test(test_control_chars_and_huge),
		cmocka_unit_test(test_bad_json),
		cmocka_unit_test(test_stop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
