/* test_capture.c - the stackcap capture format, formats/capture.h: the
 * writer (fk_cap_header_encode, fk_cap_chunk_encode, fk_cap_put_*) and the
 * reader (fk_cap_read, fk_cap_get_*, fk_cap_describe_end) against each other
 * and against damaged files: every chunk back in order with its type, seq
 * and payload (zlib-compressed and stored chunks, an empty one); clean with
 * an END chunk; a cut at every byte offset (truncated, the whole chunks
 * before it intact); a flipped byte anywhere in a middle chunk (that chunk
 * skipped, the rest read); chunks whose CRC is right but whose body is not
 * (bad zlib data, wrong raw length); bad file headers (magic, CRC, version,
 * header size, too short, empty) refused with a message naming the file;
 * sequence gaps; varints at their extremes (bytes checked against LEB128 and
 * zigzag by hand); a cursor read past its end.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include <setjmp.h>
#include <cmocka.h>

#include "stderr_capture.h"

#include "formats/capture.h"
#include "formats/input.h"

/* ---- helpers ------------------------------------------------------------ */

static char tmpdir[] = "/tmp/test_capture.XXXXXX";

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void path_of(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", tmpdir, name);
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	if (n)
		assert_int_equal(fwrite(p, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}


static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* ---- what the reader hands back ---------------------------------------- */

#define MAX_GOT 64

struct got {
	size_t n;
	uint16_t type[MAX_GOT];
	uint64_t seq[MAX_GOT];
	uint8_t *payload[MAX_GOT];
	size_t len[MAX_GOT];
	size_t stop_after; /* 0: never stop */
};

static bool collect(void *ctx, uint16_t type, uint64_t seq, const uint8_t *payload, size_t len)
{
	struct got *g = ctx;
	assert_true(g->n < MAX_GOT);
	g->type[g->n] = type;
	g->seq[g->n] = seq;
	g->len[g->n] = len;
	g->payload[g->n] = malloc(len ? len : 1);
	assert_non_null(g->payload[g->n]);
	if (len)
		memcpy(g->payload[g->n], payload, len);
	g->n++;
	return !(g->stop_after && g->n >= g->stop_after);
}

static void got_free(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->payload[i]);
	memset(g, 0, sizeof *g);
}

/* ---- the capture under test --------------------------------------------- */

#define NCHUNKS 8

/* The file in memory, where each chunk starts, and what went into it. */
struct built {
	struct fk_cap_buf file;
	size_t nchunks;
	size_t off[NCHUNKS + 1]; /* off[nchunks] == file.len */
	uint16_t type[NCHUNKS];
	uint64_t seq[NCHUNKS];
	struct fk_cap_buf payload[NCHUNKS];
};

static const struct fk_cap_header test_header = {
	.version = FK_CAP_VERSION,
	.pid = 4242,
	.ppid = 4241,
	.start_mono_ns = UINT64_C(123456789012345),
	.start_real_ns = UINT64_C(1700000000123456789),
	.sample_hz = 999,
	.flags = FK_CAP_HDR_ALLOCS | FK_CAP_HDR_ALLOC_SAMPLED,
	.alloc_sample = 65536,
};

static uint64_t rng_state = 0x9E3779B97F4A7C15u;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
	return rng_state;
}

/* Chunk payloads, each kind on purpose:
 *   0 META     short strings (< 64 bytes: stored as is)
 *   1 MODULES  a long repetitive text (compressible: zlib)
 *   2 STACKS   600 random bytes (incompressible: stored as is)
 *   3 THREADS  empty
 *   4 SAMPLES  4000 varints, compressible
 *   5 ALLOCS   random varints, partly compressible
 *   6 CLOCK    two varints
 *   7 END      totals (only when with_end) */
static void fill_payload(struct fk_cap_buf *b, size_t i)
{
	switch (i) {
	case 0:
		fk_cap_put_string(b, "command", 7);
		fk_cap_put_string(b, "./a.out x", 9);
		break;
	case 1:
		for (int k = 0; k < 40; k++) {
			fk_cap_put_string(b, "/usr/lib/x86_64-linux-gnu/libc.so.6", 35);
			fk_cap_put_uvarint(b, UINT64_C(0x7f0000000000) + (uint64_t)k * 4096);
		}
		break;
	case 2:
		for (int k = 0; k < 600; k++)
			fk_cap_put_u8(b, (uint8_t)rnd());
		break;
	case 3:
		break;
	case 4:
		for (uint64_t k = 0; k < 4000; k++)
			fk_cap_put_uvarint(b, k % 17);
		break;
	case 5:
		for (int k = 0; k < 300; k++) {
			fk_cap_put_u8(b, FK_CAP_ALLOC);
			fk_cap_put_svarint(b, (int64_t)(rnd() % 2000) - 1000);
			fk_cap_put_uvarint(b, rnd() >> 20);
		}
		break;
	case 6:
		fk_cap_put_uvarint(b, UINT64_C(123456789999999));
		fk_cap_put_uvarint(b, UINT64_C(1700000000999999999));
		break;
	default:
		fk_cap_put_uvarint(b, 250);
		fk_cap_put_uvarint(b, 111);
		fk_cap_put_uvarint(b, 0);
		fk_cap_put_uvarint(b, 0);
		break;
	}
}

static const uint16_t chunk_types[NCHUNKS] = {
	FK_CAP_META, FK_CAP_MODULES, FK_CAP_STACKS, FK_CAP_THREADS,
	FK_CAP_SAMPLES, FK_CAP_ALLOCS, FK_CAP_CLOCK, FK_CAP_END,
};

