/* input.c - inputs opened once, peeked and read as lines or blocks (see input.h). */
#include "formats/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/grow.h"

#define READ_CHUNK ((size_t)1 << 20)

unsigned fk_input_threads(size_t bytes, size_t min_bytes, unsigned default_max)
{
	const char *env = getenv("FLAMEKIT_THREADS");
	long n = env ? atol(env) : sysconf(_SC_NPROCESSORS_ONLN);
	if (!env && n > (long)default_max)
		n = default_max;
	if (bytes < min_bytes || n < 1)
		n = 1;
	return n > FK_INPUT_MAX_THREADS ? FK_INPUT_MAX_THREADS : (unsigned)n;
}

const char *fk_input_display_name(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

struct reader {
	const char *name;
	fk_line_fn fn;
	fk_chunk_fn chunk_fn; /* set: bytes go to it as they come, not lines */
	uint64_t bytes;       /* bytes passed to chunk_fn so far */
	void *ctx;
	struct fk_diag *d;
	uint64_t lineno;
	bool skipping; /* inside an over-long line, waiting for its '\n' */
	bool stopped;
	/* line assembly buffer for the streaming paths */
	char *line;
	size_t line_len, line_cap;
};

static bool emit(struct reader *r, const char *p, size_t n)
{
	r->lineno++;
	if (!r->fn(r->ctx, p, n, r->lineno)) {
		r->stopped = true;
		return false;
	}
	return true;
}

static bool too_long(struct reader *r)
{
	r->lineno++;
	if (!fk_diag_line(r->d, r->name, r->lineno, "line longer than %zu MiB, skipped",
			  FK_INPUT_MAX_LINE >> 20)) {
		r->stopped = true;
		return false;
	}
	return true;
}

/* Splits a complete buffer into lines. */
static void lines_of_buffer(struct reader *r, const char *p, size_t n)
{
	const char *end = p + n;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		bool ok = len > FK_INPUT_MAX_LINE ? too_long(r) : emit(r, p, len);
		if (!ok)
			return;
		p += len + 1;
	}
}

enum fk_input_result fk_input_buffer_lines(const char *p, size_t n, const char *name,
					   uint64_t first_line, fk_line_fn fn, void *ctx,
					   struct fk_diag *d, uint64_t *lines)
{
	struct reader r = { .name = name, .fn = fn, .ctx = ctx, .d = d, .lineno = first_line };
	lines_of_buffer(&r, p, n);
	*lines = r.lineno - first_line;
	return r.stopped ? FK_INPUT_STOPPED : FK_INPUT_OK;
}

