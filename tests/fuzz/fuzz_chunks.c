/* fuzz_chunks.c - libFuzzer harness for the capture's payload decoders:
 * the input is a list of chunks, each "type (1 byte), length (2 bytes,
 * little-endian), payload", made into a capture with a valid header and
 * valid CRCs (fk_cap_chunk_encode), so every mutation reaches the record
 * parsers instead of stopping at a checksum. Then everything the commands
 * do with a capture (capture_pipeline.h). Seeds: tests/fuzz/corpus/chunks,
 * made from real captures by tests/fuzz/chunks_from_capture.py.
 *
 * Build and run (clang): make fuzz
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "capture_pipeline.h"
#include "formats/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The deflate state of the zlib chunks, made once and reset per chunk:
 * compress2() would allocate and free some 270 KiB of it per chunk. The
 * smallest window and hash (512 bytes, memLevel 1): a reset clears the hash,
 * and any window is one the reader's inflate takes. */
static z_stream deflater;
static bool deflater_ok;

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A chunk with a zlib body (formats/CAPTURE.md): framed as a stored chunk
 * of the packed bytes, then flagged zlib, given the payload's length and
 * its CRC made again. */
static void encode_zlib(struct fk_cap_buf *file, uint8_t type, uint64_t seq,
			const uint8_t *payload, size_t len)
{
	static uint8_t packed[0x10000 + 1024]; /* > deflateBound(65535 bytes) */
	if (!deflater_ok)
		deflater_ok = deflateInit2(&deflater, 1, Z_DEFLATED, 9, 1, Z_DEFAULT_STRATEGY) == Z_OK;
	if (!deflater_ok || deflateReset(&deflater) != Z_OK)
		abort();
	deflater.next_in = (Bytef *)payload;
	deflater.avail_in = (uInt)len;
	deflater.next_out = packed;
	deflater.avail_out = sizeof packed;
	if (deflate(&deflater, Z_FINISH) != Z_STREAM_END)
		abort();
	size_t at = file->len, disk = sizeof packed - deflater.avail_out;
	if (!fk_cap_chunk_encode_stored(file, type, seq, packed, disk) || file->failed)
		return;
	uint8_t *hdr = file->p + at;
	hdr[6] = FK_CAP_FLAG_ZLIB;
	le32(hdr + 12, (uint32_t)len);
	uLong crc = crc32(0, hdr, 24);
	le32(hdr + 24, (uint32_t)crc32(crc, hdr + FK_CAP_CHUNK_HEADER_SIZE, (uInt)disk));
}

/* FUZZ_CAPTURE_OUT=FILE: also write the capture a run made, to replay a
 * finding with the real commands (stackcap info FILE, stackfold FILE). */
static void keep_capture(const struct fk_cap_buf *file)
{
	static const char *path;
	static bool looked;
	if (!looked) {
		path = getenv("FUZZ_CAPTURE_OUT");
		looked = true;
	}
	FILE *f = path ? fopen(path, "wb") : NULL;
	if (f) {
		fwrite(file->p, 1, file->len, f);
		fclose(f);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_diag d;
	fk_diag_init(&d, "fuzz");
	d.quiet = true;
	d.out = fuzz_null(); /* errors too: printing would cost more than the run */
	struct fk_cap_header h = { .version = FK_CAP_VERSION, .pid = 1, .sample_hz = 999,
				   .flags = data && size ? data[0] : 0 };
	struct fk_cap_buf file = { 0 };
	uint8_t head[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(head, &h);
	fk_cap_put_bytes(&file, head, sizeof head);
	uint64_t seq = 0;
	for (size_t at = size ? 1 : 0; at + 3 <= size;) {
		uint8_t type = data[at];
		size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
		at += 3;
		if (len > size - at)
			len = size - at;
		/* Mostly stored: compressing costs more than parsing; one input
		 * in 8 takes the inflate path (older captures), one the zstd one. */
		if (size % 8 == 0)
			encode_zlib(&file, type, seq++, data + at, len);
		else if (size % 8 == 4) /* zstd, as the shim writes, where it pays */
			fk_cap_chunk_encode(&file, type, seq++, data + at, len);
		else
			fk_cap_chunk_encode_stored(&file, type, seq++, data + at, len);
		at += len;
	}
	if (!file.failed) {
		keep_capture(&file);
		fuzz_capture_pipeline(file.p, file.len, size ? data[size - 1] : 0, &d);
	}
	fk_cap_buf_free(&file);
	return 0;
}
