/* test_table.c - analysis/table/sums.h, analysis/table/view.h and
 * render/toptable.h: self and total per frame (a recursing frame counted
 * once per stack), calls, the by-leaf and by-kernel rows, sorting, and the
 * three output formats against tables worked out by hand: torch's column
 * layout and its time, memory and share formats, long names cut, CSV
 * quoting, JSON escaping, and the options a table refuses.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "render/toptable.h"

/* "stack value" lines (value may have decimals) into a stack table. */
static void load(struct fk_stacks *s, const char *const *lines)
{
	*s = (struct fk_stacks){ 0 };
	for (; *lines; lines++) {
		const char *sp = strrchr(*lines, ' ');
		struct fk_num v;
		assert_int_equal(fk_num_parse(sp + 1, strlen(sp + 1), &v), FK_NUM_OK);
		struct fk_num zero = { 0, 0 };
		assert_int_equal(fk_stacks_add(s, *lines, (size_t)(sp - *lines), zero, v, 1, NULL),
				 FK_STACKS_OK);
	}
}

static const struct fk_table_row *row(const struct fk_table *t, const char *name)
{
	for (uint32_t i = 0; i < t->names.count; i++)
		if (strcmp(t->rows[i].name, name) == 0)
			return &t->rows[i];
	fail_msg("no row %s", name);
	return NULL;
}

static uint64_t whole(struct fk_num n)
{
	assert_int_equal(n.scale, 0);
	return (uint64_t)n.mant;
}

static void test_self_total_recursion(void **state)
{
	(void)state;
	static const char *const lines[] = { "a;b;a;c 10", "a;b 5", "a;b 5", "d 1", NULL };
	struct fk_stacks s;
	load(&s, lines);
	struct fk_table t = { 0 };
	assert_true(fk_table_add(&t, 0, &s, true));
	assert_int_equal(whole(t.grand[0]), 21);
	assert_int_equal(t.grand_calls, 4);
	/* a twice in the first stack: counted once */
	assert_int_equal(whole(row(&t, "a")->total[0]), 20);
	assert_int_equal(whole(row(&t, "a")->self[0]), 0);
	assert_int_equal(row(&t, "a")->calls, 3);
	assert_int_equal(whole(row(&t, "b")->self[0]), 10);
	assert_int_equal(whole(row(&t, "b")->total[0]), 20);
	assert_int_equal(whole(row(&t, "c")->self[0]), 10);
	assert_int_equal(row(&t, "c")->calls, 1);
	assert_true(row(&t, "c")->leaf[0]);
	assert_false(row(&t, "a")->leaf[0]);

	const struct fk_table_row **rows;
	size_t n = fk_table_select(&t, FK_TABLE_BY_FRAME, (struct fk_table_sort){ FK_TABLE_SELF, 0 }, &rows);
	assert_int_equal(n, 4); /* b 10 and c 10 tie: by name; then d 1; a 0 */
	assert_string_equal(rows[0]->name, "b");
	assert_string_equal(rows[1]->name, "c");
	assert_string_equal(rows[2]->name, "d");
	assert_string_equal(rows[3]->name, "a");
	free(rows);
	n = fk_table_select(&t, FK_TABLE_BY_LEAF, (struct fk_table_sort){ FK_TABLE_TOTAL, 0 }, &rows);
	assert_int_equal(n, 3); /* a never ends a stack */
	assert_string_equal(rows[0]->name, "b");
	assert_string_equal(rows[2]->name, "d");
	free(rows);
	n = fk_table_select(&t, FK_TABLE_BY_FRAME, (struct fk_table_sort){ FK_TABLE_CALLS, 0 }, &rows);
	assert_string_equal(rows[0]->name, "a");
	free(rows);
	n = fk_table_select(&t, FK_TABLE_BY_KERNEL, (struct fk_table_sort){ FK_TABLE_SELF, 0 }, &rows);
	assert_int_equal(n, 0); /* no second (GPU) metric */
	free(rows);
	fk_table_free(&t);
	fk_stacks_free(&s);
}

static char *write(const struct fk_stacks *first, const struct fk_stacks *gpu,
		   const struct fk_tableview_opts *o, int want_status)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	char why[160] = "";
	assert_int_equal(fk_tableview_write(f, first, gpu, o, why, sizeof why), want_status);
	fclose(f);
	if (want_status == 2) {
		free(text);
		return strdup(why);
	}
	return text;
}