/* Feeds a piece of a stream; partial lines are kept in r->line. */
static bool feed(struct reader *r, const char *p, size_t n)
{
	if (r->chunk_fn) {
		r->bytes += n;
		if (n > 0 && !r->chunk_fn(r->ctx, p, n))
			r->stopped = true;
		return !r->stopped;
	}
	const char *end = p + n;
	while (p < end && !r->stopped) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		if (r->skipping) {
			if (nl)
				r->skipping = false;
		} else if (r->line_len + len > FK_INPUT_MAX_LINE) {
			r->line_len = 0;
			r->skipping = !nl;
			if (!too_long(r))
				return false;
		} else if (nl && r->line_len == 0) {
			if (!emit(r, p, len)) /* whole line in the chunk: no copy */
				return false;
		} else {
			if (!FK_GROW(r->line, r->line_cap, r->line_len + len, 4096)) {
				fk_diag_error(r->d, "%s: out of memory", r->name);
				r->stopped = true;
				return false;
			}
			memcpy(r->line + r->line_len, p, len);
			r->line_len += len;
			if (nl) {
				size_t whole = r->line_len;
				r->line_len = 0;
				if (!emit(r, r->line, whole))
					return false;
			}
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return !r->stopped;
}

static bool finish(struct reader *r)
{
	if (!r->stopped && !r->skipping && r->line_len > 0) {
		size_t whole = r->line_len;
		r->line_len = 0;
		return emit(r, r->line, whole);
	}
	return !r->stopped;
}


/* ---- the open input: raw bytes, then decoded blocks ---- */

struct fk_input_stream {
	int fd;
	bool own_fd;
	const unsigned char *raw_map; /* the whole file when it could be mapped, or
					 the caller's buffer */
	bool unmap;                   /* raw_map is our mapping */
	size_t raw_len, raw_pos;
	unsigned char *buf;           /* read() buffer otherwise */
	bool eof;
	z_stream z;
	bool z_started, member_done;
	unsigned char *zout;
	char *peek;                   /* decoded bytes read ahead at open */
	size_t peek_len;
	bool peek_taken;              /* handed out by next_block already */
	enum pull { PULL_DATA, PULL_END, PULL_ERROR, PULL_TRUNCATED } after_peek;
};

/* Next raw bytes: their length, 0 at the end, -1 on a read error (reported). */
static ssize_t raw_next(struct fk_input *in, const unsigned char **out, struct fk_diag *d)
{
	struct fk_input_stream *s = in->s;
	if (s->raw_map) {
		size_t n = s->raw_len - s->raw_pos;
		if (n > READ_CHUNK)
			n = READ_CHUNK;
		*out = s->raw_map + s->raw_pos;
		s->raw_pos += n;
		return (ssize_t)n;
	}
	while (!s->eof) {
		ssize_t n = read(s->fd, s->buf, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fk_diag_error(d, "%s: read error: %s", in->name, strerror(errno));
			return -1;
		}
		s->eof = n == 0;
		*out = s->buf;
		return n;
	}
	return 0;
}

/* Inflates the next block, member after member (like gzip -d on
 * `cat a.gz b.gz`); zero padding after the last member is allowed (tape
 * and block devices add it), anything else is garbage. */
static enum pull inflate_next(struct fk_input *in, const char **p, size_t *n, struct fk_diag *d)
{
	struct fk_input_stream *s = in->s;
	z_stream *z = &s->z;
	for (;;) {
		if (z->avail_in == 0) {
			const unsigned char *raw;
			ssize_t got = raw_next(in, &raw, d);
			if (got < 0)
				return PULL_ERROR;
			if (got == 0)
				return s->member_done ? PULL_END : PULL_TRUNCATED;
			z->next_in = (unsigned char *)raw;
			z->avail_in = (unsigned)got;
		}
		if (s->member_done) {
			while (z->avail_in > 0 && z->next_in[0] == 0)
				z->next_in++, z->avail_in--;
			if (z->avail_in == 0)
				continue;
			if (z->next_in[0] != 0x1f) {
				fk_diag_error(d, "%s: trailing garbage after gzip data", in->name);
				return PULL_ERROR;
			}
			inflateReset(z);
			s->member_done = false;
		}
		z->next_out = s->zout;
		z->avail_out = (unsigned)READ_CHUNK;
		int zr = inflate(z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			fk_diag_error(d, "%s: corrupt gzip data: %s", in->name,
				      z->msg ? z->msg : "inflate failed");
			return PULL_ERROR;
		}
		s->member_done = zr == Z_STREAM_END;
		if (z->avail_out < READ_CHUNK) {
			*p = (const char *)s->zout;
			*n = READ_CHUNK - z->avail_out;
			return PULL_DATA;
		}
	}
}

/* The next decoded block after the peeked bytes. */
static enum pull pull(struct fk_input *in, const char **p, size_t *n, struct fk_diag *d)
{
	if (in->gzip)
		return inflate_next(in, p, n, d);
	const unsigned char *raw;
	ssize_t got = raw_next(in, &raw, d);
	if (got < 0)
		return PULL_ERROR;
	if (got == 0)
		return PULL_END;
	*p = (const char *)raw;
	*n = (size_t)got;
	return PULL_DATA;
}

/* Every decoded block from the first byte: the peeked bytes, then the rest. */
static enum pull next_block(struct fk_input *in, const char **p, size_t *n, struct fk_diag *d)
{
	struct fk_input_stream *s = in->s;
	if (!s->peek_taken) {
		s->peek_taken = true;
		if (s->peek_len > 0) {
			*p = s->peek;
			*n = s->peek_len;
			return PULL_DATA;
		}
	}
	if (s->after_peek != PULL_DATA)
		return s->after_peek;
	return pull(in, p, n, d);
}

/* Reads ahead FK_DETECT_PEEK decoded bytes (or all of a shorter input). */
static bool fill_peek(struct fk_input *in, struct fk_diag *d)
{
	struct fk_input_stream *s = in->s;
	size_t cap = 0;
	s->after_peek = PULL_DATA;
	while (s->peek_len < FK_DETECT_PEEK) {
		const char *p;
		size_t n;
		enum pull r = pull(in, &p, &n, d);
		if (r != PULL_DATA) {
			s->after_peek = r;
			return r != PULL_ERROR;
		}
		if (!FK_GROW(s->peek, cap, s->peek_len + n, 4096)) {
			fk_diag_error(d, "%s: out of memory", in->name);
			return false;
		}
		memcpy(s->peek + s->peek_len, p, n);
		s->peek_len += n;
	}
	return true;
}

/* Reads the first raw bytes of a stream for the gzip magic (a pipe may
 * give one at a time); *head and *len then hold them. */
static bool read_head(struct fk_input *in, const unsigned char **head, size_t *len,
		      struct fk_diag *d)
{
	struct fk_input_stream *s = in->s;
	if (!(s->buf = malloc(READ_CHUNK))) {
		fk_diag_error(d, "%s: out of memory", in->name);
		return false;
	}
	size_t got = 0;
	while (got < 2 && !s->eof) {
		ssize_t n = read(s->fd, s->buf + got, READ_CHUNK - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fk_diag_error(d, "%s: read error: %s", in->name, strerror(errno));
			return false;
		}
		s->eof = n == 0;
		got += (size_t)n;
	}
	*head = s->buf;
	*len = got;
	return true;
}

/* With the raw bytes in place (mapped whole, or their head read): gzip or
 * not, the peek, the kind. */
static bool start(struct fk_input *in, struct fk_diag *d)
{
	struct fk_input_stream *s = in->s;
	const unsigned char *head = s->raw_map;
	size_t head_len = s->raw_len;
	/* An empty buffer is at its end already: no read buffer (1 MiB) for it. */
	if (!head && !s->eof && !read_head(in, &head, &head_len, d))
		return false;
	in->gzip = head_len >= 2 && head[0] == 0x1f && head[1] == 0x8b;
	if (in->gzip) {
		if (!(s->zout = malloc(READ_CHUNK)) || inflateInit2(&s->z, 16 + MAX_WBITS) != Z_OK) {
			fk_diag_error(d, "%s: cannot start zlib", in->name);
			return false;
		}
		s->z_started = true;
		if (!s->raw_map) { /* the bytes read for the magic go in first */
			s->z.next_in = s->buf;
			s->z.avail_in = (unsigned)head_len;
		}
	} else if (s->unmap) { /* our mapping; a caller's buffer is read as a stream,
				  so no page of it is ever handed back */
		in->map = (const char *)s->raw_map;
		in->map_len = s->raw_len;
	}
	if (in->map) {
		in->peek = in->map;
		in->peek_len = in->map_len;
		s->peek_taken = true;
		s->after_peek = PULL_END;
	} else {
		/* Bytes read for the magic start the peek. */
		if (!in->gzip && !s->raw_map && head_len > 0) {
			if (!(s->peek = malloc(head_len))) {
				fk_diag_error(d, "%s: out of memory", in->name);
				return false;
			}
			memcpy(s->peek, head, head_len);
			s->peek_len = head_len;
		}
		if (!fill_peek(in, d))
			return false;
		in->peek = s->peek;
		in->peek_len = s->peek_len;
	}
	in->kind = fk_detect(in->peek, in->peek_len < FK_DETECT_PEEK ? in->peek_len : FK_DETECT_PEEK);
	return true;
}

static bool new_stream(struct fk_input *in, struct fk_diag *d)
{
	in->s = calloc(1, sizeof *in->s);
	if (!in->s)
		fk_diag_error(d, "%s: out of memory", in->name);
	else
		in->s->fd = -1;
	return in->s != NULL;
}

bool fk_input_open(struct fk_input *in, const char *path, struct fk_diag *d)
{
	*in = (struct fk_input){ .path = path, .name = fk_input_display_name(path) };
	if (!new_stream(in, d))
		return false;
	struct fk_input_stream *s = in->s;
	bool is_stdin = strcmp(path, "-") == 0;
	s->fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	s->own_fd = !is_stdin && s->fd >= 0;
	struct stat st;
	if (s->fd < 0 || fstat(s->fd, &st) != 0) {
		fk_diag_error(d, "%s: %s", in->name, strerror(errno));
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		fk_diag_error(d, "%s: is a directory", in->name);
		goto fail;
	}
	/* A regular stdin may already be partly read (`{ read h; stackfold; } < f`):
	 * map only from its start. */
	if (S_ISREG(st.st_mode) && st.st_size > 0 && lseek(s->fd, 0, SEEK_CUR) == 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, s->fd, 0);
		if (m != MAP_FAILED) {
			s->raw_map = m;
			s->raw_len = (size_t)st.st_size;
			s->unmap = true;
			madvise(m, s->raw_len, MADV_SEQUENTIAL);
		}
	}
	if (start(in, d))
		return true;
fail:
	fk_input_close(in);
	return false;
}