static void build(struct built *b, bool with_end)
{
	memset(b, 0, sizeof *b);
	uint8_t hdr[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(hdr, &test_header);
	fk_cap_put_bytes(&b->file, hdr, sizeof hdr);
	b->nchunks = with_end ? NCHUNKS : NCHUNKS - 1;
	for (size_t i = 0; i < b->nchunks; i++) {
		fill_payload(&b->payload[i], i);
		assert_false(b->payload[i].failed);
		b->type[i] = chunk_types[i];
		b->seq[i] = i;
		b->off[i] = b->file.len;
		assert_true(fk_cap_chunk_encode(&b->file, b->type[i], b->seq[i], b->payload[i].p,
						b->payload[i].len));
	}
	b->off[b->nchunks] = b->file.len;
	assert_false(b->file.failed);
}

static void built_free(struct built *b)
{
	fk_cap_buf_free(&b->file);
	for (size_t i = 0; i < NCHUNKS; i++)
		fk_cap_buf_free(&b->payload[i]);
}

static uint16_t flags_of(const struct built *b, size_t i)
{
	const uint8_t *h = b->file.p + b->off[i];
	return (uint16_t)(h[6] | h[7] << 8);
}

/* Reads bytes as a file; stderr captured into *err when err is given. */
static bool read_bytes(const uint8_t *p, size_t n, struct fk_cap_header *h, struct got *g,
		       struct fk_cap_status *st, char **err)
{
	char path[256];
	path_of(path, sizeof path, "cap.stackcap");
	write_file(path, p, n);
	struct fk_diag d;
	fk_diag_init(&d, "test_capture");
	struct capture cap;
	capture_start(&cap);
	bool ok = fk_cap_read(path, "cap.stackcap", h, collect, g, st, &d);
	char *e = capture_end(&cap);
	if (err)
		*err = e;
	else
		free(e);
	unlink(path);
	return ok;
}

/* Chunk i of b came back as got's entry k, byte for byte. */
static void assert_chunk(const struct built *b, size_t i, const struct got *g, size_t k)
{
	assert_true(k < g->n);
	assert_int_equal(g->type[k], b->type[i]);
	assert_int_equal(g->seq[k], b->seq[i]);
	assert_int_equal(g->len[k], b->payload[i].len);
	if (g->len[k])
		assert_memory_equal(g->payload[k], b->payload[i].p, g->len[k]);
}

/* ---- varints and the cursor --------------------------------------------- */

static void test_uvarint_round_trip(void **state)
{
	(void)state;
	static const struct {
		uint64_t v;
		size_t bytes;
	} cases[] = {
		{ 0, 1 }, { 1, 1 }, { 127, 1 }, { 128, 2 }, { 300, 2 }, { 16383, 2 }, { 16384, 3 },
		{ UINT32_MAX, 5 }, { (uint64_t)1 << 56, 9 }, { ((uint64_t)1 << 63) - 1, 9 },
		{ (uint64_t)1 << 63, 10 }, { UINT64_MAX - 1, 10 }, { UINT64_MAX, 10 },
	};
	struct fk_cap_buf b = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t before = b.len;
		fk_cap_put_uvarint(&b, cases[i].v);
		assert_int_equal(b.len - before, cases[i].bytes);
	}
	struct fk_cap_cursor c = { b.p, b.p + b.len, false };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_true(fk_cap_more(&c));
		assert_int_equal(fk_cap_get_uvarint(&c), cases[i].v);
		assert_false(c.bad);
	}
	assert_false(fk_cap_more(&c));
	assert_false(c.bad);
	fk_cap_buf_free(&b);

	/* The bytes themselves: LEB128, low 7 bits first. */
	fk_cap_put_uvarint(&b, 128);
	fk_cap_put_uvarint(&b, 300);
	fk_cap_put_uvarint(&b, UINT64_MAX);
	static const uint8_t want[] = { 0x80, 0x01, 0xAC, 0x02, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
					0xFF, 0xFF, 0xFF, 0xFF, 0x01 };
	assert_int_equal(b.len, sizeof want);
	assert_memory_equal(b.p, want, sizeof want);
	fk_cap_buf_free(&b);
}

static void test_svarint_round_trip(void **state)
{
	(void)state;
	static const struct {
		int64_t v;
		uint64_t zigzag;
	} cases[] = {
		{ 0, 0 }, { -1, 1 }, { 1, 2 }, { -2, 3 }, { 63, 126 }, { -64, 127 }, { 64, 128 },
		{ -65, 129 }, { INT32_MAX, UINT64_C(4294967294) }, { INT32_MIN, UINT64_C(4294967295) },
		{ INT64_MAX, UINT64_MAX - 1 }, { INT64_MIN, UINT64_MAX }, { INT64_MIN + 1, UINT64_MAX - 2 },
	};
	struct fk_cap_buf b = { 0 }, z = { 0 };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fk_cap_put_svarint(&b, cases[i].v);
		fk_cap_put_uvarint(&z, cases[i].zigzag);
	}
	/* Zigzag then LEB128: the same bytes as the unsigned form of the zigzag. */
	assert_int_equal(b.len, z.len);
	assert_memory_equal(b.p, z.p, b.len);
	struct fk_cap_cursor c = { b.p, b.p + b.len, false };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_true(fk_cap_get_svarint(&c) == cases[i].v);
	assert_false(c.bad);
	assert_false(fk_cap_more(&c));
	fk_cap_buf_free(&b);
	fk_cap_buf_free(&z);

	/* Random values both ways. */
	for (int i = 0; i < 10000; i++) {
		int64_t v = (int64_t)rnd() >> (rnd() % 64);
		uint64_t u = rnd() >> (rnd() % 64);
		fk_cap_put_svarint(&b, v);
		fk_cap_put_uvarint(&b, u);
		struct fk_cap_cursor r = { b.p, b.p + b.len, false };
		assert_true(fk_cap_get_svarint(&r) == v);
		assert_true(fk_cap_get_uvarint(&r) == u);
		assert_false(r.bad);
		assert_true(r.p == r.end);
		b.len = 0;
	}
	fk_cap_buf_free(&b);
}

static void test_strings_and_bytes(void **state)
{
	(void)state;
	struct fk_cap_buf b = { 0 };
	fk_cap_put_string(&b, "hello", 5);
	fk_cap_put_string(&b, "", 0);
	fk_cap_put_u8(&b, 0xAB);
	fk_cap_put_bytes(&b, "\0\1\2", 3);
	struct fk_cap_cursor c = { b.p, b.p + b.len, false };
	size_t n;
	const uint8_t *s = fk_cap_get_bytes(&c, &n);
	assert_int_equal(n, 5);
	assert_memory_equal(s, "hello", 5);
	fk_cap_get_bytes(&c, &n);
	assert_int_equal(n, 0);
	assert_int_equal(fk_cap_get_u8(&c), 0xAB);
	assert_int_equal(fk_cap_get_u8(&c), 0);
	assert_int_equal(fk_cap_get_u8(&c), 1);
	assert_int_equal(fk_cap_get_u8(&c), 2);
	assert_false(c.bad);
	assert_false(fk_cap_more(&c));
	fk_cap_buf_free(&b);
}

