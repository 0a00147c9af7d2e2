/* test_capkernels.c - CUDA kernel names in captures: CUPTI gives C++
 * kernels mangled; folding (analysis/capture/fold.c) names the kernel leaf
 * frame demangled without its argument list, as host frames are, keeps a
 * name that does not demangle as it is, and stackfold --table shows the
 * same names. The capture is built here (GPU_KERNELS records by hand): no
 * GPU, no CUPTI.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "render/stackfold_run.h"

#include "scratch_dir.h"
#include "capture_build.h"
#include "fold_text.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("test_capkernels");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

static const char *const kernel_names[] = {
	"_Z10vector_addPfS_S_i", /* void vector_add(float*, float*, float*, int) */
	"_Z4gemmIfEvPT_S1_i",    /* template<class T> void gemm(T*, T*, int), T = float */
	"_Z99short",             /* mangled-looking, but not: kept */
	"relu_kernel",           /* extern "C": as it is */
};

/* One kernel of each name, name i running (i + 1) us, no host stack. */
static const char *write_capture(void)
{
	struct cap b;
	cap_begin(&b);
	fk_cap_put_string(&b.p, "gpu", 3);
	fk_cap_put_string(&b.p, "on (test)", 9);
	cap_chunk(&b, FK_CAP_META);
	for (uint64_t i = 0; i < 4; i++) {
		fk_cap_put_u8(&b.p, FK_CAP_GPU_NAME);
		fk_cap_put_uvarint(&b.p, i + 1);
		fk_cap_put_string(&b.p, kernel_names[i], strlen(kernel_names[i]));
		fk_cap_put_u8(&b.p, FK_CAP_GPU_KERNEL);
		fk_cap_put_uvarint(&b.p, 100 + i); /* correlation: no API call */
		fk_cap_put_uvarint(&b.p, 0);       /* device */
		fk_cap_put_uvarint(&b.p, 7);       /* stream */
		fk_cap_put_uvarint(&b.p, 5000 * (i + 1));
		fk_cap_put_uvarint(&b.p, 1000 * (i + 1));
		fk_cap_put_uvarint(&b.p, i + 1);   /* name id */
		fk_cap_put_uvarint(&b.p, 0);       /* not from a graph */
	}
	cap_chunk(&b, FK_CAP_GPU_KERNELS);
	cap_end(&b);
	struct fk_capture c;
	const char *path = cap_load(&b, "k.stackcap", &c);
	fk_capture_free(&c);
	return path;
}

static void test_kernel_frames_demangled(void **state)
{
	(void)state;
	const char *path = write_capture();
	struct fk_diag d;
	fk_diag_init(&d, "test");
	struct fk_capture c;
	assert_true(fk_capture_load(path, "k", &c, &d));
	struct fk_cap_fold_opts o = { .metric = FK_METRIC_SELF_CUDA };
	char *text = fold_text(&c, &o);
	assert_string_equal(text, "[no host stack];_Z99short 3\n"
				  "[no host stack];gemm<float> 2\n"
				  "[no host stack];relu_kernel 4\n"
				  "[no host stack];vector_add 1\n");
	free(text);
	fk_capture_free(&c);
}

static void test_table_names_demangled(void **state)
{
	(void)state;
	const char *path = write_capture();
	char in[512];
	snprintf(in, sizeof in, "%s", path);
	char *inputs[] = { in };
	struct fk_stackfold_opts o;
	fk_stackfold_opts_defaults(&o);
	o.inputs = inputs;
	o.ninputs = 1;
	o.output = path_of("table.txt");
	o.table = true;
	o.read.capture.metric = FK_METRIC_SELF_CUDA;
	o.tableview.metric_given = true;
	struct fk_diag d;
	fk_diag_init(&d, "test");
	assert_int_equal(fk_stackfold_run(&o, &d), FK_EXIT_OK);
	FILE *f = fopen(path_of("table.txt"), "r");
	assert_non_null(f);
	char table[8192];
	size_t n = fread(table, 1, sizeof table - 1, f);
	fclose(f);
	table[n] = 0;
	assert_non_null(strstr(table, "vector_add"));
	assert_non_null(strstr(table, "gemm<float>"));
	assert_non_null(strstr(table, "relu_kernel"));
	assert_null(strstr(table, "_Z10vector_add"));
	assert_null(strstr(table, "_Z4gemm"));
}

