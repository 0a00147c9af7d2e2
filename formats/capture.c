/* capture.c - reading capture files (see capture.h). */
#include "formats/capture.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include <zstd.h>

#include "formats/grow.h"
#include "formats/input.h"

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---- payload decoding ---- */

uint8_t fk_cap_get_u8(struct fk_cap_cursor *c)
{
	if (c->bad || c->p >= c->end) {
		c->bad = true;
		return 0;
	}
	return *c->p++;
}

uint64_t fk_cap_get_uvarint(struct fk_cap_cursor *c)
{
	uint64_t v = 0;
	for (int shift = 0; shift < 64; shift += 7) {
		if (c->bad || c->p >= c->end)
			break;
		uint8_t b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

int64_t fk_cap_get_svarint(struct fk_cap_cursor *c)
{
	uint64_t u = fk_cap_get_uvarint(c);
	return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

const uint8_t *fk_cap_get_bytes(struct fk_cap_cursor *c, size_t *len)
{
	uint64_t n = fk_cap_get_uvarint(c);
	if (c->bad || n > (uint64_t)(c->end - c->p)) {
		c->bad = true;
		*len = 0;
		return (const uint8_t *)"";
	}
	const uint8_t *p = c->p;
	c->p += n;
	*len = (size_t)n;
	return p;
}

static const uint8_t *get_text(struct fk_cap_cursor *c, size_t *len)
{
	const uint8_t *p = fk_cap_get_bytes(c, len);
	if (*len && memchr(p, 0, *len))
		c->bad = true; /* names are C strings once read */
	return p;
}

bool fk_cap_get_pyframe(struct fk_cap_cursor *c, struct fk_cap_pyframe *f)
{
	f->id = fk_cap_get_uvarint(c);
	f->file = get_text(c, &f->file_len);
	f->qualname = get_text(c, &f->qualname_len);
	f->name = get_text(c, &f->name_len);
	f->first_line = fk_cap_get_uvarint(c);
	f->line = fk_cap_get_uvarint(c);
	if (f->id == 0 || f->id >= FK_CAP_IP_PYTHON)
		c->bad = true;
	return !c->bad;
}

/* ---- whole file in memory ---- */

struct whole {
	const uint8_t *p;
	size_t len;
	uint8_t *owned; /* when streamed (pipes, gzip); else p is the mapping */
	size_t cap;
};

static bool append(void *ctx, const char *p, size_t n)
{
	struct whole *w = ctx;
	/* The first block sets the first size: a small capture held in memory
	 * (a test, a fuzzing run) is copied into no more than it needs. */
	if (n > SIZE_MAX - w->len || !FK_GROW(w->owned, w->cap, w->len + n, n))
		return false;
	memcpy(w->owned + w->len, p, n);
	w->len += n;
	return true;
}

static bool load(struct fk_input *in, struct whole *w, struct fk_diag *d)
{
	memset(w, 0, sizeof *w);
	if (in->map) {
		w->p = (const uint8_t *)in->map;
		w->len = in->map_len;
		return true;
	}
	if (fk_input_read_chunks(in, append, w, d) != FK_INPUT_OK) {
		free(w->owned);
		return false;
	}
	w->p = w->owned;
	return true;
}

/* ---- chunks ---- */

struct chunk {
	uint16_t type, flags;
	uint32_t disk, raw;
	uint64_t seq;
	const uint8_t *body;
};

/* The chunk at off when it is whole and its CRC matches. */
static bool chunk_at(const struct whole *w, size_t off, struct chunk *c)
{
	if (w->len - off < FK_CAP_CHUNK_HEADER_SIZE)
		return false;
	const uint8_t *h = w->p + off;
	if (rd32(h) != FK_CAP_CHUNK_MAGIC)
		return false;
	c->type = (uint16_t)(h[4] | h[5] << 8);
	c->flags = (uint16_t)(h[6] | h[7] << 8);
	c->disk = rd32(h + 8);
	c->raw = rd32(h + 12);
	c->seq = rd64(h + 16);
	if (c->disk > FK_CAP_CHUNK_MAX || c->raw > FK_CAP_CHUNK_MAX ||
	    c->disk > w->len - off - FK_CAP_CHUNK_HEADER_SIZE)
		return false;
	c->body = h + FK_CAP_CHUNK_HEADER_SIZE;
	uLong crc = crc32(0, h, 24);
	crc = crc32(crc, c->body, c->disk);
	return (uint32_t)crc == rd32(h + 24);
}

/* The next offset after off where a valid chunk starts; 0 when none. */
static size_t resync(const struct whole *w, size_t off)
{
	static const uint8_t magic[4] = { 0x43, 0x48, 0x4E, 0x4B };
	struct chunk c;
	for (size_t at = off + 1; at + FK_CAP_CHUNK_HEADER_SIZE <= w->len; at++) {
		const uint8_t *m = memmem(w->p + at, w->len - at, magic, 4);
		if (!m)
			return 0;
		at = (size_t)(m - w->p);
		if (chunk_at(w, at, &c))
			return at;
	}
	return 0;
}

static bool read_header(const struct whole *w, const char *name, struct fk_cap_header *h,
			struct fk_diag *d)
{
	const uint8_t *p = w->p;
	if (w->len < 8 || memcmp(p, FK_CAP_MAGIC, 8) != 0) {
		fk_diag_error(d, "%s: not a stackcap capture (no %s header)", name, FK_CAP_MAGIC);
		return false;
	}
	if (w->len < FK_CAP_HEADER_SIZE) {
		fk_diag_error(d, "%s: truncated capture header (%zu bytes)", name, w->len);
		return false;
	}
	if (rd32(p + 56) != (uint32_t)crc32(0, p, 56)) {
		fk_diag_error(d, "%s: damaged capture header (CRC mismatch)", name);
		return false;
	}
	h->version = rd32(p + 8);
	if (h->version < FK_CAP_VERSION_OLDEST || h->version > FK_CAP_VERSION) {
		fk_diag_error(d, "%s: capture format version %u, this flamekit reads %u to %u", name,
			      h->version, FK_CAP_VERSION_OLDEST, FK_CAP_VERSION);
		return false;
	}
	if (rd32(p + 12) != FK_CAP_HEADER_SIZE) {
		fk_diag_error(d, "%s: capture header size %u, version %u has %u", name,
			      rd32(p + 12), h->version, FK_CAP_HEADER_SIZE);
		return false;
	}
	h->pid = rd32(p + 16);
	h->ppid = rd32(p + 20);
	h->start_mono_ns = rd64(p + 24);
	h->start_real_ns = rd64(p + 32);
	h->sample_hz = rd32(p + 40);
	h->flags = rd32(p + 44);
	h->alloc_sample = rd64(p + 48);
	return true;
}

/* Inflates a chunk's body into out (room for c->raw bytes): true when it
 * is one whole zlib stream of exactly c->raw bytes. One z_stream serves
 * every chunk of a file (started on the first, reset for the next), where
 * uncompress() would allocate and free zlib's state and window per chunk. */
static bool inflate_chunk(z_stream *z, bool *started, uint8_t *out, const struct chunk *c)
{
	if (*started) {
		if (inflateReset(z) != Z_OK)
			return false;
	} else {
		*z = (z_stream){ 0 };
		if (inflateInit(z) != Z_OK)
			return false;
		*started = true;
	}
	z->next_in = (Bytef *)c->body;
	z->avail_in = c->disk;
	z->next_out = out;
	z->avail_out = c->raw;
	/* As uncompress() judged it: the stream ends and fills out exactly. */
	return inflate(z, Z_FINISH) == Z_STREAM_END && z->avail_out == 0;
}

/* Decompresses a zstd chunk's body into out (room for c->raw bytes): true
 * when it is one frame of exactly c->raw bytes. One context serves every
 * chunk of a file. */
static bool unzstd_chunk(ZSTD_DCtx **z, uint8_t *out, const struct chunk *c)
{
	if (!*z && !(*z = ZSTD_createDCtx()))
		return false;
	size_t n = ZSTD_decompressDCtx(*z, out, c->raw, c->body, c->disk);
	return !ZSTD_isError(n) && n == c->raw;
}

bool fk_cap_read(const char *path, const char *name, struct fk_cap_header *h,
		 fk_cap_chunk_fn fn, void *ctx, struct fk_cap_status *st, struct fk_diag *d)
{
	struct fk_input in;
	memset(st, 0, sizeof *st);
	if (!fk_input_open(&in, path, d))
		return false;
	in.name = name;
	bool ok = fk_cap_read_input(&in, h, fn, ctx, st, d);
	fk_input_close(&in);
	return ok;
}

bool fk_cap_read_input(struct fk_input *in, struct fk_cap_header *h, fk_cap_chunk_fn fn,
		       void *ctx, struct fk_cap_status *st, struct fk_diag *d)
{
	struct whole w;
	const char *name = in->name;
	memset(st, 0, sizeof *st);
	if (!load(in, &w, d))
		return false;
	bool ok = read_header(&w, name, h, d);
	uint8_t *raw = NULL;
	size_t raw_cap = 0;
	z_stream z;
	bool z_started = false;
	ZSTD_DCtx *zs = NULL;
	size_t off = FK_CAP_HEADER_SIZE;
	bool resynced = false; /* the next good chunk follows a damaged stretch */
	while (ok && off < w.len) {
		struct chunk c;
		bool good = chunk_at(&w, off, &c);
		const uint8_t *payload = c.body;
		if (good && (c.flags & (FK_CAP_FLAG_ZLIB | FK_CAP_FLAG_ZSTD))) {
			good = (c.flags & (FK_CAP_FLAG_ZLIB | FK_CAP_FLAG_ZSTD)) !=
				       (FK_CAP_FLAG_ZLIB | FK_CAP_FLAG_ZSTD) &&
			       FK_GROW(raw, raw_cap, c.raw ? c.raw : 1, 4096) &&
			       (c.flags & FK_CAP_FLAG_ZSTD ? unzstd_chunk(&zs, raw, &c)
							   : inflate_chunk(&z, &z_started, raw, &c));
			payload = raw;
		} else if (good) {
			good = c.disk == c.raw;
		}
		if (!good) {
			size_t next = resync(&w, off);
			if (!next) { /* nothing valid follows: the file ends inside a chunk */
				st->truncated = true;
				break;
			}
			st->skipped_bytes += next - off;
			off = next;
			resynced = true;
			continue;
		}
		/* The sequence numbers skipped over a damaged stretch say how many
		 * chunks it held; other gaps are chunks the writer never wrote. */
		uint64_t gap = st->chunks > 0 && c.seq > st->last_seq + 1 ? c.seq - st->last_seq - 1 : 0;
		if (resynced)
			st->damaged += gap ? gap : 1;
		else
			st->lost_seq += gap;
		resynced = false;
		st->chunks++;
		st->last_seq = c.seq;
		if (c.type == FK_CAP_END)
			st->clean = true;
		off += FK_CAP_CHUNK_HEADER_SIZE + c.disk;
		if (!fn(ctx, c.type, c.seq, payload, c.raw))
			break;
	}
	if (z_started)
		inflateEnd(&z);
	ZSTD_freeDCtx(zs);
	free(raw);
	free(w.owned);
	return ok;
}

void fk_cap_describe_end(const struct fk_cap_status *st, char *buf, size_t n)
{
	int k;
	if (st->clean)
		k = snprintf(buf, n, "clean (END chunk; %" PRIu64 " chunks)", st->chunks);
	else if (st->chunks)
		k = snprintf(buf, n, "truncated after chunk %" PRIu64 " (no END chunk: the program "
			     "was killed, crashed or is still running)", st->last_seq);
	else
		k = snprintf(buf, n, "truncated before the first chunk (no data)");
	if (k < 0 || (size_t)k >= n)
		return;
	if (st->damaged)
		k += snprintf(buf + k, n - (size_t)k, "; %" PRIu64 " damaged chunk%s skipped (%" PRIu64
			      " bytes)", st->damaged, st->damaged == 1 ? "" : "s", st->skipped_bytes);
	if (k >= 0 && (size_t)k < n && st->lost_seq)
		snprintf(buf + k, n - (size_t)k, "; %" PRIu64 " chunk%s missing", st->lost_seq,
			 st->lost_seq == 1 ? "" : "s");
}
