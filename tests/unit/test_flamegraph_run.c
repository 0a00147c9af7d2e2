/* test_flamegraph_run.c - render/flamegraph_run.h, the flamegraph command's
 * work called without a command line: files in, an SVG file out with the
 * frames and options asked for, --reverse and several inputs; and the
 * failures (nothing to draw, a missing input, a bad line under strict, an
 * output that cannot be created) returning FK_EXIT_BAD_INPUT with their
 * messages on stderr through fk_diag.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "render/flamegraph_run.h"

#include "scratch_dir.h"
#include "stderr_capture.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("fk_test_flamegraph_run");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

/* A whole file, NUL-terminated; NULL when it is not there. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		assert_int_equal(fwrite(chunk, 1, n, m), n);
	fclose(f);
	fclose(m);
	return buf;
}

/* Runs o with a diag named "test" (strict as asked); returns the status,
 * and what it printed in *err (free it). */
static int run(const struct fk_flamegraph_opts *o, bool strict, char **err)
{
	struct fk_diag d;
	fk_diag_init(&d, "test");
	d.strict = strict;
	struct capture cap;
	capture_start(&cap);
	int status = fk_flamegraph_run(o, &d);
	*err = capture_end(&cap);
	return status;
}

/* The defaults, drawing inputs into out. */
static void opts_for(struct fk_flamegraph_opts *o, char **inputs, size_t ninputs, const char *out)
{
	fk_flamegraph_opts_defaults(o);
	o->inputs = inputs;
	o->ninputs = ninputs;
	o->output = out;
}

/* Draws inputs into out with the defaults, which must succeed; the SVG
 * (free it). */
static char *draw_ok(char **inputs, size_t ninputs, const char *out)
{
	struct fk_flamegraph_opts o;
	opts_for(&o, inputs, ninputs, out);
	char *err;
	assert_int_equal(run(&o, false, &err), FK_EXIT_OK);
	free(err);
	char *svg = slurp(out);
	assert_non_null(svg);
	return svg;
}

static void test_frames_and_options(void **state)
{
	(void)state;
	char *in[] = { (char *)path_of("stacks.txt") };
	write_file(in[0], "main;foo 3\nmain;bar 1\n", 22);
	const char *out = path_of("graph.svg");
	struct fk_flamegraph_opts o;
	opts_for(&o, in, 1, out);
	o.flame.title = "Unit <title>";
	o.flame.countname = "bytes";
	char *err;
	assert_int_equal(run(&o, false, &err), FK_EXIT_OK);
	assert_string_equal(err, "");
	free(err);
	char *svg = slurp(out);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "<svg "));
	assert_non_null(strstr(svg, "<title>all (4 bytes, 100%)</title>"));
	assert_non_null(strstr(svg, "<title>main (4 bytes, 100.00%)</title>"));
	assert_non_null(strstr(svg, "<title>foo (3 bytes, 75.00%)</title>"));
	assert_non_null(strstr(svg, "<title>bar (1 bytes, 25.00%)</title>"));
	assert_non_null(strstr(svg, ">Unit &lt;title&gt;</text>")); /* escaped */
	free(svg);

	/* --reverse: merged from the leaves, main under each of them */
	o.reverse = true;
	assert_int_equal(run(&o, false, &err), FK_EXIT_OK);
	free(err);
	svg = slurp(out);
	assert_non_null(strstr(svg, "<title>main (3 bytes, 75.00%)</title>"));
	assert_non_null(strstr(svg, "<title>main (1 bytes, 25.00%)</title>"));
	free(svg);
}

static void test_inputs_add_up(void **state)
{
	(void)state;
	char *in[] = { (char *)path_of("one.txt"), (char *)path_of("two.txt") };
	write_file(in[0], "a;b 2\n", 6);
	write_file(in[1], "a;b 3\nc 5\n", 10);
	char *svg = draw_ok(in, 2, path_of("sum.svg"));
	assert_non_null(strstr(svg, "<title>b (5 samples, 50.00%)</title>"));
	assert_non_null(strstr(svg, "<title>c (5 samples, 50.00%)</title>"));
	free(svg);
}

/* Trailing empty frames are dropped as Perl's split drops them, so "a;;"
 * draws as "a" and merges with it; an empty frame inside a stack stays. */
static void test_trailing_empty_frames(void **state)
{
	(void)state;
	char *in[] = { (char *)path_of("empty_frames.txt") };
	const char *text = "a;; 3\na 2\nb;;c 4\n";
	write_file(in[0], text, strlen(text));
	char *svg = draw_ok(in, 1, path_of("empty_frames.svg"));
	assert_non_null(strstr(svg, "<title>a (5 samples, 55.56%)</title>"));
	assert_non_null(strstr(svg, "<title> (4 samples, 44.44%)</title>")); /* b's "" */
	assert_non_null(strstr(svg, "<title>c (4 samples, 44.44%)</title>"));
	/* all, a, b, b's "" and c: nothing under a */
	unsigned frames = 0;
	for (const char *p = svg; (p = strstr(p, "<g >")) != NULL; p++)
		frames++;
	assert_int_equal(frames, 5);
	free(svg);
}

static void test_nothing_to_draw(void **state)
{
	(void)state;
	char *in[] = { (char *)path_of("bad.txt") };
	write_file(in[0], "no value here\n", 14);
	const char *out = path_of("empty.svg");
	struct fk_flamegraph_opts o;
	opts_for(&o, in, 1, out);
	char *err;
	assert_int_equal(run(&o, false, &err), FK_EXIT_BAD_INPUT);
	char want[1024];
	snprintf(want, sizeof want,
		 "%s:1: no value at the end of the line\n"
		 "test: 1 bad line skipped\n"
		 "test: ERROR: No stack counts found\n", in[0]);
	assert_string_equal(err, want);
	free(err);
	/* flamegraph.pl's error SVG is still written */
	char *svg = slurp(out);
	assert_non_null(svg);
	assert_non_null(strstr(svg, "ERROR: No valid input provided to flamegraph"));
	free(svg);

	/* under strict the bad line is the error: nothing is written */
	const char *strict_out = path_of("strict.svg");
	o.output = strict_out;
	assert_int_equal(run(&o, true, &err), FK_EXIT_BAD_INPUT);
	snprintf(want, sizeof want, "%s:1: no value at the end of the line\n", in[0]);
	assert_string_equal(err, want);
	free(err);
	assert_null(slurp(strict_out));
}

static void test_missing_input_and_bad_output(void **state)
{
	(void)state;
	char *in[] = { (char *)path_of("missing.txt") };
	const char *out = path_of("never.svg");
	struct fk_flamegraph_opts o;
	opts_for(&o, in, 1, out);
	char *err;
	assert_int_equal(run(&o, false, &err), FK_EXIT_BAD_INPUT);
	char want[1024];
	snprintf(want, sizeof want, "test: %s: No such file or directory\n", in[0]);
	assert_string_equal(err, want);
	free(err);
	assert_null(slurp(out));

	/* an output in a directory that is not there */
	in[0] = (char *)path_of("good.txt");
	write_file(in[0], "a 1\n", 4);
	out = path_of("no/such/dir.svg");
	o.output = out;
	assert_int_equal(run(&o, false, &err), FK_EXIT_BAD_INPUT);
	snprintf(want, sizeof want, "test: %s: No such file or directory\n", out);
	assert_string_equal(err, want);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_and_options),
		cmocka_unit_test(test_inputs_add_up),
		cmocka_unit_test(test_trailing_empty_frames),
		cmocka_unit_test(test_nothing_to_draw),
		cmocka_unit_test(test_missing_input_and_bad_output),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
