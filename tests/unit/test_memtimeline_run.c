/* test_memtimeline_run.c - analysis/mem/timeline.h and
 * render/memtimeline_run.h, the memtimeline command's work called without
 * a command line: a torch raw timeline built into its peak and warnings;
 * the timeline written as coalesced JSON, gzipped raw rows and the HTML
 * page, with the summary and the peak and leak stacks; warnings counted and
 * fatal under strict; bad input returning FK_EXIT_BAD_INPUT with nothing
 * written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "render/memtimeline_run.h"

#include "scratch_dir.h"
#include "stderr_capture.h"

/* torch's documented example: 4 KiB pre-existing, an activation, a
 * temporary created and freed, the parameter's version bumped. */
static const char example[] =
	"[[-1, 1, 4096, 0], [1000500, 2, 1024, 4], [1000900, 2, 256, 3], "
	"[1000950, 4, -256, 3], [2000000, 3, -4096, 0], [2000000, 3, 4096, 0]]";

/* Two DESTROYs of bytes that are not live. */
static const char not_live[] =
	"[[1000, 2, 5, 3], [2000, 4, -7, 3], [3000, 4, -5, 3], [4000, 4, -5, 3]]";

static int setup(void **state)
{
	(void)state;
	return scratch_make("fk_test_memtimeline_run");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

/* A whole file, NUL-terminated (its length in *len); NULL when it is not
 * there. */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);
	assert_non_null(m);
	char chunk[4096];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
		assert_int_equal(fwrite(chunk, 1, k, m), k);
	fclose(f);
	fclose(m);
	if (len)
		*len = n;
	return buf;
}

/* path_of() keeps only 4 paths: the input's own copy. */
static char input[512];

static char *input_path(const char *name)
{
	snprintf(input, sizeof input, "%s", path_of(name));
	return input;
}

static void diag(struct fk_diag *d, bool strict)
{
	fk_diag_init(d, "test");
	d->strict = strict;
}

static void test_build(void **state)
{
	(void)state;
	char *in[] = { (char *)path_of("example.raw.json") };
	write_file(in[0], example, sizeof example - 1);
	struct fk_diag d;
	diag(&d, false);
	struct fk_memtimeline m;
	assert_true(fk_memtimeline_build(&m, in, 1, FK_MEM_DEVICE_ANY, NULL, &d));
	assert_int_equal(m.rep.events, 5); /* the version bump is one event */
	assert_int_equal(m.rep.peak_total, 4096 + 1024 + 256);
	assert_int_equal(m.rep.final[0], 4096);
	assert_int_equal(m.warnings, 0);
	fk_memtimeline_free(&m);
}

static void test_outputs(void **state)
{
	(void)state;
	char *in[] = { input_path("example2.raw.json") };
	write_file(in[0], example, sizeof example - 1);
	struct fk_memtimeline_opts o;
	fk_memtimeline_opts_defaults(&o);
	o.inputs = in;
	o.ninputs = 1;
	o.output = path_of("timeline.json");
	o.summary = (struct fk_memtimeline_out){ true, path_of("summary.txt") };
	o.peak = (struct fk_memtimeline_out){ true, path_of("peak.txt") };
	o.leaks = (struct fk_memtimeline_out){ true, path_of("leaks.txt") };
	struct fk_diag d;
	diag(&d, false);
	struct capture cap;
	capture_start(&cap);
	int rc = fk_memtimeline_run(&o, &d);
	char *err = capture_end(&cap);
	assert_int_equal(rc, FK_EXIT_OK);
	assert_string_equal(err, "");
	free(err);

	char *text = slurp(path_of("timeline.json"), NULL);
	assert_string_equal(text, "[[1000, 1000, 2000], [[0, 4096, 0, 0, 0, 0, 0, 0, 0], "
				  "[0, 4096, 0, 0, 0, 1024, 0, 0, 0], "
				  "[0, 4096, 0, 0, 0, 1024, 0, 0, 0]]]");
	free(text);
	text = slurp(path_of("summary.txt"), NULL);
	assert_non_null(strstr(text, "peak:      5.25 KiB (5376 bytes) at 0.000 ms\n"));
	assert_non_null(strstr(text, "warnings:  0\n"));
	free(text);
	text = slurp(path_of("peak.txt"), NULL);
	assert_string_equal(text, "PARAMETER 4096\nTEMPORARY 256\nACTIVATION 1024\n");
	free(text);
	text = slurp(path_of("leaks.txt"), NULL);
	assert_string_equal(text, "ACTIVATION 1024\n");
	free(text);

	/* The format follows the name: raw rows gzipped, the HTML page. */
	o = (struct fk_memtimeline_opts){ .inputs = in, .ninputs = 1, .device = FK_MEM_DEVICE_ANY,
					  .timeline = true, .output = path_of("t.raw.json.gz") };
	assert_int_equal(fk_memtimeline_run(&o, &d), FK_EXIT_OK);
	size_t len;
	text = slurp(o.output, &len);
	assert_true(len > 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b);
	free(text);
	o.output = path_of("t.html");
	assert_int_equal(fk_memtimeline_run(&o, &d), FK_EXIT_OK);
	text = slurp(o.output, NULL);
	assert_true(strncmp(text, "<html>", 6) == 0);
	assert_non_null(strstr(text, "<img src='data:image/png;base64,iVBORw0KGgo"));
	free(text);
}

