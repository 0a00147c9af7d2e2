/* capture_build.h - a stackcap capture built chunk by chunk in a unit
 * test: cap_begin() (the header and one stack node, 1: [0x10]), payload
 * bytes put into b->p with formats/capture.h's writers, cap_chunk() to close
 * each chunk, b->seq++ for a chunk lost on the way, cap_end(), then
 * cap_load() writes it to a scratch file and reads it back. Header-only:
 * each test is a program of its own. Include after cmocka.h and
 * scratch_dir.h.
 */
#ifndef FK_TEST_CAPTURE_BUILD_H
#define FK_TEST_CAPTURE_BUILD_H

#include "analysis/capture/model.h"

struct cap {
	struct fk_cap_buf file, p;
	uint64_t seq;
};

static void cap_chunk(struct cap *b, uint16_t type)
{
	assert_true(fk_cap_chunk_encode(&b->file, type, b->seq++, b->p.p, b->p.len));
	b->p.len = 0;
}

static void cap_begin(struct cap *b)
{
	*b = (struct cap){ 0 };
	struct fk_cap_header h = { .version = FK_CAP_VERSION, .pid = 1, .sample_hz = 999,
				   .start_mono_ns = 1000, .start_real_ns = 1000 };
	uint8_t hdr[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(hdr, &h);
	fk_cap_put_bytes(&b->file, hdr, sizeof hdr);
	fk_cap_put_uvarint(&b->p, 1);
	fk_cap_put_uvarint(&b->p, 0), fk_cap_put_uvarint(&b->p, 0x10);
	cap_chunk(b, FK_CAP_STACKS);
}

static void cap_end(struct cap *b)
{
	for (int i = 0; i < 4; i++)
		fk_cap_put_uvarint(&b->p, 0);
	cap_chunk(b, FK_CAP_END);
}

/* Writes the capture to NAME in the scratch directory and loads it into
 * c; the path is returned (path_of's buffer). */
static const char *cap_load(struct cap *b, const char *name, struct fk_capture *c)
{
	const char *path = path_of(name);
	write_file(path, b->file.p, b->file.len);
	fk_cap_buf_free(&b->file);
	fk_cap_buf_free(&b->p);
	struct fk_diag d;
	fk_diag_init(&d, "test");
	d.quiet = true;
	assert_true(fk_capture_load(path, name, c, &d));
	return path;
}

#endif
