/* torchmem.c - torch memory timeline files (see torchmem.h). */
#include "formats/torchmem.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "formats/input.h"
#include "formats/introws.h"

#define ROW_VALUES 4

/* Where the fast path stands (formats/introws.h): rows of the plain shape
 * are lexed by hand; at anything else yajl takes over for the rest of the
 * input, first fed a primer that puts it in the same place, so it finds and
 * words every error as when it read the whole input. */
enum fast_state {
	FAST_START,     /* before the list's '[' */
	FAST_FIRST,     /* after it: a row or ']' */
	FAST_AFTER_ROW, /* after a row: ',' or ']' */
	FAST_NEXT,      /* after a ',': a row */
	FAST_OFF,       /* yajl reads the rest */
};
static const char *const primers[FAST_OFF] = { "", "[", "[[0,1,0,0]", "[[0,1,0,0]," };

/* A row cut by the end of a chunk is kept until the next one completes it;
 * a longer one goes to yajl. */
#define CARRY_MAX 256

struct raw_reader {
	const char *name;
	const struct fk_torchmem_sink *sink;
	void *ctx;           /* where this reader's events go */
	struct fk_diag *d;
	yajl_handle yajl;
	int depth;
	uint64_t row;        /* rows started so far: the current one's number */
	int nvalues;
	int64_t v[ROW_VALUES];
	bool pending;        /* holding the first row of an INCREMENT_VERSION pair */
	int64_t pending_t, pending_bytes;
	int pending_category;
	uint64_t offset;     /* bytes parsed before the current chunk (fast path:
				before the first byte not yet taken) */
	bool failed;         /* an error was reported (the parse was cancelled) */
	bool silent;         /* a parallel part: errors are found again, in order */
	enum fast_state fast;
	bool priming;        /* yajl reads a primer: no callback counts */
	char carry[CARRY_MAX];
	size_t ncarry;
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
	if (!r->silent)
		fk_diag_error_at(r->d, "%s: event %" PRIu64 ": %s", r->name, r->row, why);
	r->failed = true;
	return 0; /* cancels the parse */
}

