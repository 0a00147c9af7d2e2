/* test_entries.c - the commands' library entries, called as a test calls
 * them (no process, no argv): fk_stackfold_run on stack text, perf script
 * and the kinds it refuses, with its usage errors; fk_launch_run with a
 * missing shim, a program that cannot be run, and an output that cannot
 * be written (the program must not run uncaptured).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "scratch_dir.h"
#include "stderr_capture.h"

#include "capture/launch.h"
#include "formats/cli.h"
#include "render/stackfold_run.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("fk_entries");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

static char *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	static char buf[4096];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* Runs stackfold on one input into out.txt; *err gets stderr. */
static int stackfold(struct fk_stackfold_opts *o, const char *input, char **err)
{
	static char *inputs[1];
	inputs[0] = (char *)input;
	o->inputs = inputs;
	o->ninputs = 1;
	o->output = path_of("out.txt");
	struct fk_diag d;
	fk_diag_init(&d, "stackfold");
	struct capture c;
	capture_start(&c);
	int status = fk_stackfold_run(o, &d);
	*err = capture_end(&c);
	return status;
}

static void test_stackfold_text(void **state)
{
	(void)state;
	const char *in = path_of("in.txt");
	write_file(in, "a;b 2\na;c 3\na;b 5\n", 18);
	struct fk_stackfold_opts o;
	fk_stackfold_opts_defaults(&o);
	char *err;
	assert_int_equal(stackfold(&o, in, &err), FK_EXIT_OK);
	assert_string_equal(err, "");
	free(err);
	assert_string_equal(read_all(path_of("out.txt")), "a;b 7\na;c 3\n");

	fk_stackfold_opts_defaults(&o);
	o.order = FK_ORDER_VALUE;
	o.exclude[o.nexclude++] = "^c$";
	assert_int_equal(stackfold(&o, in, &err), FK_EXIT_OK);
	free(err);
	assert_string_equal(read_all(path_of("out.txt")), "a;b 7\n");
}

/* perf script is told by its look, and folded as stackcollapse-perf.pl does. */
static void test_stackfold_perf(void **state)
{
	(void)state;
	static const char perf[] = "prog 7 1.0: 250 cpu-clock:\n"
				   "\t401000 leaf+0x10 (/bin/prog)\n"
				   "\t402000 main+0x20 (/bin/prog)\n\n";
	const char *in = path_of("in.perf");
	write_file(in, perf, sizeof perf - 1);
	struct fk_stackfold_opts o;
	fk_stackfold_opts_defaults(&o);
	char *err;
	assert_int_equal(stackfold(&o, in, &err), FK_EXIT_OK);
	free(err);
	assert_string_equal(read_all(path_of("out.txt")), "prog;main;leaf 250\n");
}

static void test_stackfold_refusals(void **state)
{
	(void)state;
	const char *in = path_of("mem.raw.json");
	write_file(in, "[[1, 2, 8, 0]]", 14);
	struct fk_stackfold_opts o;
	fk_stackfold_opts_defaults(&o);
	char *err;
	assert_int_equal(stackfold(&o, in, &err), FK_EXIT_BAD_INPUT);
	assert_non_null(strstr(err, "a torch memory timeline: read it with memtimeline"));
	free(err);

	const char *text = path_of("in.txt");
	write_file(text, "a 1\n", 4);
	fk_stackfold_opts_defaults(&o);
	o.include[o.ninclude++] = "(";
	assert_int_equal(stackfold(&o, text, &err), FK_EXIT_USAGE);
	assert_non_null(strstr(err, "--include"));
	free(err);

	fk_stackfold_opts_defaults(&o);
	o.table = true;
	o.tableview.by = FK_TABLE_BY_KERNEL;
	assert_int_equal(stackfold(&o, text, &err), FK_EXIT_USAGE);
	assert_non_null(strstr(err, "--by kernel needs a capture with GPU time"));
	free(err);
}

static void test_launch_errors(void **state)
{
	(void)state;
	struct fk_launch_opts o;
	fk_launch_opts_defaults(&o);
	char *argv[] = { "/nonexistent/program", NULL };
	o.argv = argv;
	o.output = path_of("x.stackcap");
	struct fk_diag d;
	fk_diag_init(&d, "stackcap");
	struct capture c;

	/* A program that does not exist: said before anything else. */
	setenv("STACKCAP_LIB", "/nonexistent/libstackcap.so", 1);
	capture_start(&c);
	int status = fk_launch_run(&o, &d);
	char *err = capture_end(&c);
	assert_int_equal(status, 127);
	assert_non_null(strstr(err, "/nonexistent/program: No such file or directory"));
	free(err);

	/* A program that exists, but no shim. */
	char *sh[] = { "sh", "-c", "exit 0", NULL };
	o.argv = sh;
	capture_start(&c);
	status = fk_launch_run(&o, &d);
	err = capture_end(&c);
	assert_int_equal(status, FK_EXIT_USAGE);
	assert_non_null(strstr(err, "libstackcap.so not found"));
	free(err);
	o.argv = argv;

	/* Any readable file passes for the shim here: the program is never run. */
	setenv("STACKCAP_LIB", "/dev/null", 1);
	capture_start(&c);
	status = fk_launch_run(&o, &d);
	err = capture_end(&c);
	assert_int_equal(status, 127);
	assert_non_null(strstr(err, "/nonexistent/program: No such file or directory"));
	free(err);

	/* A capture that cannot be written: the program is not run uncaptured. */
	const char *marker = path_of("ran");
	char *touch[] = { "touch", (char *)marker, NULL };
	o.argv = touch;
	o.output = "/nonexistent/dir/x.stackcap";
	capture_start(&c);
	status = fk_launch_run(&o, &d);
	err = capture_end(&c);
	assert_int_equal(status, FK_EXIT_USAGE);
	assert_non_null(strstr(err, "cannot write the capture /nonexistent/dir/x.stackcap"));
	assert_int_equal(access(marker, F_OK), -1);
	free(err);
	unsetenv("STACKCAP_LIB");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stackfold_text),
		cmocka_unit_test(test_stackfold_perf),
		cmocka_unit_test(test_stackfold_refusals),
		cmocka_unit_test(test_launch_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
