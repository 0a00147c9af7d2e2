/* pprof.h - pprof's profile.proto written as a stream of top-level fields
 * (formats/PPROF.md): sample types, samples, locations, functions, the
 * string table, period and times, gzip-compressed through an fk_sink, as
 * `go tool pprof`, Pyroscope and the cloud profilers read it.
 *
 * The caller names everything by number: strings by their index in the
 * string table (fk_pprof_string returns it; index 0 is "", written by
 * fk_pprof_begin), functions and locations by nonzero ids it chooses.
 * Fields may come in any order: a protobuf reader concatenates repeated
 * fields, so nothing is held but the pending bytes.
 *
 * Owns: its encoding buffers (released by fk_pprof_end); not the sink.
 */
#ifndef FK_PPROF_H
#define FK_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/protobuf.h"
#include "formats/sink.h"

struct fk_pprof {
	struct fk_sink *out;
	struct fk_pb msg;     /* top-level fields not yet written */
	struct fk_pb sub;     /* one nested message being built */
	struct fk_pb line;    /* a Location's Line */
	uint64_t nstrings;
};

void fk_pprof_begin(struct fk_pprof *w, struct fk_sink *out);
/* Appends p[0..n) to the string table; its index. */
uint64_t fk_pprof_string(struct fk_pprof *w, const char *p, size_t n);
/* One ValueType of sample_type (their order is the order of a sample's values). */
void fk_pprof_sample_type(struct fk_pprof *w, uint64_t type, uint64_t unit);
/* A sample: location ids leaf first, and one value per sample type. */
void fk_pprof_sample(struct fk_pprof *w, const uint64_t *locations, size_t n,
		     const int64_t *values, size_t nvalues);
/* A location with one line in function function_id; address 0: unknown. */
void fk_pprof_location(struct fk_pprof *w, uint64_t id, uint64_t address, uint64_t function_id,
		       int64_t line);
/* A function: name (and system name) and file name as string indices. */
void fk_pprof_function(struct fk_pprof *w, uint64_t id, uint64_t name, uint64_t filename,
		       int64_t start_line);
void fk_pprof_period(struct fk_pprof *w, uint64_t type, uint64_t unit, int64_t period);
void fk_pprof_times(struct fk_pprof *w, int64_t time_nanos, int64_t duration_nanos);
void fk_pprof_comment(struct fk_pprof *w, uint64_t string);
void fk_pprof_default_sample_type(struct fk_pprof *w, uint64_t type);
/* Writes what is pending and frees the buffers; false when memory ran out
 * (the output is then incomplete). Write errors are the sink's to report. */
bool fk_pprof_end(struct fk_pprof *w);

#endif
