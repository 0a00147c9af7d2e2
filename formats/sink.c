/* sink.c - buffered plain or gzip output (see sink.h). */
#include "sink.h"

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
	s->buf = malloc(FK_SINK_BUF);
	s->zbuf = s->gzip ? malloc(FK_SINK_BUF) : NULL;
	/* 31: a gzip header and trailer, which gzip and Python's gzip read. */
	if (!s->buf || (s->gzip && (!s->zbuf || deflateInit2(&s->z, gzip_level, Z_DEFLATED, 31, 8,
							      Z_DEFAULT_STRATEGY) != Z_OK))) {
		free(s->buf);
		free(s->zbuf);
		errno = ENOMEM;
		return false;
	}
	s->fd = s->is_stdout ? STDOUT_FILENO
			     : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (s->fd < 0) {
		int e = errno;
		if (s->gzip)
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

void fk_sink_flush_buffer(struct fk_sink *s)
{
	if (!s->failed && s->len) {
		if (s->gzip)
			deflate_out(s, s->buf, s->len, Z_NO_FLUSH);
		else
			write_all(s, s->buf, s->len);
	}
	s->len = 0;
}

bool fk_sink_close(struct fk_sink *s)
{
	fk_sink_flush_buffer(s);
	if (s->gzip) {
		if (!s->failed)
			deflate_out(s, NULL, 0, Z_FINISH);
		deflateEnd(&s->z);
	}
	if (!s->is_stdout && s->fd >= 0 && close(s->fd) != 0 && !s->failed) {
		s->failed = true;
		s->err = errno;
	}
	free(s->buf);
	free(s->zbuf);
	s->buf = s->zbuf = NULL;
	return !s->failed;
}

void fk_sink_i64(struct fk_sink *s, int64_t v)
{
	char tmp[24];
	char *p = tmp + sizeof tmp;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	do {
		*--p = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*--p = '-';
	fk_sink_write(s, p, (size_t)(tmp + sizeof tmp - p));
}
