/* test_capslices.c - a capture's threads as nested time slices
 * (analysis/capture/slices.h), on a capture built here with known times:
 * touching samples share their common frames' slices, jitter under half a
 * period is closed and a gap is not, durations are whole periods rounded
 * cumulatively, an API call is 1 ns placed before the sample whose period
 * holds it (and pushes the sample after it), NVTX pushes and pops cut the
 * frames and come as marks, and ranges left open or pops without a push
 * are counted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "analysis/capture/slices.h"

#include "scratch_dir.h"
#include "capture_build.h"

#define T0 INT64_C(10000000)
#define P INT64_C(1001001) /* one period at 999 Hz, rounded */

static int setup(void **state)
{
	(void)state;
	return scratch_make("test_capslices");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

struct got {
	uint32_t tid;
	struct fk_cap_slice s;
	char name[64];
};
static struct got got[64];
static size_t ngot;

static bool collect(void *ctx, uint32_t tid, const struct fk_cap_slice *s, size_t n)
{
	(void)ctx;
	for (size_t i = 0; i < n; i++) {
		assert_true(ngot < 64);
		got[ngot] = (struct got){ .tid = tid, .s = s[i] };
		snprintf(got[ngot].name, sizeof got[ngot].name, "%.*s", (int)s[i].len, s[i].name);
		ngot++;
	}
	return true;
}

static void sample(struct cap *b, uint32_t tid, uint32_t node, uint32_t weight, int64_t *prev,
		   int64_t t)
{
	fk_cap_put_uvarint(&b->p, tid);
	fk_cap_put_uvarint(&b->p, node);
	fk_cap_put_uvarint(&b->p, weight);
	fk_cap_put_svarint(&b->p, t - *prev);
	*prev = t;
}

static void nvtx(struct cap *b, uint8_t op, uint32_t tid, int64_t *prev, int64_t t, const char *name)
{
	fk_cap_put_u8(&b->p, op);
	fk_cap_put_uvarint(&b->p, tid);
	fk_cap_put_svarint(&b->p, t - *prev);
	*prev = t;
	fk_cap_put_uvarint(&b->p, 0);
	fk_cap_put_string(&b->p, name, strlen(name));
}

/* Python frames a, b, c (no modules needed to name them): nodes 2 = a,
 * 3 = a;b, 4 = a;c. */
static void load(struct fk_capture *c)
{
	struct cap b;
	cap_begin(&b);
	for (uint64_t id = 1; id <= 3; id++) {
		const char q[2] = { (char)('a' + id - 1), 0 };
		fk_cap_put_uvarint(&b.p, id);
		fk_cap_put_string(&b.p, "t.py", 4);
		fk_cap_put_string(&b.p, q, 1), fk_cap_put_string(&b.p, q, 1);
		fk_cap_put_uvarint(&b.p, 1), fk_cap_put_uvarint(&b.p, 0);
	}
	cap_chunk(&b, FK_CAP_PYFRAMES);
	fk_cap_put_uvarint(&b.p, 2);
	fk_cap_put_uvarint(&b.p, 0), fk_cap_put_uvarint(&b.p, FK_CAP_IP_PYTHON | 1);
	fk_cap_put_uvarint(&b.p, 2), fk_cap_put_uvarint(&b.p, FK_CAP_IP_PYTHON | 2);
	fk_cap_put_uvarint(&b.p, 2), fk_cap_put_uvarint(&b.p, FK_CAP_IP_PYTHON | 3);
	cap_chunk(&b, FK_CAP_STACKS);
	int64_t t = T0;
	fk_cap_put_uvarint(&b.p, (uint64_t)t);
	sample(&b, 7, 3, 1, &t, T0 + P);            /* [T0, T0+P] a;b */
	sample(&b, 7, 3, 1, &t, T0 + 2 * P + 1000); /* 1 us of jitter: closed */
	sample(&b, 7, 4, 1, &t, T0 + 3 * P);        /* a;c, touching */
	sample(&b, 7, 4, 1, &t, T0 + 4 * P);        /* after the call below */
	sample(&b, 7, 3, 2, &t, T0 + 10000000 + 2 * P); /* after a gap, in range r */
	sample(&b, 8, 2, 1, &t, T0 + 50 * P);
	cap_chunk(&b, FK_CAP_SAMPLES);
	/* A call during the 4th sample's period, at stack a;b. */
	t = T0;
	fk_cap_put_uvarint(&b.p, (uint64_t)t);
	fk_cap_put_u8(&b.p, FK_CAP_API_CALL);
	fk_cap_put_uvarint(&b.p, 7), fk_cap_put_uvarint(&b.p, 5);
	fk_cap_put_u8(&b.p, 1), fk_cap_put_uvarint(&b.p, 211), fk_cap_put_uvarint(&b.p, 3);
	fk_cap_put_svarint(&b.p, 3 * P + 100);
	cap_chunk(&b, FK_CAP_GPU_API);
	fk_cap_put_uvarint(&b.p, (uint64_t)t);
	nvtx(&b, FK_CAP_NVTX_PUSH, 7, &t, T0 + 10000000 + 500000, "r");
	nvtx(&b, FK_CAP_NVTX_POP, 7, &t, T0 + 10000000 + 2 * P + 10, "");
	nvtx(&b, FK_CAP_NVTX_POP, 8, &t, T0 + 10 * P, "");        /* nothing pushed */
	nvtx(&b, FK_CAP_NVTX_PUSH, 8, &t, T0 + 20 * P, "open"); /* never popped */
	cap_chunk(&b, FK_CAP_NVTX);
	cap_end(&b);
	/* Written and read as every test does; read again keeping the samples. */
	const char *path = cap_load(&b, "s.stackcap", c);
	fk_capture_free(c);
	struct fk_diag d;
	fk_diag_init(&d, "test");
	d.quiet = true;
	assert_true(fk_capture_load_samples(path, "s.stackcap", c, &d));
}

/* got[i] is a slice of kind on tid, [start, end], depth, its name ending in leaf. */
static void want(size_t i, uint32_t tid, uint8_t kind, int64_t start, int64_t end,
		 uint32_t depth, const char *leaf)
{
	assert_true(i < ngot);
	const struct got *g = &got[i];
	assert_int_equal(g->tid, tid);
	assert_int_equal(g->s.kind, kind);
	assert_int_equal(g->s.start, start);
	assert_int_equal(g->s.end, end);
	if (kind == FK_SLICE_FRAME || kind == FK_SLICE_CALL)
		assert_int_equal(g->s.depth, depth);
	size_t n = strlen(g->name), k = strlen(leaf);
	assert_true(n >= k);
	assert_string_equal(g->name + n - k, leaf);
}

static void test_layout(void **state)
{
	(void)state;
	struct fk_capture c;
	load(&c);
	struct fk_diag d;
	fk_diag_init(&d, "test");
	struct fk_cap_names *names = fk_cap_names_open(&c, &(struct fk_cap_fold_opts){ 0 }, &d);
	assert_non_null(names);
	struct fk_cap_slice_stats st;
	ngot = 0;
	assert_true(fk_capture_slices(&c, names, collect, NULL, &st, &d));
	/* Thread 7: a spans the touching samples and the call. Each slice comes
	 * when it closes, or after its ancestor when it starts with it. */
	want(0, 7, FK_SLICE_FRAME, T0 + 2 * P, T0 + 3 * P, 1, "c");
	want(1, 7, FK_SLICE_FRAME, T0 + 3 * P, T0 + 3 * P + 1, 1, "b");
	want(2, 7, FK_SLICE_CALL, T0 + 3 * P, T0 + 3 * P + 1, 2, "");
	assert_int_equal(got[2].s.ref, 0);
	want(3, 7, FK_SLICE_FRAME, T0 + 3 * P + 1, T0 + 4 * P + 1, 1, "c");
	want(4, 7, FK_SLICE_FRAME, T0, T0 + 4 * P + 1, 0, "a");
	want(5, 7, FK_SLICE_FRAME, T0, T0 + 2 * P, 1, "b");
	/* After the gap: the range begins where the sample it holds starts. */
	int64_t r = T0 + 10000000;
	want(6, 7, FK_SLICE_RANGE_BEGIN, r, r, 0, "r");
	want(7, 7, FK_SLICE_FRAME, r, r + 2 * P, 0, "a");
	want(8, 7, FK_SLICE_FRAME, r, r + 2 * P, 1, "b");
	want(9, 7, FK_SLICE_RANGE_END, r + 2 * P + 10, r + 2 * P + 10, 0, "r");
	/* Thread 8: the range left open ends with the thread. */
	want(10, 8, FK_SLICE_RANGE_BEGIN, T0 + 20 * P, T0 + 20 * P, 0, "open");
	want(11, 8, FK_SLICE_FRAME, T0 + 49 * P, T0 + 50 * P, 0, "a");
	want(12, 8, FK_SLICE_RANGE_END, T0 + 50 * P, T0 + 50 * P, 0, "open");
	assert_int_equal(ngot, 13);
	assert_int_equal(st.calls, 1);
	assert_int_equal(st.ranges, 2);
	assert_int_equal(st.unmatched_pops, 1);
	assert_int_equal(st.unclosed_ranges, 1);
	fk_cap_names_close(names);
	fk_capture_free(&c);
}

static bool stop(void *ctx, uint32_t tid, const struct fk_cap_slice *s, size_t n)
{
	(void)tid, (void)s, (void)n;
	++*(int *)ctx;
	return false;
}

static void test_stop(void **state)
{
	(void)state;
	struct fk_capture c;
	load(&c);
	struct fk_diag d;
	fk_diag_init(&d, "test");
	struct fk_cap_names *names = fk_cap_names_open(&c, &(struct fk_cap_fold_opts){ 0 }, &d);
	assert_non_null(names);
	struct fk_cap_slice_stats st;
	int calls = 0;
	assert_false(fk_capture_slices(&c, names, stop, &calls, &st, &d));
	assert_int_equal(calls, 1); /* nothing after the callback said stop */
	fk_cap_names_close(names);
	fk_capture_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_stop),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
