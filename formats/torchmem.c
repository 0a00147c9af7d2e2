/* torchmem.c - torch memory timeline files (see torchmem.h). */
#include "torchmem.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "input.h"
#include "../analysis/memcoalesce.h"

#define ROW_VALUES 4

struct raw_reader {
	const char *name;
	struct fk_mem_timeline *tl;
	struct fk_diag *d;
	yajl_handle yajl;
	int depth;
	uint64_t row;        /* rows started so far: the current one's number */
	int nvalues;
	int64_t v[ROW_VALUES];
	bool pending;        /* holding the first row of an INCREMENT_VERSION pair */
	int64_t pending_t, pending_bytes;
	int pending_category;
	uint64_t offset;     /* bytes parsed before the current chunk */
	bool failed;         /* an error was reported (the parse was cancelled) */
};

static int bad_row(struct raw_reader *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int bad_row(struct raw_reader *r, const char *fmt, ...)
{
	char why[160];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	fk_diag_error_at(r->d, "%s: event %" PRIu64 ": %s", r->name, r->row, why);
	r->failed = true;
	return 0; /* cancels the parse */
}

static int add(struct raw_reader *r, int64_t t, unsigned action, uint64_t bytes,
	       unsigned category, unsigned category_to)
{
	struct fk_mem_event ev = { .t_ns = t, .bytes = bytes, .action = (uint8_t)action,
				   .category = (uint8_t)category,
				   .category_to = (uint8_t)category_to,
				   .device = FK_MEM_DEVICE_ANY };
	if (!fk_mem_add(r->tl, &ev)) {
		fk_diag_error(r->d, "%s: out of memory", r->name);
		r->failed = true;
		return 0;
	}
	return 1;
}

static uint64_t magnitude(int64_t v)
{
	return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

/* A complete row: check it and turn it into an event (two rows make one
 * INCREMENT_VERSION). */
static int end_row(struct raw_reader *r)
{
	if (r->nvalues != ROW_VALUES)
		return bad_row(r, "a row has %d value%s, expected 4: [t_ns, action, bytes, category]",
			       r->nvalues, r->nvalues == 1 ? "" : "s");
	int64_t t = r->v[0], action = r->v[1], bytes = r->v[2], category = r->v[3];
	if (action < FK_MEM_PREEXISTING || action > FK_MEM_DESTROY)
		return bad_row(r, "unknown action %" PRId64 " (1-4: PREEXISTING, CREATE, "
			       "INCREMENT_VERSION, DESTROY)", action);
	if (category < 0 || category >= FK_MEM_NCAT)
		return bad_row(r, "unknown category %" PRId64 " (0-7: PARAMETER ... Unknown)", category);
	const char *name = fk_mem_action_names[action];
	if (bytes == INT64_MIN)
		return bad_row(r, "size %" PRId64 " out of range", bytes);
	if (t < -1)
		return bad_row(r, "negative time %" PRId64, t);
	if (t == -1 && action != FK_MEM_PREEXISTING)
		return bad_row(r, "%s at time -1 (only PREEXISTING rows have no time)", name);
	if (r->pending && action != FK_MEM_INCREMENT_VERSION)
		return bad_row(r, "%s after the first row of an INCREMENT_VERSION pair "
			       "(its second row, +bytes, is missing)", name);
	switch (action) {
	case FK_MEM_PREEXISTING:
	case FK_MEM_CREATE:
		if (bytes < 0)
			return bad_row(r, "%s with a negative size (%" PRId64 ")", name, bytes);
		return add(r, t, (unsigned)action, (uint64_t)bytes, (unsigned)category,
			   (unsigned)category);
	case FK_MEM_DESTROY:
		if (bytes > 0)
			return bad_row(r, "DESTROY with a positive size (%" PRId64 "; frees are "
				       "negative)", bytes);
		return add(r, t, (unsigned)action, magnitude(bytes), (unsigned)category,
			   (unsigned)category);
	default:
		if (!r->pending) {
			if (bytes > 0)
				return bad_row(r, "INCREMENT_VERSION pair starts with a positive size "
					       "(%" PRId64 "; the first row is -bytes)", bytes);
			r->pending = true;
			r->pending_t = t, r->pending_bytes = bytes;
			r->pending_category = (int)category;
			return 1;
		}
		r->pending = false;
		if (t != r->pending_t || bytes != -r->pending_bytes)
			return bad_row(r, "INCREMENT_VERSION second row [%" PRId64 ", 3, %" PRId64
				       ", ...] does not match the first [%" PRId64 ", 3, %" PRId64 ", ...]",
				       t, bytes, r->pending_t, r->pending_bytes);
		return add(r, t, (unsigned)action, magnitude(bytes), (unsigned)r->pending_category,
			   (unsigned)category);
	}
}

static int on_double(void *ctx, double v)
{
	struct raw_reader *r = ctx;
	return bad_row(r, "%g is not an integer", v);
}

static int on_other(struct raw_reader *r, const char *what)
{
	if (r->depth == 0)
		return bad_row(r, "not a torch raw memory timeline: a %s where the list of rows "
			       "should start", what);
	return bad_row(r, "a %s in a row (rows hold 4 integers)", what);
}

static int on_null(void *ctx) { return on_other(ctx, "null"); }
static int on_bool(void *ctx, int b) { (void)b; return on_other(ctx, "boolean"); }
static int on_string(void *ctx, const unsigned char *s, size_t n)
{
	(void)s, (void)n;
	return on_other(ctx, "string");
}
static int on_map(void *ctx) { return on_other(ctx, "JSON object"); }

static int on_start_array(void *ctx)
{
	struct raw_reader *r = ctx;
	if (r->depth == 2)
		return bad_row(r, "a list inside a row (rows hold 4 integers; a coalesced "
			       "[times, sizes] file? memtimeline reads raw timelines)");
	if (r->depth == 1) {
		r->row++;
		r->nvalues = 0;
	}
	r->depth++;
	return 1;
}

static int on_end_array(void *ctx)
{
	struct raw_reader *r = ctx;
	r->depth--;
	if (r->depth == 1)
		return end_row(r);
	if (r->depth == 0 && r->pending) {
		r->row++;
		return bad_row(r, "the input ends inside an INCREMENT_VERSION pair");
	}
	return 1;
}

static int on_integer(void *ctx, long long v)
{
	struct raw_reader *r = ctx;
	if (r->depth == 0)
		return on_other(r, "number");
	if (r->depth == 1)
		return bad_row(r, "%lld where a row was expected (rows are [t_ns, action, bytes, "
			       "category])", v);
	if (r->nvalues == ROW_VALUES)
		return bad_row(r, "a row has more than 4 values");
	r->v[r->nvalues++] = v;
	return 1;
}

static const yajl_callbacks raw_callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_integer = on_integer,
	.yajl_double = on_double,
	.yajl_string = on_string,
	.yajl_start_map = on_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

static void syntax_error(struct raw_reader *r, const unsigned char *p, size_t n)
{
	unsigned char *msg = yajl_get_error(r->yajl, 0, p, n);
	char *text = (char *)msg;
	size_t len = strlen(text);
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
		text[--len] = 0;
	uint64_t at = r->offset + (p ? yajl_get_bytes_consumed(r->yajl) : 0);
	fk_diag_error_at(r->d, "%s: byte %" PRIu64 ": malformed JSON (%s)", r->name, at, text);
	yajl_free_error(r->yajl, msg);
	r->failed = true;
}

static bool on_chunk(void *ctx, const char *p, size_t n)
{
	struct raw_reader *r = ctx;
	yajl_status st = yajl_parse(r->yajl, (const unsigned char *)p, n);
	if (st == yajl_status_ok) {
		r->offset += n;
		return true;
	}
	if (!r->failed) /* a syntax error, not one of our cancels */
		syntax_error(r, (const unsigned char *)p, n);
	return false;
}

bool fk_torchmem_read_raw(const char *path, const char *name, struct fk_mem_timeline *tl,
			  struct fk_diag *d)
{
	struct raw_reader r = { .name = name, .tl = tl, .d = d };
	r.yajl = yajl_alloc(&raw_callbacks, NULL, &r);
	if (!r.yajl) {
		fk_diag_error(d, "%s: out of memory", name);
		return false;
	}
	enum fk_input_result res = fk_input_chunks(path, name, on_chunk, &r, d);
	bool ok = res == FK_INPUT_OK && !r.failed;
	if (ok && yajl_complete_parse(r.yajl) != yajl_status_ok) {
		if (!r.failed) {
			if (r.offset == 0)
				fk_diag_error_at(d, "%s: empty input (a raw timeline is a JSON "
						 "list, [] when empty)", name);
			else
				syntax_error(&r, NULL, 0);
		}
		ok = false;
	}
	yajl_free(r.yajl);
	return ok;
}

/* ---- writers ---- */

void fk_torchmem_write_json(struct fk_sink *out, const struct fk_mem_timeline *tl)
{
	struct fk_mem_rows rows;
	/* Times first, then the rows: two passes over the events, so no row
	 * is kept. */
	fk_sink_str(out, "[[");
	fk_mem_rows_start(&rows, tl);
	for (bool first = true; fk_mem_rows_next(&rows); first = false) {
		if (!first)
			fk_sink_write(out, ", ", 2);
		fk_sink_i64(out, rows.t);
	}
	fk_sink_str(out, "], [");
	fk_mem_rows_start(&rows, tl);
	for (bool first = true; fk_mem_rows_next(&rows); first = false) {
		fk_sink_str(out, first ? "[" : ", [");
		for (int c = 0; c < FK_MEM_COLUMNS; c++) {
			if (c)
				fk_sink_write(out, ", ", 2);
			fk_sink_i64(out, rows.sizes[c]);
		}
		fk_sink_write(out, "]", 1);
	}
	fk_sink_str(out, "]]");
}

static void raw_row(struct fk_sink *out, bool *first, int64_t t, unsigned action,
		    int64_t bytes, unsigned category)
{
	fk_sink_str(out, *first ? "[" : ", [");
	*first = false;
	fk_sink_i64(out, t);
	fk_sink_write(out, ", ", 2);
	fk_sink_i64(out, action);
	fk_sink_write(out, ", ", 2);
	fk_sink_i64(out, bytes);
	fk_sink_write(out, ", ", 2);
	fk_sink_i64(out, category);
	fk_sink_write(out, "]", 1);
}

void fk_torchmem_write_raw(struct fk_sink *out, const struct fk_mem_timeline *tl)
{
	bool first = true;
	fk_sink_write(out, "[", 1);
	for (size_t i = 0; i < tl->count; i++) {
		struct fk_mem_event ev;
		fk_mem_get(tl, i, &ev);
		int64_t n = (int64_t)ev.bytes;
		switch (ev.action) {
		case FK_MEM_INCREMENT_VERSION:
			raw_row(out, &first, ev.t_ns, ev.action, -n, ev.category);
			raw_row(out, &first, ev.t_ns, ev.action, n, ev.category_to);
			break;
		case FK_MEM_DESTROY:
			raw_row(out, &first, ev.t_ns, ev.action, -n, ev.category);
			break;
		default:
			raw_row(out, &first, ev.t_ns, ev.action, n, ev.category);
		}
	}
	fk_sink_write(out, "]", 1);
}