bool fk_input_open_memory(struct fk_input *in, const char *name, const void *data, size_t n,
			  struct fk_diag *d)
{
	*in = (struct fk_input){ .path = name, .name = name };
	if (!new_stream(in, d))
		return false;
	in->s->raw_map = n ? data : NULL;
	in->s->raw_len = n;
	in->s->eof = true; /* an empty buffer reads as an empty stream */
	if (start(in, d))
		return true;
	fk_input_close(in);
	return false;
}

void fk_input_close(struct fk_input *in)
{
	struct fk_input_stream *s = in->s;
	if (s) {
		if (s->z_started)
			inflateEnd(&s->z);
		if (s->unmap)
			munmap((void *)s->raw_map, s->raw_len);
		if (s->own_fd)
			close(s->fd);
		free(s->zout);
		free(s->buf);
		free(s->peek);
		free(s);
	}
	in->s = NULL;
	in->map = in->peek = NULL;
}

/* ---- a mapped file's lines through pread() ---- */

/* Small enough to stay in the cache while its lines are parsed. */
#define PREAD_BLOCK ((size_t)256 << 10)

struct home_reader {
	struct reader r;      /* r.fn when lines are passed without their homes */
	fk_home_line_fn fn;
	const struct fk_piece_reader *piece; /* its hooks, or NULL */
	const char *home; /* the mapped byte at buf[0] */
	char *buf;
	size_t cap;
	bool skipping;    /* inside an over-long line, waiting for its '\n' */
};

