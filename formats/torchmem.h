/* torchmem.h - torch.profiler's memory timeline files
 * (prof.export_memory_timeline, torch >= 2.1):
 *   raw      "*raw.json.gz": [[t_ns, action, signed_bytes, category_index], ...]
 *   coalesced ".json":      [[t_us, ...], [[0, c1, ..., c8], ...]]
 * The raw rows are read (gzip or not, streamed; rows of the plain shape
 * lexed by hand (formats/introws.h), anything else through yajl, with
 * yajl's messages; large mapped files in parallel parts) as plain events
 * handed to a caller's sink; both
 * files are written from a caller's iterators, with torch's layout: Python
 * json.dump spacing, no trailing newline. Spec: formats/TORCHMEM.md.
 *
 * Owns: nothing beyond a call; the sink and iterators are the caller's.
 */
#ifndef FK_TORCHMEM_H
#define FK_TORCHMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/diag.h"
#include "formats/input.h"
#include "formats/sink.h"

/* torch's actions, by their values in files. */
enum {
	FK_TORCHMEM_PREEXISTING = 1,       /* live before profiling began (t = -1) */
	FK_TORCHMEM_CREATE = 2,
	FK_TORCHMEM_INCREMENT_VERSION = 3, /* bytes move from category to category_to */
	FK_TORCHMEM_DESTROY = 4,
};
extern const char *const fk_torchmem_action_names[5];

/* Categories by their index in files (PARAMETER ... 7: Unknown), and the
 * coalesced file's columns: 0 (torch's unused first), then each category. */
#define FK_TORCHMEM_NCAT 8
#define FK_TORCHMEM_COLUMNS (FK_TORCHMEM_NCAT + 1)

/* One event: a row, or the two rows of an INCREMENT_VERSION. */
struct fk_torchmem_event {
	int64_t t_ns;        /* -1 for PREEXISTING */
	uint64_t bytes;      /* always positive */
	uint8_t action, category, category_to;
};

/* Where the events of a raw file go. */
struct fk_torchmem_sink {
	/* One event, in file order; false: out of memory. */
	bool (*event)(void *ctx, const struct fk_torchmem_event *ev);
	/* Large mapped files are parsed in parts on threads: fork gives a
	 * new, empty context for a part (NULL: out of memory; fork NULL: never
	 * split), join appends a part's events to ctx in order and frees it
	 * (false: out of memory), discard frees a part not joined. */
	void *(*fork)(void *ctx);
	bool (*join)(void *ctx, void *part);
	void (*discard)(void *part);
};

/* Reads the raw timeline of an open input into sink. Any malformed row is
 * an error, reported as "name: event N: reason" (N counts rows from 1);
 * false then, or when the input cannot be read. */
bool fk_torchmem_read_raw(struct fk_input *in, const struct fk_torchmem_sink *sink, void *ctx,
			  struct fk_diag *d);

/* The rows of a coalesced timeline: start (again), then next until false;
 * t in microseconds, sizes the FK_TORCHMEM_COLUMNS live byte counts. */
struct fk_torchmem_rows {
	void (*start)(void *ctx);
	bool (*next)(void *ctx, int64_t *t, const int64_t **sizes);
	void *ctx;
};

/* The coalesced JSON: [[t_us, ...], [[0, c1, ..., c8], ...]]. */
void fk_torchmem_write_json(struct fk_sink *out, const struct fk_torchmem_rows *rows);
/* The raw rows of the events next gives: INCREMENT_VERSION as two rows. */
void fk_torchmem_write_raw(struct fk_sink *out,
			   bool (*next)(void *ctx, struct fk_torchmem_event *ev), void *ctx);

#endif