/* A torch export_stacks file: values are self CPU us, one line per call. */
/* A trace's stacks: one line per event of the leaf, zero values included,
 * so a frame's calls are its own lines, not those below it. */
static void test_calls_per_leaf(void **state)
{
	(void)state;
	static const char *const lines[] = { "a 3", "a;b 2", "a;b 1", "a;b;a 0", NULL };
	struct fk_stacks s;
	load(&s, lines);
	struct fk_table t = { 0 };
	assert_true(fk_table_add(&t, 0, &s, FK_CALLS_LEAF));
	assert_int_equal(t.grand_calls, 4);
	assert_int_equal(row(&t, "a")->calls, 2); /* "a" and "a;b;a", not b's */
	assert_int_equal(row(&t, "b")->calls, 2);
	assert_int_equal(whole(row(&t, "a")->total[0]), 6);
	assert_int_equal(whole(row(&t, "b")->self[0]), 3);
	fk_table_free(&t);
	fk_stacks_free(&s);
}

static void test_torch_text(void **state)
{
	(void)state;
	static const char *const lines[] = {
		"main;op_x 999",
		"main;op_x 1",
		"main;op_y 2500000",
		"main;a_very_long_operator_name_that_goes_on_and_on_past_the_limit 500",
		NULL,
	};
	struct fk_stacks s;
	load(&s, lines);
	struct fk_tableview_opts o = { .metric_given = true, .metric = FK_METRIC_SELF_CPU };
	char *text = write(&s, NULL, &o, 0);
	/* Grand total 2,501,500 us. The long name (63 characters) is cut to 52
	 * and "...", the name column is 55 wide; others 12, two spaces after
	 * each. main: total 2.501500 s over 4 calls = 625.375 ms. */
	const char *want =
"-------------------------------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
"                                                   Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg    # of Calls  \n"
"-------------------------------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
"                                                   op_y        99.94%        2.500s        99.94%        2.500s        2.500s             1  \n"
"                                                   op_x         0.04%       1.000ms         0.04%       1.000ms     500.000us             2  \n"
"a_very_long_operator_name_that_goes_on_and_on_past_t...         0.02%     500.000us         0.02%     500.000us     500.000us             1  \n"
"                                                   main         0.00%       0.000us       100.00%        2.502s     625.375ms             4  \n"
"-------------------------------------------------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
"Self CPU time total: 2.502s\n";
	assert_string_equal(text, want);
	free(text);

	/* --limit 1, --sort total: main; the widths still come from every row */
	o.limit = 1;
	o.sort = "cpu_time_total";
	text = write(&s, NULL, &o, 0);
	assert_non_null(strstr(text, "\n                                                   main         0.00%"));
	assert_null(strstr(text, "op_y"));
	free(text);

	/* CSV: exact values, stable names; JSON: the same fields */
	o = (struct fk_tableview_opts){ .metric_given = true, .metric = FK_METRIC_SELF_CPU,
					.format = FK_TOPTABLE_CSV, .limit = 2 };
	text = write(&s, NULL, &o, 0);
	assert_string_equal(text,
		"name,self_cpu_time_us,self_cpu_time_us_pct,total_cpu_time_us,total_cpu_time_us_pct,"
		"avg_cpu_time_us,calls\n"
		"op_y,2500000,99.94,2500000,99.94,2500000.000,1\n"
		"op_x,1000,0.04,1000,0.04,500.000,2\n");
	free(text);
	o.format = FK_TOPTABLE_JSON;
	o.limit = 1;
	text = write(&s, NULL, &o, 0);
	assert_string_equal(text,
		"{\"metrics\":[{\"key\":\"cpu_time_us\",\"unit\":\"us\",\"total\":2501500}],"
		"\"calls\":4,\"rows_total\":4,\"rows\":[\n"
		"{\"name\":\"op_y\",\"self_cpu_time_us\":2500000,\"self_cpu_time_us_pct\":99.94,"
		"\"total_cpu_time_us\":2500000,\"total_cpu_time_us_pct\":99.94,"
		"\"avg_cpu_time_us\":2500000.000,\"calls\":1}]}\n");
	free(text);

	/* asking for what the table lacks: a usage error */
	o = (struct fk_tableview_opts){ .metric_given = true, .metric = FK_METRIC_SELF_CPU,
					.sort = "cuda_time_total" };
	text = write(&s, NULL, &o, 2);
	assert_string_equal(text, "--sort cuda_time_total: this table has no such column");
	free(text);
	o.sort = NULL;
	o.by = FK_TABLE_BY_KERNEL;
	text = write(&s, NULL, &o, 2);
	assert_string_equal(text, "--by kernel needs a capture with GPU time");
	free(text);
	fk_stacks_free(&s);
}