static void test_cursor_past_end(void **state)
{
	(void)state;
	/* Nothing at all. */
	struct fk_cap_cursor c = { NULL, NULL, false };
	assert_false(fk_cap_more(&c));
	assert_int_equal(fk_cap_get_u8(&c), 0);
	assert_true(c.bad);

	/* A varint cut after a continuation byte. */
	static const uint8_t cut[] = { 0x80, 0x80 };
	c = (struct fk_cap_cursor){ cut, cut + sizeof cut, false };
	assert_int_equal(fk_cap_get_uvarint(&c), 0);
	assert_true(c.bad);
	c = (struct fk_cap_cursor){ cut, cut + sizeof cut, false };
	assert_int_equal(fk_cap_get_svarint(&c), 0);
	assert_true(c.bad);

	/* Longer than any 64-bit value (11 bytes): bad, not a wrapped number. */
	static const uint8_t overlong[] = { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
					    0x80, 0x80, 0x01 };
	c = (struct fk_cap_cursor){ overlong, overlong + sizeof overlong, false };
	assert_int_equal(fk_cap_get_uvarint(&c), 0);
	assert_true(c.bad);

	/* A string longer than what is left. */
	static const uint8_t str[] = { 10, 'a', 'b', 'c' };
	c = (struct fk_cap_cursor){ str, str + sizeof str, false };
	size_t n = 99;
	const uint8_t *p = fk_cap_get_bytes(&c, &n);
	assert_non_null(p);
	assert_int_equal(n, 0);
	assert_true(c.bad);

	/* Bad sticks: later reads return 0 even where bytes are left. */
	static const uint8_t two[] = { 0x80, 5, 7, 9 };
	c = (struct fk_cap_cursor){ two, two + 1, false };
	fk_cap_get_uvarint(&c);
	assert_true(c.bad);
	c.end = two + sizeof two;
	assert_false(fk_cap_more(&c));
	assert_int_equal(fk_cap_get_u8(&c), 0);
	assert_int_equal(fk_cap_get_uvarint(&c), 0);
	fk_cap_get_bytes(&c, &n);
	assert_int_equal(n, 0);
	assert_true(c.bad);

	/* Exactly at the end is fine; one more is not. */
	static const uint8_t one[] = { 42 };
	c = (struct fk_cap_cursor){ one, one + 1, false };
	assert_int_equal(fk_cap_get_u8(&c), 42);
	assert_false(c.bad);
	assert_false(fk_cap_more(&c));
	assert_int_equal(fk_cap_get_u8(&c), 0);
	assert_true(c.bad);
}

/* ---- whole files ---------------------------------------------------------- */

static void test_round_trip_clean(void **state)
{
	(void)state;
	struct built b;
	build(&b, true);
	/* The writer chose as intended: zstd where it pays, raw elsewhere. */
	assert_int_equal(flags_of(&b, 0), 0);               /* short */
	assert_int_equal(flags_of(&b, 1), FK_CAP_FLAG_ZSTD); /* repetitive */
	assert_int_equal(flags_of(&b, 2), 0);               /* random */
	assert_int_equal(flags_of(&b, 3), 0);               /* empty */
	assert_int_equal(flags_of(&b, 4), FK_CAP_FLAG_ZSTD);
	assert_true(b.off[2] + FK_CAP_CHUNK_HEADER_SIZE + b.payload[2].len == b.off[3]);
	assert_true(b.off[5] - b.off[4] < b.payload[4].len / 2);
	/* The chunk header's fixed fields. */
	const uint8_t *h = b.file.p + b.off[4];
	assert_int_equal(rd32(h), FK_CAP_CHUNK_MAGIC);
	assert_memory_equal(h, "CHNK", 4);
	assert_int_equal(rd32(h + 12), b.payload[4].len);
	assert_int_equal(rd32(h + 8) + FK_CAP_CHUNK_HEADER_SIZE, b.off[5] - b.off[4]);
	uint32_t crc = (uint32_t)crc32(0, h, 24);
	crc = (uint32_t)crc32(crc, h + FK_CAP_CHUNK_HEADER_SIZE, rd32(h + 8));
	assert_int_equal(rd32(h + 24), crc);

	struct fk_cap_header hd;
	struct fk_cap_status st;
	struct got g = { 0 };
	assert_true(read_bytes(b.file.p, b.file.len, &hd, &g, &st, NULL));
	assert_int_equal(hd.version, FK_CAP_VERSION);
	assert_int_equal(hd.pid, test_header.pid);
	assert_int_equal(hd.ppid, test_header.ppid);
	assert_int_equal(hd.start_mono_ns, test_header.start_mono_ns);
	assert_int_equal(hd.start_real_ns, test_header.start_real_ns);
	assert_int_equal(hd.sample_hz, test_header.sample_hz);
	assert_int_equal(hd.flags, test_header.flags);
	assert_int_equal(hd.alloc_sample, test_header.alloc_sample);
	assert_int_equal(g.n, NCHUNKS);
	for (size_t i = 0; i < NCHUNKS; i++)
		assert_chunk(&b, i, &g, i);
	assert_int_equal(st.chunks, NCHUNKS);
	assert_true(st.clean);
	assert_false(st.truncated);
	assert_int_equal(st.damaged, 0);
	assert_int_equal(st.skipped_bytes, 0);
	assert_int_equal(st.lost_seq, 0);
	assert_int_equal(st.last_seq, NCHUNKS - 1);
	char text[256];
	fk_cap_describe_end(&st, text, sizeof text);
	assert_string_equal(text, "clean (END chunk; 8 chunks)");
	got_free(&g);

	/* The callback stops the reading. */
	g.stop_after = 3;
	assert_true(read_bytes(b.file.p, b.file.len, &hd, &g, &st, NULL));
	assert_int_equal(g.n, 3);
	assert_false(st.clean);
	got_free(&g);
	built_free(&b);
}

