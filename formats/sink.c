/* sink.c - buffered plain or gzip output (see sink.h). */
#include "formats/sink.h"

#include "formats/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool fk_sink_open(struct fk_sink *s, const char *path, int gzip_level)
{
	memset(s, 0, sizeof *s);
	s->is_stdout = !path || strcmp(path, "-") == 0;
	s->name = s->is_stdout ? "<stdout>" : path;
	s->gzip = gzip_level > 0;
	s->level = gzip_level;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	s->nthreads = !s->gzip || cpus < 2 ? 1 : cpus > FK_SINK_MAX_THREADS ? FK_SINK_MAX_THREADS
									  : (unsigned)cpus;
	s->cap = s->nthreads > 1 ? FK_SINK_BLOCK : FK_SINK_BUF;
	s->buf = malloc(s->cap);
	s->zbuf = s->gzip && s->nthreads == 1 ? malloc(FK_SINK_BUF) : NULL;
	/* 31: a gzip header and trailer, which gzip and Python's gzip read. */
	if (!s->buf || (s->gzip && s->nthreads == 1 &&
			(!s->zbuf || deflateInit2(&s->z, gzip_level, Z_DEFLATED, 31, 8,
						  Z_DEFAULT_STRATEGY) != Z_OK))) {
		free(s->buf);
		free(s->zbuf);
		errno = ENOMEM;
		return false;
	}
	s->fd = s->is_stdout ? STDOUT_FILENO : fk_outfile_open(path);
	if (s->fd < 0) {
		int e = errno;
		if (s->gzip && s->nthreads == 1)
			deflateEnd(&s->z);
		free(s->buf);
		free(s->zbuf);
		errno = e;
		return false;
	}
	return true;
}

static void write_all(struct fk_sink *s, const unsigned char *p, size_t n)
{
	while (n > 0 && !s->failed) {
		ssize_t w = write(s->fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			s->failed = true;
			s->err = errno;
			return;
		}
		p += w, n -= (size_t)w;
	}
}

static void deflate_out(struct fk_sink *s, const unsigned char *p, size_t n, int flush)
{
	s->z.next_in = (unsigned char *)p;
	s->z.avail_in = (unsigned)n;
	int zr;
	do {
		s->z.next_out = s->zbuf;
		s->z.avail_out = (unsigned)FK_SINK_BUF;
		zr = deflate(&s->z, flush);
		if (zr == Z_STREAM_ERROR) {
			s->failed = true;
			return;
		}
		write_all(s, s->zbuf, FK_SINK_BUF - s->z.avail_out);
	} while (s->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
}

/* A whole gzip member from one block. */
static void *compress_block(void *arg)
{
	struct fk_sink_block *b = arg;
	z_stream z = { 0 };
	b->ok = false;
	if (deflateInit2(&z, b->level, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return NULL;
	size_t bound = deflateBound(&z, b->in_len);
	b->out = malloc(bound);
	if (b->out) {
		z.next_in = b->in;
		z.avail_in = (unsigned)b->in_len;
		z.next_out = b->out;
		z.avail_out = (unsigned)bound;
		b->ok = deflate(&z, Z_FINISH) == Z_STREAM_END;
		b->out_len = bound - z.avail_out;
	}
	deflateEnd(&z);
	return NULL;
}

/* Waits for the oldest block and writes it out. */
static void finish_oldest(struct fk_sink *s)
{
	struct fk_sink_block *b = &s->blocks[s->first];
	if (b->threaded)
		pthread_join(b->thread, NULL);
	if (!b->ok && !s->failed)
		s->failed = true, s->err = b->out ? 0 : ENOMEM;
	if (b->ok)
		write_all(s, b->out, b->out_len);
	free(b->in);
	free(b->out);
	b->in = b->out = NULL;
	s->first = (s->first + 1) % s->nthreads;
	s->inflight--;
}

/* Hands the filled buffer to a thread; the sink gets a fresh one. */
static void start_block(struct fk_sink *s)
{
	if (s->inflight == s->nthreads)
		finish_oldest(s);
	unsigned slot = (s->first + s->inflight) % s->nthreads;
	struct fk_sink_block *b = &s->blocks[slot];
	*b = (struct fk_sink_block){ .in = s->buf, .in_len = s->len, .level = s->level };
	s->inflight++;
	s->buf = malloc(s->cap);
	b->threaded = s->buf && pthread_create(&b->thread, NULL, compress_block, b) == 0;
	if (!b->threaded)
		compress_block(b); /* no thread or memory to spare: here, in order */
	if (!s->buf) {
		/* Write everything out and go on in this block's buffer. */
		unsigned char *in = b->in;
		b->in = NULL;
		while (s->inflight)
			finish_oldest(s);
		s->buf = in;
	}
}

void fk_sink_flush_buffer(struct fk_sink *s)
{
	if (!s->failed && s->len) {
		if (s->gzip && s->nthreads > 1)
			start_block(s);
		else if (s->gzip)
			deflate_out(s, s->buf, s->len, Z_NO_FLUSH);
		else
			write_all(s, s->buf, s->len);
	}
	s->len = 0;
}

bool fk_sink_close(struct fk_sink *s)
{
	fk_sink_flush_buffer(s);
	if (s->gzip && s->nthreads > 1) {
		if (s->inflight == 0 && !s->failed) {
			/* An empty output is still one (empty) gzip member. */
			s->len = 0;
			start_block(s);
		}
		while (s->inflight)
			finish_oldest(s);
	} else if (s->gzip) {
		if (!s->failed)
			deflate_out(s, NULL, 0, Z_FINISH);
		deflateEnd(&s->z);
	}
	if (!s->is_stdout && s->fd >= 0) {
		if (s->failed) {
			fk_outfile_abort(s->fd);
		} else if (!fk_outfile_commit(s->fd, s->name)) {
			s->failed = true;
			s->err = errno;
		}
	}
	free(s->buf);
	free(s->zbuf);
	s->buf = s->zbuf = NULL;
	return !s->failed;
}

/* "00".."99": two digits per division. */
static const char pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

size_t fk_format_i64(char out[FK_I64_TEXT_MAX], int64_t v)
{
	char tmp[FK_I64_TEXT_MAX];
	char *p = tmp + sizeof tmp;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	while (u >= 100) {
		unsigned d = (unsigned)(u % 100) * 2;
		u /= 100;
		*--p = pairs[d + 1];
		*--p = pairs[d];
	}
	if (u >= 10) {
		*--p = pairs[u * 2 + 1];
		*--p = pairs[u * 2];
	} else {
		*--p = (char)('0' + u);
	}
	if (v < 0)
		*--p = '-';
	size_t n = (size_t)(tmp + sizeof tmp - p);
	memcpy(out, p, n);
	return n;
}

void fk_sink_i64(struct fk_sink *s, int64_t v)
{
	/* The buffer's own size: 4 MiB blocks when gzip runs on threads. */
	if (s->cap - s->len < FK_I64_TEXT_MAX)
		fk_sink_flush_buffer(s);
	s->len += fk_format_i64((char *)s->buf + s->len, v);
}