static int add(struct raw_reader *r, int64_t t, unsigned action, uint64_t bytes,
	       unsigned category, unsigned category_to)
{
	struct fk_torchmem_event ev = { .t_ns = t, .bytes = bytes, .action = (uint8_t)action,
					.category = (uint8_t)category,
					.category_to = (uint8_t)category_to };
	if (!r->sink->event(r->ctx, &ev)) {
		if (!r->silent)
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
		return bad_row(r, "a row has %d value%s, expected 4: [t_ns, action, bytes, category]%s",
			       r->nvalues, r->nvalues == 1 ? "" : "s",
			       r->row == 1 ? " (a coalesced [times, sizes] file? memtimeline reads "
					     "raw timelines, *.raw.json.gz)" : "");
	int64_t t = r->v[0], action = r->v[1], bytes = r->v[2], category = r->v[3];
	if (action < FK_TORCHMEM_PREEXISTING || action > FK_TORCHMEM_DESTROY)
		return bad_row(r, "unknown action %" PRId64 " (1-4: PREEXISTING, CREATE, "
			       "INCREMENT_VERSION, DESTROY)", action);
	if (category < 0 || category >= FK_TORCHMEM_NCAT)
		return bad_row(r, "unknown category %" PRId64 " (0-7: PARAMETER ... Unknown)", category);
	const char *name = fk_torchmem_action_names[action];
	if (bytes == INT64_MIN)
		return bad_row(r, "size %" PRId64 " out of range", bytes);
	if (t < -1)
		return bad_row(r, "negative time %" PRId64, t);
	if (t == -1 && action != FK_TORCHMEM_PREEXISTING)
		return bad_row(r, "%s at time -1 (only PREEXISTING rows have no time)", name);
	if (r->pending && action != FK_TORCHMEM_INCREMENT_VERSION)
		return bad_row(r, "%s after the first row of an INCREMENT_VERSION pair "
			       "(its second row, +bytes, is missing)", name);
	switch (action) {
	case FK_TORCHMEM_PREEXISTING:
	case FK_TORCHMEM_CREATE:
		if (bytes < 0)
			return bad_row(r, "%s with a negative size (%" PRId64 ")", name, bytes);
		return add(r, t, (unsigned)action, (uint64_t)bytes, (unsigned)category,
			   (unsigned)category);
	case FK_TORCHMEM_DESTROY:
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

static int on_other(struct raw_reader *r, const char *what)
{
	if (r->depth == 0) {
		if (!r->silent)
			fk_diag_error_at(r->d, "%s: not a torch raw memory timeline: a %s where "
					 "the list of rows should start", r->name, what);
		r->failed = true;
		return 0;
	}
	if (r->depth == 1) {
		r->row++;
		return bad_row(r, "a %s where a row was expected (rows are [t_ns, action, "
			       "bytes, category])", what);
	}
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
	if (r->priming)
		return 1;
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
	if (r->priming)
		return 1;
	r->depth--;
	if (r->depth == 1)
		return end_row(r);
	if (r->depth == 0 && r->pending) {
		r->row++;
		return bad_row(r, "the input ends inside an INCREMENT_VERSION pair");
	}
	return 1;
}

/* A JSON number as an int64_t: 0, or 1 when it has a fraction or an
 * exponent, 2 when it is out of range. */
static int parse_int(const char *p, size_t n, int64_t *out)
{
	bool neg = n > 0 && p[0] == '-';
	uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (size_t i = neg; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return 1;
		unsigned d = (unsigned)(p[i] - '0');
		if (v > (limit - d) / 10)
			return 2;
		v = v * 10 + d;
	}
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return 0;
}

static int on_number(void *ctx, const char *p, size_t n)
{
	struct raw_reader *r = ctx;
	if (r->priming)
		return 1;
	if (r->depth == 0)
		return on_other(r, "number");
	if (r->depth == 1) {
		r->row++; /* the number stands where row N should */
		return bad_row(r, "%.*s where a row was expected (rows are [t_ns, action, bytes, "
			       "category])", (int)(n > 40 ? 40 : n), p);
	}
	if (r->nvalues == ROW_VALUES)
		return bad_row(r, "a row has more than 4 values");
	int64_t v = 0;
	int bad = parse_int(p, n, &v);
	if (bad)
		return bad_row(r, "%.*s is %s", (int)(n > 40 ? 40 : n), p,
			       bad == 1 ? "not an integer" : "out of range for 64 bits");
	r->v[r->nvalues++] = v;
	return 1;
}

static const yajl_callbacks raw_callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_number = on_number, /* the text: exact integers, clear messages */
	.yajl_string = on_string,
	.yajl_start_map = on_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

static void syntax_error(struct raw_reader *r, const unsigned char *p, size_t n)
{
	r->failed = true;
	if (r->silent)
		return;
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

/* yajl parses p[0..n), which starts at byte r->offset of the input. */
static bool yajl_feed(struct raw_reader *r, const char *p, size_t n)
{
	yajl_status st = yajl_parse(r->yajl, (const unsigned char *)p, n);
	if (st == yajl_status_ok) {
		r->offset += n;
		return true;
	}
	if (!r->failed) /* a syntax error, not one of our cancels */
		syntax_error(r, (const unsigned char *)p, n);
	return false;
}

/* yajl takes over where the fast path stands. */
static void hand_over(struct raw_reader *r)
{
	const char *primer = primers[r->fast];
	r->priming = true;
	yajl_parse(r->yajl, (const unsigned char *)primer, strlen(primer)); /* valid JSON */
	r->priming = false;
	r->depth = r->fast == FAST_START ? 0 : 1;
	r->fast = FAST_OFF;
}

enum scan_result { SCAN_MORE, SCAN_OTHER, SCAN_FAILED };

/* Plain rows from p on, with the whitespace and commas around them. *used:
 * the bytes taken (whole rows only). MORE: the bytes ran out; OTHER: yajl
 * must go on from *used; FAILED: a row was refused (reported). */
static enum scan_result scan_rows(struct raw_reader *r, const char *p, size_t n, size_t *used)
{
	const char *s = p, *end = p + n;
	enum scan_result res;
	for (;;) {
		while (s < end && fk_introw_space(*s))
			s++;
		if (s == end) {
			res = SCAN_MORE;
			break;
		}
		if (r->fast == FAST_START || r->fast == FAST_AFTER_ROW) {
			if (*s != (r->fast == FAST_START ? '[' : ',')) {
				res = SCAN_OTHER;
				break;
			}
			r->fast = r->fast == FAST_START ? FAST_FIRST : FAST_NEXT;
			s++;
			continue;
		}
		size_t len;
		enum fk_introw_result row = fk_introw_lex(s, end, r->v, ROW_VALUES, &len);
		if (row != FK_INTROW_OK) {
			res = row == FK_INTROW_MORE ? SCAN_MORE : SCAN_OTHER;
			break;
		}
		r->row++;
		r->nvalues = ROW_VALUES;
		if (!end_row(r)) {
			res = SCAN_FAILED;
			break;
		}
		r->fast = FAST_AFTER_ROW;
		s += len;
	}
	*used = (size_t)(s - p);
	r->offset += *used;
	return res;
}

/* The start of a chunk completes the row carried from the last one.
 * Returns the bytes of p taken; *done when nothing of p is left for the
 * fast path (carried again, given to yajl, or failed: *ok). */
static size_t join_carry(struct raw_reader *r, const char *p, size_t n, bool *done, bool *ok)
{
	char buf[2 * CARRY_MAX];
	size_t had = r->ncarry, take = n < CARRY_MAX ? n : CARRY_MAX, used;
	memcpy(buf, r->carry, had);
	memcpy(buf + had, p, take);
	enum scan_result res = scan_rows(r, buf, had + take, &used);
	*done = false;
	*ok = res != SCAN_FAILED;
	if (res == SCAN_FAILED) {
		*done = true;
		return n;
	}
	if (used >= had) { /* the carried row is done: the rest is read from p */
		r->ncarry = 0;
		return used - had;
	}
	*done = true;
	r->ncarry = had + take - used;
	if (res == SCAN_MORE && take == n && r->ncarry <= CARRY_MAX) {
		memmove(r->carry, buf + used, r->ncarry);
		return n;
	}
	/* Not the plain shape, or a row too long to carry: yajl reads on. */
	hand_over(r);
	*ok = yajl_feed(r, buf + used, had - used) && yajl_feed(r, p, n);
	r->ncarry = 0;
	return n;
}

/* The next piece of the input, through the fast path while it can. */
static bool feed(struct raw_reader *r, const char *p, size_t n)
{
	if (r->fast == FAST_OFF)
		return yajl_feed(r, p, n);
	if (r->ncarry) {
		bool done, ok;
		size_t taken = join_carry(r, p, n, &done, &ok);
		if (done)
			return ok;
		p += taken;
		n -= taken;
	}
	size_t used;
	enum scan_result res = scan_rows(r, p, n, &used);
	if (res == SCAN_FAILED)
		return false;
	if (res == SCAN_MORE && n - used <= CARRY_MAX) {
		memcpy(r->carry, p + used, n - used);
		r->ncarry = n - used;
		return true;
	}
	hand_over(r);
	return yajl_feed(r, p + used, n - used);
}

/* The end of the input: what is left goes to yajl, which says whether the
 * list was complete. */
static bool finish(struct raw_reader *r)
{
	if (r->fast != FAST_OFF) {
		hand_over(r);
		size_t left = r->ncarry;
		r->ncarry = 0;
		if (left && !yajl_feed(r, r->carry, left))
			return false;
	}
	return yajl_complete_parse(r->yajl) == yajl_status_ok;
}

static bool on_chunk(void *ctx, const char *p, size_t n)
{
	return feed(ctx, p, n);
}

static bool read_sequential(struct fk_input *in, const struct fk_torchmem_sink *sink, void *ctx,
			    struct fk_diag *d)
{
	const char *name = in->name;
	struct raw_reader r = { .name = name, .sink = sink, .ctx = ctx, .d = d };
	r.yajl = yajl_alloc(&raw_callbacks, NULL, &r);
	if (!r.yajl) {
		fk_diag_error(d, "%s: out of memory", name);
		return false;
	}
	enum fk_input_result res = fk_input_read_chunks(in, on_chunk, &r, d);
	bool ok = res == FK_INPUT_OK && !r.failed;
	if (ok && !finish(&r)) {
		if (!r.failed) {
			if (r.offset == 0)
				fk_diag_error(d, "%s: empty input (a raw timeline is a JSON "
					      "list, [] when empty)", name);
			else
				syntax_error(&r, NULL, 0);
		}
		ok = false;
	}
	yajl_free(r.yajl);
	return ok;
}

/* ---- large plain files: parts parsed in parallel ---- */

#define PARALLEL_MIN_BYTES ((size_t)16 << 20)

/* A part of the file made a JSON list of its own: "[" before and "]" after
 * where the part lacks them. */
struct part {
	const struct fk_input *in;
	size_t off, n;
	bool open, close;
	const struct fk_torchmem_sink *sink;
	void *ctx;                 /* the part's own events (sink->fork) */
	bool ok;
};

/* Small enough to stay in the cache while it is parsed. */
#define SLICE ((size_t)256 << 10)

/* The part's bytes, read a slice at a time into a buffer rather than
 * through the mapping (see fk_input_pread_lines). */
static bool parse_slices(struct raw_reader *r, const struct part *pt)
{
	char *buf = malloc(SLICE);
	bool ok = buf != NULL;
	for (size_t done = 0; ok && done < pt->n; done += SLICE) {
		size_t len = pt->n - done < SLICE ? pt->n - done : SLICE;
		/* Short: the file shrank; the part fails (read again in one piece). */
		ok = fk_input_pread(pt->in, buf, len, pt->off + done) == (ssize_t)len &&
		     feed(r, buf, len);
	}
	free(buf);
	return ok;
}

static void *parse_part(void *arg)
{
	struct part *pt = arg;
	struct raw_reader r = { .name = "", .sink = pt->sink, .ctx = pt->ctx, .silent = true };
	r.yajl = yajl_alloc(&raw_callbacks, NULL, &r);
	if (!r.yajl)
		return NULL;
	pt->ok = (!pt->open || feed(&r, "[", 1)) && parse_slices(&r, pt) &&
		 (!pt->close || feed(&r, "]", 1)) && finish(&r) && !r.failed;
	yajl_free(r.yajl);
	return NULL;
}

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

/* The first row start at or after from that follows "]," and whose action
 * is not INCREMENT_VERSION (so no pair is split); NULL when none. In a
 * valid raw file "]" then "," then "[" only happens between rows; a file
 * where that guess is wrong fails to parse and is read again in one piece. */
static const char *row_start_after(const char *from, const char *end)
{
	for (const char *p = from; (p = memchr(p, ']', (size_t)(end - p))) != NULL; p++) {
		const char *q = skip_space(p + 1, end);
		if (q >= end || *q != ',')
			continue;
		q = skip_space(q + 1, end);
		if (q >= end || *q != '[')
			continue;
		const char *v = skip_space(q + 1, end);
		while (v < end && (*v == '-' || (*v >= '0' && *v <= '9')))
			v++;
		v = skip_space(v, end);
		if (v < end && *v == ',') {
			v = skip_space(v + 1, end);
			if (v < end && *v == '3')
				continue;
		}
		return q;
	}
	return NULL;
}

/* -1: not split (too small, one thread, no place to split, no memory);
 * 0: parsed; 1: a part failed (the caller reads the file again to report
 * it). Every part fills a context of its own; they are joined in order, so
 * the caller's sees nothing of a failed read. */
static int read_parallel(const struct fk_input *m, const struct fk_torchmem_sink *sink, void *ctx)
{
	unsigned n = fk_input_threads(m->map_len, PARALLEL_MIN_BYTES, 8);
	if (n < 2 || !sink->fork)
		return -1;
	struct part parts[FK_INPUT_MAX_THREADS];
	pthread_t threads[FK_INPUT_MAX_THREADS];
	const char *end = m->map + m->map_len, *start = m->map;
	unsigned k = 0;
	for (unsigned i = 1; i < n; i++) {
		const char *row = row_start_after(m->map + m->map_len / n * i, end);
		if (!row || row <= start)
			continue;
		const char *close = row;
		while (*close != ']') /* back to the "]" that ends the part */
			close--;
		parts[k] = (struct part){ .in = m, .off = (size_t)(start - m->map),
					  .n = (size_t)(close + 1 - start), .open = k > 0,
					  .close = true };
		k++;
		start = row;
	}
	if (k == 0)
		return -1;
	parts[k++] = (struct part){ .in = m, .off = (size_t)(start - m->map),
				    .n = (size_t)(end - start), .open = true };
	bool ok = true;
	for (unsigned i = 0; i < k; i++) {
		parts[i].sink = sink;
		parts[i].ctx = ok ? sink->fork(ctx) : NULL;
		ok = ok && parts[i].ctx;
	}
	if (!ok) {
		for (unsigned i = 0; i < k && parts[i].ctx; i++)
			sink->discard(parts[i].ctx);
		return -1;
	}
	unsigned started = 0;
	for (; started < k; started++)
		if (pthread_create(&threads[started], NULL, parse_part, &parts[started]) != 0)
			break;
	for (unsigned i = started; i < k; i++)
		parse_part(&parts[i]);
	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (unsigned i = 0; i < k; i++)
		ok = ok && parts[i].ok;
	for (unsigned i = 0; i < k; i++) {
		if (ok)
			ok = sink->join(ctx, parts[i].ctx); /* frees the part */
		else
			sink->discard(parts[i].ctx);
	}
	return ok ? 0 : 1;
}

bool fk_torchmem_read_raw(struct fk_input *in, const struct fk_torchmem_sink *sink, void *ctx,
			  struct fk_diag *d)
{
	/* A mapped file is parsed in parts; when that fails it is read again
	 * from the start, in order, to report the first error where it is. */
	if (in->map && read_parallel(in, sink, ctx) == 0)
		return true;
	return read_sequential(in, sink, ctx, d);
}

/* ---- writers ---- */

void fk_torchmem_write_json(struct fk_sink *out, const struct fk_torchmem_rows *rows)
{
	int64_t t;
	const int64_t *sizes;
	/* Times first, then the rows: two passes, so no row is kept. */
	fk_sink_str(out, "[[");
	rows->start(rows->ctx);
	for (bool first = true; rows->next(rows->ctx, &t, &sizes); first = false) {
		if (!first)
			fk_sink_write(out, ", ", 2);
		fk_sink_i64(out, t);
	}
	fk_sink_str(out, "], [");
	/* A row changes a column or two: the text of the others is reused. */
	char text[FK_TORCHMEM_COLUMNS][FK_I64_TEXT_MAX];
	size_t len[FK_TORCHMEM_COLUMNS];
	int64_t shown[FK_TORCHMEM_COLUMNS];
	for (int c = 0; c < FK_TORCHMEM_COLUMNS; c++)
		shown[c] = 0, len[c] = fk_format_i64(text[c], 0);
	rows->start(rows->ctx);
	for (bool first = true; rows->next(rows->ctx, &t, &sizes); first = false) {
		fk_sink_str(out, first ? "[" : ", [");
		for (int c = 0; c < FK_TORCHMEM_COLUMNS; c++) {
			if (sizes[c] != shown[c]) {
				shown[c] = sizes[c];
				len[c] = fk_format_i64(text[c], shown[c]);
			}
			if (c)
				fk_sink_write(out, ", ", 2);
			fk_sink_write(out, text[c], len[c]);
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

void fk_torchmem_write_raw(struct fk_sink *out,
			   bool (*next)(void *ctx, struct fk_torchmem_event *ev), void *ctx)
{
	bool first = true;
	struct fk_torchmem_event ev;
	fk_sink_write(out, "[", 1);
	while (next(ctx, &ev)) {
		int64_t n = (int64_t)ev.bytes;
		switch (ev.action) {
		case FK_TORCHMEM_INCREMENT_VERSION:
			raw_row(out, &first, ev.t_ns, ev.action, -n, ev.category);
			raw_row(out, &first, ev.t_ns, ev.action, n, ev.category_to);
			break;
		case FK_TORCHMEM_DESTROY:
			raw_row(out, &first, ev.t_ns, ev.action, -n, ev.category);
			break;
		default:
			raw_row(out, &first, ev.t_ns, ev.action, n, ev.category);
		}
	}
	fk_sink_write(out, "]", 1);
}

const char *const fk_torchmem_action_names[5] = {
	"?", "PREEXISTING", "CREATE", "INCREMENT_VERSION", "DESTROY",
};