static void test_no_end_chunk(void **state)
{
	(void)state;
	struct built b;
	build(&b, false);
	struct fk_cap_header hd;
	struct fk_cap_status st;
	struct got g = { 0 };
	assert_true(read_bytes(b.file.p, b.file.len, &hd, &g, &st, NULL));
	assert_int_equal(g.n, NCHUNKS - 1);
	for (size_t i = 0; i < NCHUNKS - 1; i++)
		assert_chunk(&b, i, &g, i);
	assert_false(st.clean);
	assert_false(st.truncated); /* it ends on a chunk boundary */
	char text[256];
	fk_cap_describe_end(&st, text, sizeof text);
	assert_string_equal(text, "truncated after chunk 6 (no END chunk: the program was killed, "
				  "crashed or is still running)");
	got_free(&g);

	/* Header only: no chunks, nothing to call. */
	assert_true(read_bytes(b.file.p, FK_CAP_HEADER_SIZE, &hd, &g, &st, NULL));
	assert_int_equal(g.n, 0);
	assert_int_equal(st.chunks, 0);
	assert_false(st.clean);
	fk_cap_describe_end(&st, text, sizeof text);
	assert_string_equal(text, "truncated before the first chunk (no data)");
	built_free(&b);
}

/* A cut at every byte offset inside the last chunk (the END chunk, and in
 * a file without END, the big compressed one before it). */
static void test_truncated_last_chunk(void **state)
{
	(void)state;
	for (int with_end = 1; with_end >= 0; with_end--) {
		struct built b;
		build(&b, with_end);
		size_t last = b.nchunks - 1;
		for (size_t cut = b.off[last] + 1; cut < b.file.len; cut++) {
			struct fk_cap_header hd;
			struct fk_cap_status st;
			struct got g = { 0 };
			assert_true(read_bytes(b.file.p, cut, &hd, &g, &st, NULL));
			assert_true(st.truncated);
			assert_false(st.clean);
			assert_int_equal(st.chunks, last);
			assert_int_equal(st.damaged, 0);
			assert_int_equal(st.last_seq, last - 1);
			assert_int_equal(g.n, last);
			for (size_t i = 0; i < last; i++)
				assert_chunk(&b, i, &g, i);
			char text[256];
			fk_cap_describe_end(&st, text, sizeof text);
			assert_non_null(strstr(text, "truncated after chunk"));
			got_free(&g);
		}
		built_free(&b);
	}
}

/* A cut anywhere past the header: the whole chunks before the cut come back,
 * truncated unless the cut falls on a chunk boundary. */
static void test_truncated_anywhere(void **state)
{
	(void)state;
	struct built b;
	build(&b, true);
	for (size_t cut = FK_CAP_HEADER_SIZE; cut <= b.file.len; cut++) {
		size_t whole = 0;
		while (whole < b.nchunks && b.off[whole + 1] <= cut)
			whole++;
		bool boundary = b.off[whole] == cut;
		struct fk_cap_header hd;
		struct fk_cap_status st;
		struct got g = { 0 };
		assert_true(read_bytes(b.file.p, cut, &hd, &g, &st, NULL));
		assert_int_equal(g.n, whole);
		assert_int_equal(st.chunks, whole);
		for (size_t i = 0; i < whole; i++)
			assert_chunk(&b, i, &g, i);
		assert_true(st.truncated == !boundary);
		assert_true(st.clean == (whole == b.nchunks));
		assert_int_equal(st.damaged, 0);
		got_free(&g);
	}
	built_free(&b);
}

/* One flipped byte anywhere in chunk k (header or payload; not the 4
 * reserved bytes, which no CRC covers): chunk k alone is lost. */
static void flip_each_byte_of(size_t k)
{
	struct built b;
	build(&b, true);
	uint8_t *copy = malloc(b.file.len);
	assert_non_null(copy);
	for (size_t at = b.off[k]; at < b.off[k + 1]; at++) {
		size_t rel = at - b.off[k];
		if (rel >= 28 && rel < FK_CAP_CHUNK_HEADER_SIZE)
			continue;
		memcpy(copy, b.file.p, b.file.len);
		copy[at] ^= (uint8_t)(1u << (at % 8));
		struct fk_cap_header hd;
		struct fk_cap_status st;
		struct got g = { 0 };
		assert_true(read_bytes(copy, b.file.len, &hd, &g, &st, NULL));
		if (st.damaged != 1 || g.n != b.nchunks - 1)
			print_error("chunk %zu, byte %zu of it flipped: damaged %llu, %zu chunks read\n",
				    k, rel, (unsigned long long)st.damaged, g.n);
		assert_int_equal(st.damaged, 1);
		assert_int_equal(st.skipped_bytes, b.off[k + 1] - b.off[k]);
		assert_int_equal(g.n, b.nchunks - 1);
		for (size_t i = 0, j = 0; i < b.nchunks; i++)
			if (i != k)
				assert_chunk(&b, i, &g, j++);
		assert_int_equal(st.lost_seq, 0); /* the damage explains the gap */
		assert_true(st.clean);
		assert_false(st.truncated);
		char text[256];
		fk_cap_describe_end(&st, text, sizeof text);
		char want[256];
		snprintf(want, sizeof want, "clean (END chunk; 7 chunks); 1 damaged chunk skipped "
			 "(%zu bytes)", b.off[k + 1] - b.off[k]);
		assert_string_equal(text, want);
		got_free(&g);
	}
	free(copy);
	built_free(&b);
}

static void test_flipped_byte_compressed_chunk(void **state)
{
	(void)state;
	flip_each_byte_of(4); /* zlib, in the middle */
}

static void test_flipped_byte_stored_chunk(void **state)
{
	(void)state;
	flip_each_byte_of(2); /* stored as is */
	flip_each_byte_of(3); /* empty: its header only */
}

/* The length fields on their own, to values the reader must not trust:
 * past the end of the file, past FK_CAP_CHUNK_MAX, zero, one less. */
