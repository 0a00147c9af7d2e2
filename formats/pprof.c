/* pprof.c - profile.proto written field by field (see pprof.h and PPROF.md). */
#include "formats/pprof.h"

#include <string.h>

/* profile.proto's field numbers (github.com/google/pprof, proto/profile.proto). */
enum {
	PROFILE_SAMPLE_TYPE = 1, PROFILE_SAMPLE = 2, PROFILE_LOCATION = 4, PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6, PROFILE_TIME_NANOS = 9, PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11, PROFILE_PERIOD = 12, PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
	VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2,
	SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2,
	LOCATION_ID = 1, LOCATION_ADDRESS = 3, LOCATION_LINE = 4,
	LINE_FUNCTION_ID = 1, LINE_LINE = 2,
	FUNCTION_ID = 1, FUNCTION_NAME = 2, FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

/* Pending bytes go out in pieces of about this size. */
#define FLUSH_AT ((size_t)1 << 16)

static void flush(struct fk_pprof *w, bool always)
{
	if (w->msg.len >= FLUSH_AT || (always && w->msg.len)) {
		fk_sink_write(w->out, w->msg.p, w->msg.len);
		fk_pb_reset(&w->msg);
	}
}

/* The nested message in w->sub as top-level field `field`. */
static void put_sub(struct fk_pprof *w, uint32_t field)
{
	fk_pb_bytes(&w->msg, field, w->sub.p, w->sub.len);
	w->msg.nomem |= w->sub.nomem;
	fk_pb_reset(&w->sub);
	flush(w, false);
}

void fk_pprof_begin(struct fk_pprof *w, struct fk_sink *out)
{
	*w = (struct fk_pprof){ .out = out };
	fk_pprof_string(w, "", 0); /* string_table[0] must be "" */
}

uint64_t fk_pprof_string(struct fk_pprof *w, const char *p, size_t n)
{
	fk_pb_bytes(&w->msg, PROFILE_STRING_TABLE, p, n);
	flush(w, false);
	return w->nstrings++;
}

static void value_type(struct fk_pprof *w, uint32_t field, uint64_t type, uint64_t unit)
{
	fk_pb_uint(&w->sub, VALUETYPE_TYPE, type);
	fk_pb_uint(&w->sub, VALUETYPE_UNIT, unit);
	put_sub(w, field);
}

void fk_pprof_sample_type(struct fk_pprof *w, uint64_t type, uint64_t unit)
{
	value_type(w, PROFILE_SAMPLE_TYPE, type, unit);
}

void fk_pprof_sample(struct fk_pprof *w, const uint64_t *locations, size_t n,
		     const int64_t *values, size_t nvalues)
{
	fk_pb_packed(&w->sub, SAMPLE_LOCATION_ID, locations, n);
	/* int64 on the wire: the two's complement as a uint64 varint */
	size_t bytes = 0;
	for (size_t i = 0; i < nvalues; i++)
		bytes += fk_pb_varint_size((uint64_t)values[i]);
	if (nvalues) {
		fk_pb_key(&w->sub, SAMPLE_VALUE, FK_PB_LEN);
		fk_pb_varint(&w->sub, bytes);
		for (size_t i = 0; i < nvalues; i++)
			fk_pb_varint(&w->sub, (uint64_t)values[i]);
	}
	put_sub(w, PROFILE_SAMPLE);
}

void fk_pprof_location(struct fk_pprof *w, uint64_t id, uint64_t address, uint64_t function_id,
		       int64_t line)
{
	fk_pb_uint(&w->sub, LOCATION_ID, id);
	if (address)
		fk_pb_uint(&w->sub, LOCATION_ADDRESS, address);
	fk_pb_uint(&w->line, LINE_FUNCTION_ID, function_id);
	if (line)
		fk_pb_uint(&w->line, LINE_LINE, (uint64_t)line);
	fk_pb_bytes(&w->sub, LOCATION_LINE, w->line.p, w->line.len);
	w->sub.nomem |= w->line.nomem;
	fk_pb_reset(&w->line);
	put_sub(w, PROFILE_LOCATION);
}

void fk_pprof_function(struct fk_pprof *w, uint64_t id, uint64_t name, uint64_t filename,
		       int64_t start_line)
{
	fk_pb_uint(&w->sub, FUNCTION_ID, id);
	/* No system_name: pprof demangles (and so shortens: "f(int)" -> "f")
	 * a function whose name equals it; names here are already as shown. */
	fk_pb_uint(&w->sub, FUNCTION_NAME, name);
	if (filename)
		fk_pb_uint(&w->sub, FUNCTION_FILENAME, filename);
	if (start_line)
		fk_pb_uint(&w->sub, FUNCTION_START_LINE, (uint64_t)start_line);
	put_sub(w, PROFILE_FUNCTION);
}

void fk_pprof_period(struct fk_pprof *w, uint64_t type, uint64_t unit, int64_t period)
{
	value_type(w, PROFILE_PERIOD_TYPE, type, unit);
	fk_pb_uint(&w->msg, PROFILE_PERIOD, (uint64_t)period);
}

void fk_pprof_times(struct fk_pprof *w, int64_t time_nanos, int64_t duration_nanos)
{
	if (time_nanos)
		fk_pb_uint(&w->msg, PROFILE_TIME_NANOS, (uint64_t)time_nanos);
	if (duration_nanos)
		fk_pb_uint(&w->msg, PROFILE_DURATION_NANOS, (uint64_t)duration_nanos);
}

void fk_pprof_comment(struct fk_pprof *w, uint64_t string)
{
	fk_pb_uint(&w->msg, PROFILE_COMMENT, string);
}

void fk_pprof_default_sample_type(struct fk_pprof *w, uint64_t type)
{
	fk_pb_uint(&w->msg, PROFILE_DEFAULT_SAMPLE_TYPE, type);
}

bool fk_pprof_end(struct fk_pprof *w)
{
	bool ok = !w->msg.nomem && !w->sub.nomem && !w->line.nomem;
	flush(w, true);
	fk_pb_free(&w->msg);
	fk_pb_free(&w->sub);
	fk_pb_free(&w->line);
	return ok;
}
