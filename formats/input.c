/* input.c - lines from files, pipes and gzip streams (see input.h). */
#include "formats/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define READ_CHUNK ((size_t)1 << 20)

bool fk_input_map_open(const char *path, struct fk_input_map *m)
{
	*m = (struct fk_input_map){ 0 };
	struct stat st;
	/* stat first: opening a FIFO would block, or eat its data. */
	if (strcmp(path, "-") == 0 || stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	void *p = MAP_FAILED;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return false;
	const unsigned char *u = p;
	if (st.st_size >= 2 && u[0] == 0x1f && u[1] == 0x8b) {
		munmap(p, (size_t)st.st_size);
		return false;
	}
	madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
	m->data = p;
	m->len = (size_t)st.st_size;
	return true;
}

void fk_input_map_close(struct fk_input_map *m)
{
	if (m->data)
		munmap((void *)m->data, m->len);
	*m = (struct fk_input_map){ 0 };
}

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

/* Where the bytes come from, before any decompression. */
struct raw {
	int fd;
	const unsigned char *map; /* whole file when mmap'd, else NULL */
	size_t map_len, map_pos;
	unsigned char *buf;       /* read() buffer when not mmap'd */
	size_t buf_len, buf_pos;
	bool eof;
};

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

/* Mapped pages already read are handed back as we go, so memory use stays
 * proportional to what is kept (unique stacks), not to the file's size. */
#define RELEASE_EVERY ((size_t)16 << 20)

void fk_input_release(const char *from, const char *to)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)from + page - 1) & ~(page - 1);
	uintptr_t b = (uintptr_t)to & ~(page - 1);
	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