static void test_bad_length_field(void **state)
{
	(void)state;
	struct built b;
	build(&b, true);
	const size_t k = 4;
	const uint32_t disk = rd32(b.file.p + b.off[k] + 8);
	const uint32_t values[] = { 0, 1, disk - 1, disk + 1, disk + 32, 0x7FFFFFFF, 0xFFFFFFFF,
				    FK_CAP_CHUNK_MAX, FK_CAP_CHUNK_MAX + 1 };
	uint8_t *copy = malloc(b.file.len);
	assert_non_null(copy);
	for (int field = 8; field <= 12; field += 4) {
		for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
			memcpy(copy, b.file.p, b.file.len);
			le32(copy + b.off[k] + field, values[v]);
			struct fk_cap_header hd;
			struct fk_cap_status st;
			struct got g = { 0 };
			assert_true(read_bytes(copy, b.file.len, &hd, &g, &st, NULL));
			assert_int_equal(st.damaged, 1);
			assert_int_equal(g.n, b.nchunks - 1);
			for (size_t i = 0, j = 0; i < b.nchunks; i++)
				if (i != k)
					assert_chunk(&b, i, &g, j++);
			assert_true(st.clean);
			got_free(&g);
		}
	}
	free(copy);
	built_free(&b);
}

/* A chunk with its CRC right but a body that does not decode: the reader
 * checks more than the CRC. */
static void append_raw_chunk(struct fk_cap_buf *f, uint16_t type, uint16_t flags, uint32_t raw,
			     uint64_t seq, const uint8_t *body, uint32_t disk)
{
	uint8_t h[FK_CAP_CHUNK_HEADER_SIZE] = { 0 };
	le32(h, FK_CAP_CHUNK_MAGIC);
	h[4] = (uint8_t)type, h[5] = (uint8_t)(type >> 8);
	h[6] = (uint8_t)flags, h[7] = (uint8_t)(flags >> 8);
	le32(h + 8, disk);
	le32(h + 12, raw);
	le32(h + 16, (uint32_t)seq);
	le32(h + 20, (uint32_t)(seq >> 32));
	uint32_t crc = (uint32_t)crc32(0, h, 24);
	crc = (uint32_t)crc32(crc, body, disk);
	le32(h + 24, crc);
	fk_cap_put_bytes(f, h, sizeof h);
	fk_cap_put_bytes(f, body, disk);
}

static void test_crc_right_body_wrong(void **state)
{
	(void)state;
	uint8_t plain[200];
	for (size_t i = 0; i < sizeof plain; i++)
		plain[i] = (uint8_t)(i % 7);
	uint8_t packed[400], zpacked[400];
	uLongf np = sizeof packed;
	assert_int_equal(compress2(packed, &np, plain, sizeof plain, 1), Z_OK);
	size_t nz = ZSTD_compress(zpacked, sizeof zpacked, plain, sizeof plain, 1);
	assert_false(ZSTD_isError(nz));
	struct {
		uint16_t flags;
		uint32_t raw;
		const uint8_t *body;
		uint32_t disk;
	} bad[] = {
		{ FK_CAP_FLAG_ZLIB, sizeof plain, plain, sizeof plain },         /* not zlib data */
		{ FK_CAP_FLAG_ZLIB, sizeof plain + 1, packed, (uint32_t)np },    /* raw too big */
		{ FK_CAP_FLAG_ZLIB, sizeof plain - 1, packed, (uint32_t)np },    /* raw too small */
		{ FK_CAP_FLAG_ZLIB, sizeof plain, packed, (uint32_t)np - 4 },    /* stream cut */
		{ 0, sizeof plain + 5, plain, sizeof plain },                    /* stored, raw != disk */
		{ FK_CAP_FLAG_ZLIB, FK_CAP_CHUNK_MAX + 1, packed, (uint32_t)np }, /* raw past the limit */
		{ FK_CAP_FLAG_ZSTD, sizeof plain, plain, sizeof plain },         /* not zstd data */
		{ FK_CAP_FLAG_ZSTD, sizeof plain + 1, zpacked, (uint32_t)nz },   /* raw too big */
		{ FK_CAP_FLAG_ZSTD, sizeof plain - 1, zpacked, (uint32_t)nz },   /* raw too small */
		{ FK_CAP_FLAG_ZSTD, sizeof plain, zpacked, (uint32_t)nz - 4 },   /* frame cut */
		{ FK_CAP_FLAG_ZSTD, sizeof plain, packed, (uint32_t)np },        /* zlib called zstd */
		{ FK_CAP_FLAG_ZLIB | FK_CAP_FLAG_ZSTD, sizeof plain, zpacked, (uint32_t)nz }, /* both */
	};
	for (size_t v = 0; v < sizeof bad / sizeof bad[0]; v++) {
		struct fk_cap_buf f = { 0 };
		uint8_t hdr[FK_CAP_HEADER_SIZE];
		fk_cap_header_encode(hdr, &test_header);
		fk_cap_put_bytes(&f, hdr, sizeof hdr);
		assert_true(fk_cap_chunk_encode(&f, FK_CAP_META, 0, plain, 10));
		size_t bad_at = f.len;
		append_raw_chunk(&f, FK_CAP_SAMPLES, bad[v].flags, bad[v].raw, 1, bad[v].body,
				 bad[v].disk);
		size_t bad_end = f.len;
		assert_true(fk_cap_chunk_encode(&f, FK_CAP_SAMPLES, 2, plain, sizeof plain));
		assert_true(fk_cap_chunk_encode(&f, FK_CAP_END, 3, plain, 4));
		struct fk_cap_header hd;
		struct fk_cap_status st;
		struct got g = { 0 };
		assert_true(read_bytes(f.p, f.len, &hd, &g, &st, NULL));
		assert_int_equal(g.n, 3);
		assert_int_equal(g.seq[0], 0);
		assert_int_equal(g.seq[1], 2);
		assert_int_equal(g.len[1], sizeof plain);
		assert_memory_equal(g.payload[1], plain, sizeof plain);
		assert_int_equal(g.seq[2], 3);
		assert_int_equal(st.damaged, 1);
		assert_int_equal(st.skipped_bytes, bad_end - bad_at);
		assert_true(st.clean);
		got_free(&g);
		fk_cap_buf_free(&f);
	}
	/* And the same chunk built right is read: the test's framing is sound. */
	struct fk_cap_buf f = { 0 };
	uint8_t hdr[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(hdr, &test_header);
	fk_cap_put_bytes(&f, hdr, sizeof hdr);
	/* zlib: what captures written before zstd hold. */
	append_raw_chunk(&f, FK_CAP_SAMPLES, FK_CAP_FLAG_ZLIB, sizeof plain, 7, packed, (uint32_t)np);
	append_raw_chunk(&f, FK_CAP_SAMPLES, 0, sizeof plain, 8, plain, sizeof plain);
	append_raw_chunk(&f, FK_CAP_SAMPLES, FK_CAP_FLAG_ZSTD, sizeof plain, 9, zpacked, (uint32_t)nz);
	struct fk_cap_header hd;
	struct fk_cap_status st;
	struct got g = { 0 };
	assert_true(read_bytes(f.p, f.len, &hd, &g, &st, NULL));
	assert_int_equal(g.n, 3);
	assert_int_equal(st.damaged, 0);
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(g.len[i], sizeof plain);
		assert_memory_equal(g.payload[i], plain, sizeof plain);
	}
	assert_int_equal(g.seq[0], 7);
	got_free(&g);
	fk_cap_buf_free(&f);
}