static void test_warnings_and_strict(void **state)
{
	(void)state;
	char *in[] = { (char *)path_of("not_live.raw.json") };
	write_file(in[0], not_live, sizeof not_live - 1);
	struct fk_memtimeline_opts o;
	fk_memtimeline_opts_defaults(&o);
	o.inputs = in;
	o.ninputs = 1;
	o.output = path_of("warned.json");
	struct fk_diag d;
	diag(&d, false);
	struct capture cap;
	capture_start(&cap);
	assert_int_equal(fk_memtimeline_run(&o, &d), FK_EXIT_OK);
	char *err = capture_end(&cap);
	char want[2048];
	snprintf(want, sizeof want,
		 "%s: event 2: DESTROY of 7 bytes (TEMPORARY) that are not live\n"
		 "%s: event 4: DESTROY of 5 bytes (TEMPORARY) that are not live\n"
		 "test: 2 warnings\n", in[0], in[0]);
	assert_string_equal(err, want);
	free(err);
	assert_int_equal(d.bad_lines, 2);

	/* strict: the first warning is the error; nothing written */
	o.output = path_of("strict.json");
	diag(&d, true);
	capture_start(&cap);
	assert_int_equal(fk_memtimeline_run(&o, &d), FK_EXIT_BAD_INPUT);
	free(capture_end(&cap));
	assert_null(slurp(o.output, NULL));
}

static void test_bad_input(void **state)
{
	(void)state;
	char *in[] = { (char *)path_of("bad.raw.json") };
	write_file(in[0], "[[1, 9, 1, 0]]", 14);
	struct fk_memtimeline_opts o;
	fk_memtimeline_opts_defaults(&o);
	o.inputs = in;
	o.ninputs = 1;
	o.output = path_of("bad.json");
	o.summary = (struct fk_memtimeline_out){ true, path_of("bad-summary.txt") };
	struct fk_diag d;
	diag(&d, false);
	struct capture cap;
	capture_start(&cap);
	assert_int_equal(fk_memtimeline_run(&o, &d), FK_EXIT_BAD_INPUT);
	char *err = capture_end(&cap);
	assert_non_null(strstr(err, "event 1: unknown action 9"));
	free(err);
	assert_null(slurp(o.output, NULL));
	assert_null(slurp(o.summary.path, NULL));

	/* an output that cannot be created */
	write_file(in[0], example, sizeof example - 1);
	o.summary.wanted = false;
	o.output = path_of("no/such/dir.json");
	capture_start(&cap);
	assert_int_equal(fk_memtimeline_run(&o, &d), FK_EXIT_BAD_INPUT);
	err = capture_end(&cap);
	char want[1024];
	snprintf(want, sizeof want, "test: %s: No such file or directory\n", o.output);
	assert_string_equal(err, want);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_outputs),
		cmocka_unit_test(test_warnings_and_strict),
		cmocka_unit_test(test_bad_input),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