/* Splits a mapped (complete) buffer into lines: the zero-copy fast path. */
static void lines_of_buffer(struct reader *r, const char *p, size_t n)
{
	const char *end = p + n, *released = p;
	while (p < end) {
		if ((size_t)(p - released) >= RELEASE_EVERY) {
			fk_input_release(released, p);
			released = p;
		}
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
			if (r->line_len + len > r->line_cap) {
				size_t cap = r->line_cap ? r->line_cap : 4096;
				while (cap < r->line_len + len)
					cap *= 2;
				char *grown = realloc(r->line, cap);
				if (!grown) {
					fk_diag_error(r->d, "%s: out of memory", r->name);
					r->stopped = true;
					return false;
				}
				r->line = grown, r->line_cap = cap;
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

/* Next raw bytes: returns length, 0 at end, -1 on error. */
static ssize_t raw_next(struct raw *s, const unsigned char **out, struct reader *r)
{
	if (s->map) {
		size_t n = s->map_len - s->map_pos;
		if (n > READ_CHUNK)
			n = READ_CHUNK;
		*out = s->map + s->map_pos;
		s->map_pos += n;
		return (ssize_t)n;
	}
	if (s->buf_pos < s->buf_len) { /* bytes peeked for the gzip magic */
		*out = s->buf + s->buf_pos;
		ssize_t n = (ssize_t)(s->buf_len - s->buf_pos);
		s->buf_pos = s->buf_len;
		return n;
	}
	if (s->eof)
		return 0;
	for (;;) {
		ssize_t n = read(s->fd, s->buf, READ_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fk_diag_error(r->d, "%s: read error: %s", r->name, strerror(errno));
			return -1;
		}
		if (n == 0)
			s->eof = true;
		s->buf_len = (size_t)n;
		s->buf_pos = (size_t)n;
		*out = s->buf;
		return n;
	}
}

static enum fk_input_result read_plain(struct raw *s, struct reader *r)
{
	const unsigned char *p;
	ssize_t n;
	while ((n = raw_next(s, &p, r)) > 0)
		if (!feed(r, (const char *)p, (size_t)n))
			return FK_INPUT_STOPPED;
	if (n < 0)
		return FK_INPUT_ERROR;
	return finish(r) ? FK_INPUT_OK : FK_INPUT_STOPPED;
}

/* Inflates gzip data, member after member (like gzip -d on `cat a.gz b.gz`). */
static enum fk_input_result read_gzip(struct raw *s, struct reader *r)
{
	z_stream z = { 0 };
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		fk_diag_error(r->d, "%s: cannot start zlib", r->name);
		return FK_INPUT_ERROR;
	}
	unsigned char *out = malloc(READ_CHUNK);
	if (!out) {
		inflateEnd(&z);
		fk_diag_error(r->d, "%s: out of memory", r->name);
		return FK_INPUT_ERROR;
	}
	enum fk_input_result res = FK_INPUT_OK;
	bool member_done = false;
	for (;;) {
		if (z.avail_in == 0) {
			const unsigned char *p;
			ssize_t n = raw_next(s, &p, r);
			if (n < 0) {
				res = FK_INPUT_ERROR;
				break;
			}
			if (n == 0) {
				if (!member_done) {
					fk_diag_error(r->d, "%s: truncated gzip data (after %llu %s)",
						      r->name,
						      (unsigned long long)(r->chunk_fn ? r->bytes : r->lineno),
						      r->chunk_fn ? "bytes" : "lines");
					res = FK_INPUT_ERROR;
				}
				break;
			}
			z.next_in = (unsigned char *)p;
			z.avail_in = (unsigned)n;
		}
		if (member_done) {
			/* Another member may follow, or zero padding (tape and
			 * block devices add it); anything else is garbage. */
			while (z.avail_in > 0 && z.next_in[0] == 0)
				z.next_in++, z.avail_in--;
			if (z.avail_in == 0)
				continue;
			if (z.next_in[0] != 0x1f) {
				fk_diag_error(r->d, "%s: trailing garbage after gzip data", r->name);
				res = FK_INPUT_ERROR;
				break;
			}
			inflateReset(&z);
			member_done = false;
		}
		z.next_out = out;
		z.avail_out = (unsigned)READ_CHUNK;
		int zr = inflate(&z, Z_NO_FLUSH);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			fk_diag_error(r->d, "%s: corrupt gzip data: %s", r->name,
				      z.msg ? z.msg : "inflate failed");
			res = FK_INPUT_ERROR;
			break;
		}
		if (!feed(r, (const char *)out, READ_CHUNK - z.avail_out)) {
			res = FK_INPUT_STOPPED;
			break;
		}
		if (zr == Z_STREAM_END)
			member_done = true;
	}
	if (res == FK_INPUT_OK && !finish(r))
		res = FK_INPUT_STOPPED;
	inflateEnd(&z);
	free(out);
	return res;
}

/* Mapped bytes for a chunk reader, with pages released behind it. */
static void chunks_of_buffer(struct reader *r, const char *p, size_t n)
{
	const char *released = p;
	for (size_t off = 0; off < n && !r->stopped; off += READ_CHUNK) {
		size_t len = n - off < READ_CHUNK ? n - off : READ_CHUNK;
		feed(r, p + off, len);
		if ((size_t)(p + off - released) >= RELEASE_EVERY) {
			fk_input_release(released, p + off);
			released = p + off;
		}
	}
}

static enum fk_input_result read_input(const char *path, struct reader *r)
{
	const char *name = r->name;
	struct fk_diag *d = r->d;
	struct raw s = { .fd = -1 };
	bool is_stdin = strcmp(path, "-") == 0;
	s.fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	if (s.fd < 0) {
		fk_diag_error(d, "%s: %s", name, strerror(errno));
		return FK_INPUT_ERROR;
	}
	enum fk_input_result res = FK_INPUT_ERROR;
	struct stat st;
	if (fstat(s.fd, &st) != 0) {
		fk_diag_error(d, "%s: %s", name, strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		fk_diag_error(d, "%s: is a directory", name);
		goto out;
	}
	/* A regular stdin may already be partly read (`{ read h; stackfold; } < f`):
	 * map only from its start. */
	if (S_ISREG(st.st_mode) && st.st_size > 0 && lseek(s.fd, 0, SEEK_CUR) == 0) {
		void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, s.fd, 0);
		if (m != MAP_FAILED) {
			s.map = m;
			s.map_len = (size_t)st.st_size;
			madvise(m, s.map_len, MADV_SEQUENTIAL);
		}
	}
	bool gz;
	if (s.map) {
		gz = s.map_len >= 2 && s.map[0] == 0x1f && s.map[1] == 0x8b;
	} else {
		s.buf = malloc(READ_CHUNK);
		if (!s.buf) {
			fk_diag_error(d, "%s: out of memory", name);
			goto out;
		}
		/* Peek at the first bytes (short reads from pipes are fine). */
		while (s.buf_len < 2 && !s.eof) {
			ssize_t n = read(s.fd, s.buf + s.buf_len, READ_CHUNK - s.buf_len);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0) {
				fk_diag_error(d, "%s: read error: %s", name, strerror(errno));
				goto out;
			}
			if (n == 0)
				s.eof = true;
			s.buf_len += (size_t)n;
		}
		gz = s.buf_len >= 2 && s.buf[0] == 0x1f && s.buf[1] == 0x8b;
	}
	if (s.map && !gz) {
		if (r->chunk_fn)
			chunks_of_buffer(r, (const char *)s.map, s.map_len);
		else
			lines_of_buffer(r, (const char *)s.map, s.map_len);
		res = r->stopped ? FK_INPUT_STOPPED : FK_INPUT_OK;
	} else {
		res = gz ? read_gzip(&s, r) : read_plain(&s, r);
	}
out:
	if (s.map)
		munmap((void *)s.map, s.map_len);
	free(s.buf);
	if (!is_stdin && s.fd >= 0)
		close(s.fd);
	return res;
}

enum fk_input_result fk_input_lines(const char *path, const char *name,
				    fk_line_fn fn, void *ctx, struct fk_diag *d)
{
	struct reader r = { .name = name, .fn = fn, .ctx = ctx, .d = d };
	enum fk_input_result res = read_input(path, &r);
	free(r.line);
	return res;
}

enum fk_input_result fk_input_chunks(const char *path, const char *name,
				     fk_chunk_fn fn, void *ctx, struct fk_diag *d)
{
	struct reader r = { .name = name, .chunk_fn = fn, .ctx = ctx, .d = d };
	return read_input(path, &r);
}