/* Plain folded numbers: no units, no calls; names that need quoting. */
static void test_plain_numbers_and_escaping(void **state)
{
	(void)state;
	static const char *const lines[] = { "root;say \"hi\", then <go> 3", "root;\xc3\xa9t\xc3\xa9 1", NULL };
	struct fk_stacks s;
	load(&s, lines);
	struct fk_tableview_opts o = { 0 };
	char *text = write(&s, NULL, &o, 0);
	/* "été" is 3 characters wide, not 5 bytes; the name column is 19 + 4 */
	const char *want =
"-----------------------  ------------  ------------  ------------  ------------  \n"
"                   Name        Self %          Self       Total %         Total  \n"
"-----------------------  ------------  ------------  ------------  ------------  \n"
"    say \"hi\", then <go>        75.00%             3        75.00%             3  \n"
"                    \xc3\xa9t\xc3\xa9        25.00%             1        25.00%             1  \n"
"                   root         0.00%             0       100.00%             4  \n"
"-----------------------  ------------  ------------  ------------  ------------  \n"
"Total: 4\n";
	assert_string_equal(text, want);
	free(text);
	o.format = FK_TOPTABLE_CSV;
	o.limit = 1;
	text = write(&s, NULL, &o, 0);
	assert_string_equal(text, "name,self_value,self_value_pct,total_value,total_value_pct\n"
				  "\"say \"\"hi\"\", then <go>\",3,75.00,3,75.00\n");
	free(text);
	o.format = FK_TOPTABLE_JSON;
	text = write(&s, NULL, &o, 0);
	assert_non_null(strstr(text, "{\"name\":\"say \\\"hi\\\", then \\u003cgo\\u003e\",\"self_value\":3,"));
	free(text);
	fk_stacks_free(&s);
}

/* A name of bytes that are not UTF-8: each counts as one character, so it
 * is cut at 52 bytes like any long name (and never overruns the cut). */
static void test_invalid_utf8_name(void **state)
{
	(void)state;
	char line[320];
	memset(line, 0x80, 300);
	memcpy(line + 300, " 7", 3);
	const char *const lines[] = { line, NULL };
	struct fk_stacks s;
	load(&s, lines);
	struct fk_tableview_opts o = { 0 };
	char *text = write(&s, NULL, &o, 0);
	char want[64];
	memset(want, 0x80, 52);
	memcpy(want + 52, "...   ", 7);
	char *row = strstr(text, want);
	assert_non_null(row);
	assert_true(row == text || row[-1] == '\n'); /* the row starts with it: 55 wide */
	free(text);
	fk_stacks_free(&s);
}

/* A capture's table: CPU time, then CUDA time with the kernel launches as
 * calls, in torch's device column order. */