static bool emit_home(struct home_reader *h, const char *p, size_t n)
{
	h->r.lineno++;
	if (!(h->fn ? h->fn(h->r.ctx, p, n, h->home + (p - h->buf), h->r.lineno)
		    : h->r.fn(h->r.ctx, p, n, h->r.lineno))) {
		h->r.stopped = true;
		return false;
	}
	return true;
}

/* The lines passed are let go before their buffer is reused: also after a
 * line function stopped the reading, which may have kept lines before. */
static void lines_read(struct home_reader *h)
{
	if (h->piece && h->piece->lines_read && !h->piece->lines_read(h->r.ctx))
		h->r.stopped = true;
}

/* The whole lines of buf[0..have); returns where the partial one begins. */
static const char *home_lines(struct home_reader *h, size_t have)
{
	const char *p = h->buf, *end = h->buf + have;
	for (const char *nl; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
		if (h->skipping)
			h->skipping = false;
		else if (!emit_home(h, p, (size_t)(nl - p)))
			break;
	}
	lines_read(h);
	return p;
}

/* Room after a partial line of have bytes: the buffer grows up to the
 * longest line kept; a longer one is reported and skipped. */
static bool make_room(struct home_reader *h, size_t *have)
{
	if (*have < h->cap)
		return true;
	if (h->cap > FK_INPUT_MAX_LINE) { /* dropped, and reported once */
		bool reported = h->skipping;
		h->home += *have;
		*have = 0;
		h->skipping = true;
		return reported || too_long(&h->r);
	}
	size_t cap = h->cap * 2 > FK_INPUT_MAX_LINE + 1 ? FK_INPUT_MAX_LINE + 1 : h->cap * 2;
	char *grown = realloc(h->buf, cap);
	if (!grown) {
		fk_diag_error(h->r.d, "%s: out of memory", h->r.name);
		h->r.stopped = true;
		return false;
	}
	h->buf = grown;
	h->cap = cap;
	return true;
}

