/* test_sink.c - formats/sink.h: what goes in comes out, plain and gzip
 * (one stream, or 4 MiB blocks compressed on threads when the machine has
 * two CPUs or more), with numbers written at every offset near the end of
 * the buffer, where fk_sink_i64 must flush first. Before it checked the
 * 256 KiB plain buffer's size in a 4 MiB block, it wrote past the block's
 * end (found by stackcap export --chrome in make bench).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <zlib.h>

#include "formats/grow.h"
#include "formats/sink.h"
#include "scratch_dir.h"

static int setup(void **state)
{
	(void)state;
	return scratch_make("fk_test_sink");
}

static int teardown(void **state)
{
	(void)state;
	return scratch_remove();
}

struct text {
	char *p;
	size_t len, cap;
};

static void add(struct text *t, const void *p, size_t n)
{
	assert_true(FK_GROW(t->p, t->cap, t->len + n, 1 << 20));
	memcpy(t->p + t->len, p, n);
	t->len += n;
}

/* Fills the buffer to within k bytes of its end, then writes a number of
 * the most digits and a newline, for k from 0 to 30; three rounds, so
 * blocks follow blocks. The same text is kept in *want. */
static void write_numbers(struct fk_sink *s, struct text *want)
{
	static const int64_t values[] = { INT64_MIN, INT64_MAX, -1234567890123456789LL, 7 };
	char filler[64];
	memset(filler, 'x', sizeof filler);
	for (int round = 0; round < 3; round++)
		for (size_t k = 0; k <= 30; k++) {
			/* Past k bytes before the end: to the end, then k before the next. */
			size_t room = s->cap - s->len;
			size_t fill = room >= k ? room - k : room + s->cap - k;
			while (fill > 0) {
				size_t n = fill < sizeof filler ? fill : sizeof filler;
				fk_sink_write(s, filler, n);
				add(want, filler, n);
				fill -= n;
			}
			int64_t v = values[k % 4];
			char digits[FK_I64_TEXT_MAX];
			fk_sink_i64(s, v);
			add(want, digits, fk_format_i64(digits, v));
			fk_sink_write(s, "\n", 1);
			add(want, "\n", 1);
			assert_true(s->len <= s->cap);
		}
}

static void check_file(const char *path, const struct text *want)
{
	gzFile f = gzopen(path, "rb"); /* reads plain files as they are */
	assert_non_null(f);
	char *got = malloc(want->len + 1);
	assert_non_null(got);
	size_t n = 0;
	int k;
	while (n <= want->len && (k = gzread(f, got + n, (unsigned)(want->len + 1 - n))) > 0)
		n += (size_t)k;
	assert_int_equal(gzclose(f), Z_OK);
	assert_int_equal(n, want->len);
	assert_memory_equal(got, want->p, want->len);
	free(got);
}

static void round_trip(int level)
{
	const char *path = path_of(level ? "out.gz" : "out.txt");
	struct fk_sink s;
	struct text want = { 0 };
	assert_true(fk_sink_open(&s, path, level));
	write_numbers(&s, &want);
	assert_true(fk_sink_close(&s));
	check_file(path, &want);
	free(want.p);
}

static void test_plain(void **state)
{
	(void)state;
	round_trip(0);
}

static void test_gzip(void **state)
{
	(void)state;
	round_trip(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain),
		cmocka_unit_test(test_gzip),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