static void test_cpu_and_cuda(void **state)
{
	(void)state;
	static const char *const cpu[] = { "main;launch 3000", "main;prep 1000", NULL };
	static const char *const gpu[] = { "main;launch;gemm 0.5", "main;launch;gemm 0.5",
					   "main;launch;[memcpy HtoD] 2000.25", NULL };
	struct fk_stacks c, g;
	load(&c, cpu);
	load(&g, gpu);
	struct fk_tableview_opts o = { .capture = true, .metric = FK_METRIC_SELF_CPU,
				       .sort = "cuda_time_total" };
	char *text = write(&c, &g, &o, 0);
	/* CUDA: 2001.25 us in all, 3 launches; main and launch hold all of it
	 * (666.750 us a launch); gemm 1 us over 2 launches. */
	const char *want =
"-----------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
"             Name    Self CPU %      Self CPU   CPU total %     CPU total     Self CUDA   Self CUDA %    CUDA total  CUDA time avg    # of Calls  \n"
"-----------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
"           launch        75.00%       3.000ms        75.00%       3.000ms       0.000us         0.00%       2.001ms     667.083us             3  \n"
"             main         0.00%       0.000us       100.00%       4.000ms       0.000us         0.00%       2.001ms     667.083us             3  \n"
"    [memcpy HtoD]         0.00%       0.000us         0.00%       0.000us       2.000ms        99.95%       2.000ms       2.000ms             1  \n"
"             gemm         0.00%       0.000us         0.00%       0.000us       1.000us         0.05%       1.000us       0.500us             2  \n"
"             prep        25.00%       1.000ms        25.00%       1.000ms       0.000us         0.00%       0.000us             -             0  \n"
"-----------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  ------------  \n"
"Self CPU time total: 4.000ms\n"
"Self CUDA time total: 2.001ms\n";
	assert_string_equal(text, want);
	free(text);
	/* --by kernel: the names GPU stacks end in */
	o.by = FK_TABLE_BY_KERNEL;
	o.format = FK_TOPTABLE_CSV;
	text = write(&c, &g, &o, 0);
	assert_string_equal(text,
		"name,self_cpu_time_us,self_cpu_time_us_pct,total_cpu_time_us,total_cpu_time_us_pct,"
		"self_cuda_time_us,self_cuda_time_us_pct,total_cuda_time_us,total_cuda_time_us_pct,"
		"avg_cuda_time_us,calls\n"
		"[memcpy HtoD],0,0.00,0,0.00,2000.25,99.95,2000.25,99.95,2000.250,1\n"
		"gemm,0,0.00,0,0.00,1,0.05,1,0.05,0.500,2\n");
	free(text);
	fk_stacks_free(&c);
	fk_stacks_free(&g);
}

static void test_sort_names(void **state)
{
	(void)state;
	assert_true(fk_tableview_sort_known("self_cuda_time_total"));
	assert_true(fk_tableview_sort_known("count"));
	assert_true(fk_tableview_sort_known("cpu_memory_usage"));
	assert_false(fk_tableview_sort_known("value"));
	assert_false(fk_tableview_sort_known("stack"));
	assert_false(fk_tableview_sort_known(""));
}

/* The shape alone, with no writing: columns, rows in order, the refusals. */
static void test_build_view(void **state)
{
	(void)state;
	static const char *const lines[] = { "main;op_x 10", "main;op_y 30", "main 5", NULL };
	struct fk_stacks s;
	load(&s, lines);
	struct fk_tableview_opts o = { .metric_given = true, .metric = FK_METRIC_SELF_CPU,
				       .by = FK_TABLE_BY_LEAF };
	struct fk_toptable tt;
	struct fk_table t;
	char why[160] = "";
	assert_int_equal(fk_tableview_build(&tt, &t, &s, NULL, &o, why, sizeof why), 0);
	assert_ptr_equal(tt.t, &t);
	assert_int_equal(tt.nmetrics, 1);
	assert_string_equal(tt.metric[0].key, "cpu_time_us");
	assert_true(tt.calls);
	assert_int_equal(tt.nrows, 3); /* main is a leaf too */
	assert_string_equal(tt.rows[0]->name, "op_y");
	assert_string_equal(tt.rows[1]->name, "op_x");
	assert_string_equal(tt.rows[2]->name, "main");
	fk_tableview_free(&tt, &t);

	o.sort = "cuda_time_total";
	assert_int_equal(fk_tableview_build(&tt, &t, &s, NULL, &o, why, sizeof why), 2);
	assert_string_equal(why, "--sort cuda_time_total: this table has no such column");
	fk_tableview_free(&tt, &t);
	o.sort = NULL;
	o.by = FK_TABLE_BY_KERNEL;
	assert_int_equal(fk_tableview_build(&tt, &t, &s, NULL, &o, why, sizeof why), 2);
	assert_string_equal(why, "--by kernel needs a capture with GPU time");
	fk_tableview_free(&tt, &t);
	fk_stacks_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_self_total_recursion),
		cmocka_unit_test(test_calls_per_leaf),
		cmocka_unit_test(test_torch_text),
		cmocka_unit_test(test_plain_numbers_and_escaping),
		cmocka_unit_test(test_cpu_and_cuda),
		cmocka_unit_test(test_invalid_utf8_name),
		cmocka_unit_test(test_sort_names),
		cmocka_unit_test(test_build_view),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
