/* capwrite.c - the writing half of the capture format (see capture.h):
 * payload encoding and chunk framing. Only zlib and libc, so the capture
 * shim links it without the rest of the library.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/capture.h"
#include "formats/grow.h"

void fk_cap_buf_free(struct fk_cap_buf *b)
{
	free(b->p);
	*b = (struct fk_cap_buf){ 0 };
}

/* A buffer starts small: the shim's writer keeps a dozen, most of which
 * hold a varint or two a cycle, and at 4 KiB each they took a page each
 * (a page fault, 10 us on a VM, for every one). */
#define FIRST_CAPACITY 256

static bool reserve(struct fk_cap_buf *b, size_t n)
{
	if (b->failed)
		return false;
	if (n > SIZE_MAX - b->len || !FK_GROW(b->p, b->cap, b->len + n, FIRST_CAPACITY)) {
		b->failed = true;
		return false;
	}
	return true;
}

void fk_cap_put_bytes(struct fk_cap_buf *b, const void *p, size_t n)
{
	if (n && reserve(b, n)) {
		memcpy(b->p + b->len, p, n);
		b->len += n;
	}
}

void fk_cap_put_u8_grow(struct fk_cap_buf *b, uint8_t v)
{
	if (reserve(b, 1))
		fk_cap_put_u8(b, v);
}

void fk_cap_put_uvarint_grow(struct fk_cap_buf *b, uint64_t v)
{
	if (reserve(b, 10))
		fk_cap_put_uvarint(b, v);
}

void fk_cap_put_string(struct fk_cap_buf *b, const char *s, size_t n)
{
	fk_cap_put_uvarint(b, n);
	fk_cap_put_bytes(b, s, n);
}

static void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void fk_cap_header_encode(uint8_t out[FK_CAP_HEADER_SIZE], const struct fk_cap_header *h)
{
	memset(out, 0, FK_CAP_HEADER_SIZE);
	memcpy(out, FK_CAP_MAGIC, 8);
	le32(out + 8, FK_CAP_VERSION);
	le32(out + 12, FK_CAP_HEADER_SIZE);
	le32(out + 16, h->pid);
	le32(out + 20, h->ppid);
	le64(out + 24, h->start_mono_ns);
	le64(out + 32, h->start_real_ns);
	le32(out + 40, h->sample_hz);
	le32(out + 44, h->flags);
	le64(out + 48, h->alloc_sample);
	le32(out + 56, (uint32_t)crc32(0, out, 56));
}

/* zstd at level 1: the writer runs beside the program, and it compresses
 * a chunk of varints 2.5 times as fast as zlib's level 1, and smaller. One
 * context per thread that writes chunks (the shim's writer, a test),
 * kept: making one costs more than compressing a small chunk. */
static _Thread_local ZSTD_CCtx *zstd;

/* Below this, level -1 (no Huffman-coded literals): on the ALLOCS
 * payloads of a malloc loop cut in 4 KiB pieces, 1.4 to 1.6 times as fast
 * for 0 to 2 % more bytes; at 64 KiB, 2 % faster for 9 % more. A program
 * whose own thread runs the cycles (sampled allocations) writes chunks of
 * a few KiB. */
#define SMALL_CHUNK_BYTES 8192

static size_t compress_body(uint8_t *body, size_t room, const uint8_t *payload, size_t len)
{
	if (!zstd && !(zstd = ZSTD_createCCtx()))
		return 0;
	int level = len < SMALL_CHUNK_BYTES ? -1 : 1;
	size_t n = ZSTD_compressCCtx(zstd, body, room, payload, len, level);
	return ZSTD_isError(n) ? 0 : n;
}

static bool encode(struct fk_cap_buf *out, uint16_t type, uint64_t seq, const uint8_t *payload,
		   size_t len, bool compress)
{
	if (len > FK_CAP_CHUNK_MAX)
		return false;
	size_t bound = ZSTD_compressBound(len);
	if (!reserve(out, FK_CAP_CHUNK_HEADER_SIZE + bound))
		return false;
	uint8_t *hdr = out->p + out->len, *body = hdr + FK_CAP_CHUNK_HEADER_SIZE;
	uint16_t flags = 0;
	size_t disk = len, packed;
	if (compress && len >= 64 && (packed = compress_body(body, bound, payload, len)) != 0 &&
	    packed < len) {
		flags = FK_CAP_FLAG_ZSTD;
		disk = packed;
	} else if (len) {
		memcpy(body, payload, len);
	}
	memset(hdr, 0, FK_CAP_CHUNK_HEADER_SIZE);
	le32(hdr, FK_CAP_CHUNK_MAGIC);
	hdr[4] = (uint8_t)type, hdr[5] = (uint8_t)(type >> 8);
	hdr[6] = (uint8_t)flags, hdr[7] = (uint8_t)(flags >> 8);
	le32(hdr + 8, (uint32_t)disk);
	le32(hdr + 12, (uint32_t)len);
	le64(hdr + 16, seq);
	uLong crc = crc32(0, hdr, 24);
	crc = crc32(crc, body, (uInt)disk);
	le32(hdr + 24, (uint32_t)crc);
	out->len += FK_CAP_CHUNK_HEADER_SIZE + disk;
	return true;
}

bool fk_cap_chunk_encode(struct fk_cap_buf *out, uint16_t type, uint64_t seq,
			 const uint8_t *payload, size_t len)
{
	return encode(out, type, seq, payload, len, true);
}

bool fk_cap_chunk_encode_stored(struct fk_cap_buf *out, uint16_t type, uint64_t seq,
				const uint8_t *payload, size_t len)
{
	return encode(out, type, seq, payload, len, false);
}