/* Garbage between chunks (a torn write followed by more chunks) is passed
 * over, and counted in skipped_bytes. */
static void test_garbage_between_chunks(void **state)
{
	(void)state;
	struct built b;
	build(&b, true);
	struct fk_cap_buf f = { 0 };
	fk_cap_put_bytes(&f, b.file.p, b.off[3]);
	/* Garbage that even holds a chunk magic. */
	static const uint8_t junk[] = "xxCHNKyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyCHNK";
	fk_cap_put_bytes(&f, junk, sizeof junk - 1);
	fk_cap_put_bytes(&f, b.file.p + b.off[3], b.file.len - b.off[3]);
	struct fk_cap_header hd;
	struct fk_cap_status st;
	struct got g = { 0 };
	assert_true(read_bytes(f.p, f.len, &hd, &g, &st, NULL));
	assert_int_equal(g.n, NCHUNKS);
	for (size_t i = 0; i < NCHUNKS; i++)
		assert_chunk(&b, i, &g, i);
	assert_int_equal(st.damaged, 1);
	assert_int_equal(st.skipped_bytes, sizeof junk - 1);
	assert_int_equal(st.lost_seq, 0);
	assert_true(st.clean);
	got_free(&g);
	fk_cap_buf_free(&f);
	built_free(&b);
}

/* Damaged chunks side by side are as many damaged chunks (capture.h:
 * "bad chunks skipped"), as lost_seq says. */
/* Three damaged chunks in a row: one resync, three chunks counted (from
 * the sequence numbers it passed over), none "missing". */
static void test_adjacent_damaged_chunks_counted_each(void **state)
{
	(void)state;
	struct built b;
	build(&b, true);
	uint8_t *copy = malloc(b.file.len);
	assert_non_null(copy);
	memcpy(copy, b.file.p, b.file.len);
	copy[b.off[2] + FK_CAP_CHUNK_HEADER_SIZE + 10] ^= 0x40;
	copy[b.off[3] + 24] ^= 0x01; /* the CRC field of 3 (it has no payload) */
	copy[b.off[4] + FK_CAP_CHUNK_HEADER_SIZE + 10] ^= 0x40;
	struct fk_cap_header hd;
	struct fk_cap_status st;
	struct got g = { 0 };
	assert_true(read_bytes(copy, b.file.len, &hd, &g, &st, NULL));
	assert_int_equal(g.n, NCHUNKS - 3);
	assert_int_equal(st.lost_seq, 0);
	assert_int_equal(st.skipped_bytes, b.off[5] - b.off[2]);
	assert_true(st.clean);
	got_free(&g);
	free(copy);
	built_free(&b);
	assert_int_equal(st.damaged, 3);
}

static void test_seq_gap(void **state)
{
	(void)state;
	static const uint64_t seqs[] = { 0, 1, 5, 6, 10, 11 };
	struct fk_cap_buf f = { 0 };
	uint8_t hdr[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(hdr, &test_header);
	fk_cap_put_bytes(&f, hdr, sizeof hdr);
	for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++) {
		uint8_t p[3] = { (uint8_t)i, 1, 2 };
		assert_true(fk_cap_chunk_encode(&f, i + 1 == sizeof seqs / sizeof seqs[0] ? FK_CAP_END
										       : FK_CAP_SAMPLES,
						seqs[i], p, sizeof p));
	}
	struct fk_cap_header hd;
	struct fk_cap_status st;
	struct got g = { 0 };
	assert_true(read_bytes(f.p, f.len, &hd, &g, &st, NULL));
	assert_int_equal(g.n, 6);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(g.seq[i], seqs[i]);
	assert_int_equal(st.lost_seq, 3 + 3);
	assert_int_equal(st.last_seq, 11);
	assert_int_equal(st.damaged, 0);
	assert_true(st.clean);
	char text[256];
	fk_cap_describe_end(&st, text, sizeof text);
	assert_string_equal(text, "clean (END chunk; 6 chunks); 6 chunks missing");
	got_free(&g);
	fk_cap_buf_free(&f);

	/* Big sequence numbers (all 64 bits of the field). */
	fk_cap_put_bytes(&f, hdr, sizeof hdr);
	uint64_t big = UINT64_C(0x123456789A);
	assert_true(fk_cap_chunk_encode(&f, FK_CAP_SAMPLES, big, hdr, 8));
	assert_true(fk_cap_chunk_encode(&f, FK_CAP_SAMPLES, big + 2, hdr, 8));
	assert_true(read_bytes(f.p, f.len, &hd, &g, &st, NULL));
	assert_int_equal(g.n, 2);
	assert_int_equal(g.seq[0], big);
	assert_int_equal(g.seq[1], big + 2);
	assert_int_equal(st.lost_seq, 1);
	got_free(&g);
	fk_cap_buf_free(&f);
}

/* ---- bad file headers ---------------------------------------------------- */

