/* sink.h - buffered output to a file or standard output, plain or gzip
 * (zlib), for writers of large generated files (timelines, HTML).
 *
 * Owns: its buffer and compressor, until fk_sink_close(). Write errors are
 * remembered and reported once, by fk_sink_close().
 */
#ifndef FK_SINK_H
#define FK_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define FK_SINK_BUF ((size_t)1 << 18)

struct fk_sink {
	const char *name; /* for messages */
	int fd;
	bool gzip, failed, is_stdout;
	int err;          /* errno of the first failure, 0 for a zlib one */
	z_stream z;
	size_t len;
	unsigned char *buf;
	unsigned char *zbuf;
};

/* path "-" or NULL: standard output. level: 0 plain, 1-9 gzip. false (with
 * errno) when the file cannot be created. */
bool fk_sink_open(struct fk_sink *s, const char *path, int gzip_level);
void fk_sink_flush_buffer(struct fk_sink *s);
/* Flushes, finishes the gzip stream and closes; false on any write error
 * (s->err tells which). */
bool fk_sink_close(struct fk_sink *s);

static inline void fk_sink_write(struct fk_sink *s, const void *p, size_t n)
{
	const unsigned char *b = p;
	while (n > 0) {
		if (s->len == FK_SINK_BUF)
			fk_sink_flush_buffer(s);
		size_t k = FK_SINK_BUF - s->len < n ? FK_SINK_BUF - s->len : n;
		for (size_t i = 0; i < k; i++) /* short pieces: cheaper than memcpy calls */
			s->buf[s->len + i] = b[i];
		s->len += k, b += k, n -= k;
	}
}

static inline void fk_sink_str(struct fk_sink *s, const char *str)
{
	while (*str)
		fk_sink_write(s, str++, 1);
}

/* A decimal integer, as printf("%lld") would write it. */
void fk_sink_i64(struct fk_sink *s, int64_t v);

#endif