ssize_t fk_input_pread(const struct fk_input *in, void *buf, size_t n, size_t off)
{
	size_t done = 0;
	while (done < n) {
		ssize_t got = pread(in->s->fd, (char *)buf + done, n - done, (off_t)(off + done));
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -1;
		if (got == 0)
			break;
		done += (size_t)got;
	}
	return (ssize_t)done;
}

/* The lines of bytes [off, off + n) of a mapped input, to h->fn or h->r.fn. */
static enum fk_input_result pread_lines(const struct fk_input *in, size_t off, size_t n,
					struct home_reader *hr)
{
	struct home_reader h = *hr;
	const char *name = h.r.name;
	struct fk_diag *d = h.r.d;
	h.home = in->map + off;
	h.cap = PREAD_BLOCK;
	enum fk_input_result res = FK_INPUT_OK;
	size_t have = 0, pos = off, end = off + n;
	if (!(h.buf = malloc(h.cap))) {
		fk_diag_error(d, "%s: out of memory", name);
		res = FK_INPUT_ERROR;
	}
	while (res == FK_INPUT_OK && !h.r.stopped && pos < end) {
		if (!make_room(&h, &have))
			break;
		size_t want = h.cap - have < end - pos ? h.cap - have : end - pos;
		if (h.piece && h.piece->claim && (want = h.piece->claim(h.r.ctx, pos, want)) == 0)
			break; /* its end was moved back to here */
		ssize_t got = fk_input_pread(in, h.buf + have, want, pos);
		if (got <= 0) { /* a read error, or the file shrank under us */
			fk_diag_error(d, "%s: %s", name, got < 0 ? strerror(errno) : "file shrank while read");
			res = FK_INPUT_ERROR;
			break;
		}
		have += (size_t)got;
		pos += (size_t)got;
		const char *rest = home_lines(&h, have);
		have = (size_t)(h.buf + have - rest);
		memmove(h.buf, rest, have);
		h.home += rest - h.buf;
	}
	/* A last line without its '\n'. */
	if (res == FK_INPUT_OK && !h.r.stopped && have && !h.skipping) {
		if (have > FK_INPUT_MAX_LINE)
			too_long(&h.r);
		else
			emit_home(&h, h.buf, have);
		lines_read(&h);
	}
	free(h.buf);
	hr->r = h.r;
	return res == FK_INPUT_OK && h.r.stopped ? FK_INPUT_STOPPED : res;
}

enum fk_input_result fk_input_pread_piece(const struct fk_input *in, size_t off, size_t n,
					  const char *name, uint64_t first_line,
					  const struct fk_piece_reader *r, struct fk_diag *d,
					  uint64_t *lines)
{
	struct home_reader h = {
		.r = { .name = name, .ctx = r->ctx, .d = d, .lineno = first_line },
		.fn = r->line, .piece = r,
	};
	enum fk_input_result res = pread_lines(in, off, n, &h);
	*lines = h.r.lineno - first_line;
	return res;
}