static void expect_refused(const uint8_t *p, size_t n, const char *why)
{
	struct fk_cap_header hd;
	struct fk_cap_status st;
	struct got g = { 0 };
	char *err = NULL;
	bool ok = read_bytes(p, n, &hd, &g, &st, &err);
	if (ok || !strstr(err, why) || !strstr(err, "cap.stackcap"))
		print_error("read returned %d, stderr '%s', wanted false and '%s'\n", ok, err, why);
	assert_false(ok);
	assert_int_equal(g.n, 0);
	assert_non_null(strstr(err, "cap.stackcap"));
	assert_non_null(strstr(err, why));
	free(err);
}

static void recrc_header(uint8_t *h)
{
	le32(h + 56, (uint32_t)crc32(0, h, 56));
}

static void test_bad_header(void **state)
{
	(void)state;
	struct built b;
	build(&b, true);
	uint8_t *copy = malloc(b.file.len);
	assert_non_null(copy);
	/* The header as documented: magic, version, its own size, CRC at 56. */
	assert_memory_equal(b.file.p, FK_CAP_MAGIC, 8);
	assert_int_equal(rd32(b.file.p + 8), FK_CAP_VERSION);
	assert_int_equal(rd32(b.file.p + 12), FK_CAP_HEADER_SIZE);
	assert_int_equal(rd32(b.file.p + 56), (uint32_t)crc32(0, b.file.p, 56));

	memcpy(copy, b.file.p, b.file.len);
	copy[3] ^= 0x20; /* magic */
	expect_refused(copy, b.file.len, "not a stackcap capture");

	memcpy(copy, b.file.p, b.file.len);
	copy[17] ^= 0x01; /* the pid: the CRC no longer matches */
	expect_refused(copy, b.file.len, "damaged capture header (CRC mismatch)");

	memcpy(copy, b.file.p, b.file.len);
	copy[57] ^= 0x01; /* the CRC itself */
	expect_refused(copy, b.file.len, "CRC mismatch");

	memcpy(copy, b.file.p, b.file.len);
	le32(copy + 8, FK_CAP_VERSION + 1);
	recrc_header(copy);
	expect_refused(copy, b.file.len, "capture format version 4, this flamekit reads 1 to 3");

	/* Versions 1 (zlib chunks, before zstd) and 2 (before ALLOCS's near
	 * records) are still read. */
	for (uint32_t v = 1; v <= 2; v++) {
		memcpy(copy, b.file.p, b.file.len);
		le32(copy + 8, v);
		recrc_header(copy);
		struct fk_cap_header h1;
		struct fk_cap_status s1;
		struct got g1 = { 0 };
		assert_true(read_bytes(copy, b.file.len, &h1, &g1, &s1, NULL));
		assert_int_equal(h1.version, v);
		assert_int_equal(g1.n, b.nchunks);
		got_free(&g1);
	}

	memcpy(copy, b.file.p, b.file.len);
	le32(copy + 8, 0);
	recrc_header(copy);
	expect_refused(copy, b.file.len, "capture format version 0");

	/* A header size this reader does not know: refused (its message is
	 * test_header_size_message's). */
	memcpy(copy, b.file.p, b.file.len);
	le32(copy + 12, 128);
	recrc_header(copy);
	expect_refused(copy, b.file.len, "cap.stackcap: ");

	expect_refused(b.file.p, 40, "truncated capture header (40 bytes)");
	expect_refused(b.file.p, 63, "truncated capture header (63 bytes)");
	expect_refused(b.file.p, 7, "not a stackcap capture");
	expect_refused(b.file.p, 0, "not a stackcap capture");
	expect_refused((const uint8_t *)"digraph { a -> b }\n", 19, "not a stackcap capture");

	/* A file that is not there. */
	struct fk_diag d;
	fk_diag_init(&d, "test_capture");
	struct fk_cap_header hd;
	struct fk_cap_status st;
	struct got g = { 0 };
	struct capture cap;
	capture_start(&cap);
	char missing[256];
	path_of(missing, sizeof missing, "no-such.stackcap");
	bool ok = fk_cap_read(missing, "no-such.stackcap", &hd, collect, &g, &st, &d);
	char *err = capture_end(&cap);
	assert_false(ok);
	assert_non_null(strstr(err, "no-such.stackcap"));
	free(err);
	free(copy);
	built_free(&b);
}

/* A wrong header size is named as such, not as a version problem. */
static void test_header_size_message(void **state)
{
	(void)state;
	struct built b;
	build(&b, false);
	le32(b.file.p + 12, 128);
	recrc_header(b.file.p);
	struct fk_cap_header hd;
	struct fk_cap_status st;
	struct got g = { 0 };
	char *err = NULL;
	assert_false(read_bytes(b.file.p, b.file.len, &hd, &g, &st, &err));
	built_free(&b);
	err[strcspn(err, "\n")] = 0;
	bool contradicts = strstr(err, "this flamekit reads") != NULL;
	bool names_size = strstr(err, "header size") != NULL;
	if (contradicts || !names_size)
		print_error("header size 128 reported as '%s'\n", err);
	free(err);
	assert_false(contradicts);
	assert_true(names_size);
}

/* A capture is told by its magic, plain or gzipped (formats/detect.h). */
static void test_is_capture(void **state)
{
	(void)state;
	struct built b;
	build(&b, false);
	assert_int_equal(fk_detect((const char *)b.file.p, b.file.len), FK_KIND_CAPTURE);
	assert_int_equal(fk_detect((const char *)b.file.p, 8), FK_KIND_CAPTURE); /* the magic is enough */
	assert_int_equal(fk_detect((const char *)b.file.p, 7), FK_KIND_STACKS);
	assert_int_equal(fk_detect("a;b;c 1\n", 8), FK_KIND_STACKS);
	char path[256];
	path_of(path, sizeof path, "is.stackcap.gz");
	gzFile gz = gzopen(path, "wb");
	assert_non_null(gz);
	assert_int_equal(gzwrite(gz, b.file.p, (unsigned)b.file.len), (int)b.file.len);
	gzclose(gz);
	struct fk_diag d;
	fk_diag_init(&d, "test");
	struct fk_input in;
	assert_true(fk_input_open(&in, path, &d));
	assert_true(in.gzip);
	assert_int_equal(in.kind, FK_KIND_CAPTURE);
	fk_input_close(&in);
	unlink(path);
	built_free(&b);
}

