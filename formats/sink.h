/* sink.h - buffered output to a file or standard output, plain or gzip
 * (zlib), for writers of large generated files (timelines, HTML).
 *
 * With more than one CPU, gzip output is compressed on several threads in
 * 4 MiB blocks, each a gzip member of its own (as pigz does): gzip, zcat and
 * Python's gzip module read the concatenation as one stream.
 *
 * Owns: its buffers, compressor and threads, until fk_sink_close(). Write
 * errors are remembered and reported once, by fk_sink_close().
 */
#ifndef FK_SINK_H
#define FK_SINK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define FK_SINK_BUF ((size_t)1 << 18)
#define FK_SINK_BLOCK ((size_t)4 << 20)
#define FK_SINK_MAX_THREADS 8

/* One block being compressed on its own thread. */
struct fk_sink_block {
	pthread_t thread;
	unsigned char *in, *out;
	size_t in_len, out_len;
	int level;
	bool threaded; /* else compressed already, on the caller's thread */
	bool ok;
};

struct fk_sink {
	const char *name; /* for messages */
	int fd;
	bool gzip, failed, is_stdout;
	int err;          /* errno of the first failure, 0 for a zlib one */
	int level;
	z_stream z;       /* one thread: a single gzip stream */
	size_t len, cap;
	unsigned char *buf;
	unsigned char *zbuf;
	/* several threads: blocks in flight, oldest first */
	struct fk_sink_block blocks[FK_SINK_MAX_THREADS];
	unsigned nthreads, first, inflight;
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
		if (s->len == s->cap)
			fk_sink_flush_buffer(s);
		size_t k = s->cap - s->len < n ? s->cap - s->len : n;
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

#define FK_I64_TEXT_MAX 24

/* A decimal integer, as printf("%lld") would write it; its length. */
size_t fk_format_i64(char out[FK_I64_TEXT_MAX], int64_t v);
void fk_sink_i64(struct fk_sink *s, int64_t v);

#endif