enum fk_input_result fk_input_pread_lines(const struct fk_input *in, size_t off, size_t n,
					  const char *name, uint64_t first_line,
					  fk_home_line_fn fn, void *ctx, struct fk_diag *d,
					  uint64_t *lines)
{
	const struct fk_piece_reader r = { .line = fn, .ctx = ctx };
	return fk_input_pread_piece(in, off, n, name, first_line, &r, d, lines);
}

/* A mapped input's bytes for a chunk reader, read a block at a time. */
static enum fk_input_result pread_chunks(const struct fk_input *in, struct reader *r)
{
	char *buf = malloc(READ_CHUNK);
	if (!buf) {
		fk_diag_error(r->d, "%s: out of memory", r->name);
		return FK_INPUT_ERROR;
	}
	enum fk_input_result res = FK_INPUT_OK;
	for (size_t off = 0; off < in->map_len && !r->stopped; off += READ_CHUNK) {
		size_t len = in->map_len - off < READ_CHUNK ? in->map_len - off : READ_CHUNK;
		ssize_t got = fk_input_pread(in, buf, len, off);
		if (got != (ssize_t)len) {
			fk_diag_error(r->d, "%s: %s", r->name,
				      got < 0 ? strerror(errno) : "file shrank while read");
			res = FK_INPUT_ERROR;
			break;
		}
		feed(r, buf, len);
	}
	free(buf);
	return res == FK_INPUT_OK && r->stopped ? FK_INPUT_STOPPED : res;
}

static enum fk_input_result read_stream(struct fk_input *in, struct reader *r)
{
	/* A mapped file is read, not touched through its mapping (see
	 * fk_input_pread_lines). */
	if (in->map && r->chunk_fn)
		return pread_chunks(in, r);
	if (in->map) {
		struct home_reader h = { .r = *r };
		enum fk_input_result res = pread_lines(in, 0, in->map_len, &h);
		*r = h.r;
		return res;
	}
	const char *p;
	size_t n;
	enum pull res;
	while ((res = next_block(in, &p, &n, r->d)) == PULL_DATA)
		if (!feed(r, p, n))
			return FK_INPUT_STOPPED;
	if (res == PULL_ERROR)
		return FK_INPUT_ERROR;
	if (res == PULL_TRUNCATED) {
		fk_diag_error(r->d, "%s: truncated gzip data (after %llu %s)", r->name,
			      (unsigned long long)(r->chunk_fn ? r->bytes : r->lineno),
			      r->chunk_fn ? "bytes" : "lines");
		return FK_INPUT_ERROR;
	}
	return finish(r) ? FK_INPUT_OK : FK_INPUT_STOPPED;
}

enum fk_input_result fk_input_read_lines(struct fk_input *in, fk_line_fn fn, void *ctx,
					 struct fk_diag *d)
{
	struct reader r = { .name = in->name, .fn = fn, .ctx = ctx, .d = d };
	enum fk_input_result res = read_stream(in, &r);
	free(r.line);
	return res;
}

enum fk_input_result fk_input_read_chunks(struct fk_input *in, fk_chunk_fn fn, void *ctx,
					  struct fk_diag *d)
{
	struct reader r = { .name = in->name, .chunk_fn = fn, .ctx = ctx, .d = d };
	return read_stream(in, &r);
}

enum fk_input_result fk_input_lines(const char *path, const char *name,
				    fk_line_fn fn, void *ctx, struct fk_diag *d)
{
	struct fk_input in;
	if (!fk_input_open(&in, path, d))
		return FK_INPUT_ERROR;
	in.name = name;
	enum fk_input_result res = fk_input_read_lines(&in, fn, ctx, d);
	fk_input_close(&in);
	return res;
}

enum fk_input_result fk_input_chunks(const char *path, const char *name,
				     fk_chunk_fn fn, void *ctx, struct fk_diag *d)
{
	struct fk_input in;
	if (!fk_input_open(&in, path, d))
		return FK_INPUT_ERROR;
	in.name = name;
	enum fk_input_result res = fk_input_read_chunks(&in, fn, ctx, d);
	fk_input_close(&in);
	return res;
}