/* ---- the writer's limits --------------------------------------------------- */

static void test_chunk_encode_limits(void **state)
{
	(void)state;
	struct fk_cap_buf f = { 0 };
	static const uint8_t p[1] = { 0 };
	/* The length is checked before the payload is touched. */
	assert_false(fk_cap_chunk_encode(&f, FK_CAP_SAMPLES, 0, p, (size_t)FK_CAP_CHUNK_MAX + 1));
	assert_int_equal(f.len, 0);
	/* 63 compressible bytes stay stored (too small to bother), 64 do not. */
	uint8_t zeros[64] = { 0 };
	assert_true(fk_cap_chunk_encode(&f, FK_CAP_SAMPLES, 0, zeros, 63));
	assert_int_equal(f.len, FK_CAP_CHUNK_HEADER_SIZE + 63);
	assert_int_equal(f.p[6], 0);
	size_t second = f.len;
	assert_true(fk_cap_chunk_encode(&f, FK_CAP_SAMPLES, 1, zeros, 64));
	assert_int_equal(f.p[second + 6], FK_CAP_FLAG_ZSTD);
	assert_true(f.len - second < FK_CAP_CHUNK_HEADER_SIZE + 64);
	fk_cap_buf_free(&f);
	assert_null(f.p);
	assert_int_equal(f.len, 0);
}

/* ---- fk_cap_describe_end ---------------------------------------------------- */

static void test_describe_end(void **state)
{
	(void)state;
	char buf[256];
	struct fk_cap_status st = { 0 };
	st.chunks = 12, st.last_seq = 11, st.clean = true;
	fk_cap_describe_end(&st, buf, sizeof buf);
	assert_string_equal(buf, "clean (END chunk; 12 chunks)");

	st.clean = false;
	fk_cap_describe_end(&st, buf, sizeof buf);
	assert_string_equal(buf, "truncated after chunk 11 (no END chunk: the program was killed, "
				 "crashed or is still running)");
	st.truncated = true; /* inside a chunk or at a boundary: the same words */
	fk_cap_describe_end(&st, buf, sizeof buf);
	assert_string_equal(buf, "truncated after chunk 11 (no END chunk: the program was killed, "
				 "crashed or is still running)");

	st = (struct fk_cap_status){ 0 };
	fk_cap_describe_end(&st, buf, sizeof buf);
	assert_string_equal(buf, "truncated before the first chunk (no data)");

	st = (struct fk_cap_status){ .chunks = 5, .last_seq = 5, .clean = true, .damaged = 1,
				     .skipped_bytes = 321, .lost_seq = 1 };
	fk_cap_describe_end(&st, buf, sizeof buf);
	assert_string_equal(buf, "clean (END chunk; 5 chunks); 1 damaged chunk skipped (321 bytes); "
				 "1 chunk missing");
	st.damaged = 2, st.lost_seq = 0;
	fk_cap_describe_end(&st, buf, sizeof buf);
	assert_string_equal(buf, "clean (END chunk; 5 chunks); 2 damaged chunks skipped (321 bytes)");
	st.damaged = 0, st.lost_seq = 4, st.clean = false;
	fk_cap_describe_end(&st, buf, sizeof buf);
	assert_string_equal(buf, "truncated after chunk 5 (no END chunk: the program was killed, "
				 "crashed or is still running); 4 chunks missing");
	st = (struct fk_cap_status){ .damaged = 3, .skipped_bytes = 99 };
	fk_cap_describe_end(&st, buf, sizeof buf);
	assert_string_equal(buf, "truncated before the first chunk (no data); 3 damaged chunks "
				 "skipped (99 bytes)");
	st.chunks = UINT64_MAX, st.clean = true, st.damaged = UINT64_MAX,
	st.skipped_bytes = UINT64_MAX, st.lost_seq = UINT64_MAX;
	fk_cap_describe_end(&st, buf, sizeof buf);
	assert_string_equal(buf, "clean (END chunk; 18446744073709551615 chunks); "
				 "18446744073709551615 damaged chunks skipped "
				 "(18446744073709551615 bytes); 18446744073709551615 chunks missing");

	/* Small buffers: cut, terminated, never written past n. */
	st = (struct fk_cap_status){ .chunks = 5, .last_seq = 5, .clean = true, .damaged = 1,
				     .skipped_bytes = 321, .lost_seq = 1 };
	char full[256];
	fk_cap_describe_end(&st, full, sizeof full);
	for (size_t n = 1; n <= strlen(full) + 1; n++) {
		char small[300];
		memset(small, '#', sizeof small);
		fk_cap_describe_end(&st, small, n);
		assert_int_equal(strlen(small), n - 1);
		assert_memory_equal(small, full, n - 1);
		for (size_t i = n; i < sizeof small; i++)
			assert_int_equal(small[i], '#');
	}
	memset(buf, '#', sizeof buf);
	fk_cap_describe_end(&st, buf, 0);
	assert_int_equal(buf[0], '#');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uvarint_round_trip),
		cmocka_unit_test(test_svarint_round_trip),
		cmocka_unit_test(test_strings_and_bytes),
		cmocka_unit_test(test_cursor_past_end),
		cmocka_unit_test(test_round_trip_clean),
		cmocka_unit_test(test_no_end_chunk),
		cmocka_unit_test(test_truncated_last_chunk),
		cmocka_unit_test(test_truncated_anywhere),
		cmocka_unit_test(test_flipped_byte_compressed_chunk),
		cmocka_unit_test(test_flipped_byte_stored_chunk),
		cmocka_unit_test(test_bad_length_field),
		cmocka_unit_test(test_crc_right_body_wrong),
		cmocka_unit_test(test_garbage_between_chunks),
		cmocka_unit_test(test_adjacent_damaged_chunks_counted_each),
		cmocka_unit_test(test_seq_gap),
		cmocka_unit_test(test_bad_header),
		cmocka_unit_test(test_header_size_message),
		cmocka_unit_test(test_is_capture),
		cmocka_unit_test(test_chunk_encode_limits),
		cmocka_unit_test(test_describe_end),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