/* Names are numbered in order: an id far past the last one is damage (or
 * a hostile file), and the chunk is skipped as damaged instead of making
 * a table of that many names (a 300-byte capture once took 300 MB). */
static void test_name_id_out_of_order_is_damage(void **state)
{
	(void)state;
	struct cap b;
	cap_begin(&b);
	fk_cap_put_u8(&b.p, FK_CAP_GPU_NAME);
	fk_cap_put_uvarint(&b.p, 1);
	fk_cap_put_string(&b.p, "first", 5);
	cap_chunk(&b, FK_CAP_GPU_KERNELS);
	fk_cap_put_u8(&b.p, FK_CAP_GPU_NAME);
	fk_cap_put_uvarint(&b.p, 40000000);
	fk_cap_put_string(&b.p, "far", 3);
	cap_chunk(&b, FK_CAP_GPU_KERNELS);
	fk_cap_put_u8(&b.p, FK_CAP_GPU_NAME);
	fk_cap_put_uvarint(&b.p, 2);
	fk_cap_put_string(&b.p, "second", 6);
	cap_chunk(&b, FK_CAP_GPU_KERNELS);
	cap_end(&b);
	struct fk_capture c;
	cap_load(&b, "far.stackcap", &c);
	assert_int_equal(c.bad_records, 1);
	assert_int_equal(c.nnames, 3); /* ids 1 and 2 (0 is never used) */
	fk_capture_free(&c);
}

/* A driver call's link names the runtime call that holds the stack, one
 * step; a damaged capture whose links go round in a circle (the fuzzer
 * made 100 -> 200 -> 100) folds its kernel under no stack, at once: it
 * was a loop that never ended. */
static void test_api_links_in_a_circle(void **state)
{
	(void)state;
	struct cap b;
	cap_begin(&b);
	fk_cap_put_uvarint(&b.p, 0); /* the chunk's time base */
	fk_cap_put_u8(&b.p, FK_CAP_API_LINK);
	fk_cap_put_uvarint(&b.p, 100);
	fk_cap_put_uvarint(&b.p, 200);
	fk_cap_put_u8(&b.p, FK_CAP_API_LINK);
	fk_cap_put_uvarint(&b.p, 200);
	fk_cap_put_uvarint(&b.p, 100);
	cap_chunk(&b, FK_CAP_GPU_API);
	fk_cap_put_u8(&b.p, FK_CAP_GPU_NAME);
	fk_cap_put_uvarint(&b.p, 1);
	fk_cap_put_string(&b.p, "relu_kernel", 11);
	fk_cap_put_u8(&b.p, FK_CAP_GPU_KERNEL);
	fk_cap_put_uvarint(&b.p, 100);  /* correlation: a driver call, linked */
	fk_cap_put_uvarint(&b.p, 0);    /* device */
	fk_cap_put_uvarint(&b.p, 7);    /* stream */
	fk_cap_put_uvarint(&b.p, 5000); /* start */
	fk_cap_put_uvarint(&b.p, 2000); /* duration */
	fk_cap_put_uvarint(&b.p, 1);    /* name id */
	fk_cap_put_uvarint(&b.p, 0);    /* not from a graph */
	cap_chunk(&b, FK_CAP_GPU_KERNELS);
	cap_end(&b);
	struct fk_capture c;
	cap_load(&b, "circle.stackcap", &c);
	assert_int_equal(c.nlinks, 2);
	struct fk_cap_fold_opts o = { .metric = FK_METRIC_SELF_CUDA };
	char *text = fold_text(&c, &o);
	assert_string_equal(text, "[no host stack];relu_kernel 2\n");
	free(text);
	fk_capture_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_frames_demangled),
		cmocka_unit_test(test_table_names_demangled),
		cmocka_unit_test(test_name_id_out_of_order_is_damage),
		cmocka_unit_test(test_api_links_in_a_circle),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
