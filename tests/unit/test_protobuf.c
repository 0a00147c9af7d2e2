/* test_protobuf.c - formats/protobuf.h (the wire format) and formats/pprof.h
 * (profile.proto's fields), checked byte for byte against encodings from
 * the protocol buffers documentation, and a whole pprof file read back:
 * gunzipped, its top-level fields walked by a decoder written here.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "formats/pprof.h"
#include "formats/protobuf.h"

static void expect_bytes(const struct fk_pb *b, const unsigned char *want, size_t n)
{
	assert_false(b->nomem);
	assert_int_equal(b->len, n);
	assert_memory_equal(b->p, want, n);
}

static void test_varints(void **state)
{
	(void)state;
	static const struct { uint64_t v; unsigned char bytes[10]; size_t n; } cases[] = {
		{ 0, { 0x00 }, 1 },
		{ 1, { 0x01 }, 1 },
		{ 127, { 0x7f }, 1 },
		{ 128, { 0x80, 0x01 }, 2 },
		{ 150, { 0x96, 0x01 }, 2 }, /* the documentation's example */
		{ 300, { 0xac, 0x02 }, 2 },
		{ INT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f }, 9 },
		{ UINT64_MAX, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 10 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct fk_pb b = { 0 };
		fk_pb_varint(&b, cases[i].v);
		expect_bytes(&b, cases[i].bytes, cases[i].n);
		assert_int_equal(fk_pb_varint_size(cases[i].v), cases[i].n);
		fk_pb_free(&b);
	}
}

static void test_fields(void **state)
{
	(void)state;
	struct fk_pb b = { 0 };
	fk_pb_uint(&b, 1, 150); /* "08 96 01" */
	fk_pb_bytes(&b, 2, "testing", 7); /* "12 07 74 65 73 74 69 6e 67" */
	static const uint64_t packed[] = { 3, 270, 86942 };
	fk_pb_packed(&b, 4, packed, 3); /* "22 06 03 8e 02 9e a7 05" */
	fk_pb_packed(&b, 5, packed, 0); /* nothing */
	fk_pb_uint(&b, 16, 0);          /* a two-byte key: "80 01 00" */
	static const unsigned char want[] = {
		0x08, 0x96, 0x01, 0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',
		0x22, 0x06, 0x03, 0x8e, 0x02, 0x9e, 0xa7, 0x05, 0x80, 0x01, 0x00,
	};
	expect_bytes(&b, want, sizeof want);
	fk_pb_reset(&b);
	assert_int_equal(b.len, 0);
	fk_pb_free(&b);
}

/* ---- a small decoder, for reading the file back ---- */

static uint64_t get_varint(const unsigned char **p, const unsigned char *end)
{
	uint64_t v = 0;
	for (int shift = 0; *p < end; shift += 7) {
		unsigned char c = *(*p)++;
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80))
			return v;
	}
	fail_msg("a varint runs past the end");
	return 0;
}

struct field {
	uint32_t number;
	uint64_t value;           /* varint */
	const unsigned char *p;   /* length-delimited */
	size_t len;
};

static bool next_field(const unsigned char **p, const unsigned char *end, struct field *f)
{
	if (*p >= end)
		return false;
	uint64_t key = get_varint(p, end);
	*f = (struct field){ .number = (uint32_t)(key >> 3) };
	if ((key & 7) == 0) {
		f->value = get_varint(p, end);
	} else {
		assert_int_equal(key & 7, 2);
		f->len = get_varint(p, end);
		assert_true(f->len <= (size_t)(end - *p));
		f->p = *p;
		*p += f->len;
	}
	return true;
}

static void test_pprof_file(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_protobuf_XXXXXX", path[64];
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/p.pb.gz", dir);
	struct fk_sink out;
	assert_true(fk_sink_open(&out, path, 6));
	struct fk_pprof w;
	fk_pprof_begin(&w, &out);
	uint64_t cpu = fk_pprof_string(&w, "cpu", 3), ns = fk_pprof_string(&w, "nanoseconds", 11);
	fk_pprof_sample_type(&w, cpu, ns);
	uint64_t f = fk_pprof_string(&w, "main", 4);
	fk_pprof_function(&w, 1, f, 0, 0);
	fk_pprof_location(&w, 1, 0x401000, 1, 0);
	static const uint64_t locs[] = { 1, 1 };
	static const int64_t values[] = { INT64_MAX };
	fk_pprof_sample(&w, locs, 2, values, 1);
	fk_pprof_period(&w, cpu, ns, 1001001);
	assert_true(fk_pprof_end(&w));
	assert_true(fk_sink_close(&out));

	gzFile g = gzopen(path, "rb");
	assert_non_null(g);
	static unsigned char buf[4096];
	int n = gzread(g, buf, sizeof buf);
	gzclose(g);
	assert_true(n > 0);
	const unsigned char *p = buf, *end = buf + n;
	struct field fl;
	const char *strings[8];
	size_t lens[8], nstrings = 0, nsamples = 0;
	bool period = false;
	while (next_field(&p, end, &fl)) {
		if (fl.number == 6) { /* string_table */
			assert_true(nstrings < 8);
			strings[nstrings] = (const char *)fl.p;
			lens[nstrings++] = fl.len;
		} else if (fl.number == 2) { /* Sample: location_id packed, value packed */
			const unsigned char *q = fl.p, *qend = fl.p + fl.len;
			struct field s = { 0 };
			assert_true(next_field(&q, qend, &s));
			assert_int_equal(s.number, 1);
			assert_int_equal(s.len, 2); /* ids 1, 1 */
			assert_true(next_field(&q, qend, &s));
			assert_int_equal(s.number, 2);
			const unsigned char *v = s.p;
			assert_true(get_varint(&v, s.p + s.len) == (uint64_t)INT64_MAX);
			nsamples++;
		} else if (fl.number == 4) { /* Location: id 1, address, one Line */
			const unsigned char *q = fl.p, *qend = fl.p + fl.len;
			struct field s = { 0 };
			assert_true(next_field(&q, qend, &s) && s.number == 1 && s.value == 1);
			assert_true(next_field(&q, qend, &s) && s.number == 3 && s.value == 0x401000);
			assert_true(next_field(&q, qend, &s) && s.number == 4);
		} else if (fl.number == 12) {
			period = fl.value == 1001001;
		}
	}
	assert_int_equal(nstrings, 4);
	assert_int_equal(lens[0], 0); /* string_table[0] is "" */
	assert_true(lens[3] == 4 && memcmp(strings[3], "main", 4) == 0);
	assert_int_equal(nsamples, 1);
	assert_true(period);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_varints),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_pprof_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
