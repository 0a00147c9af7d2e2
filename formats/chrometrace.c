/* chrometrace.c - torch Chrome / Kineto traces, streaming (see chrometrace.h). */
#include "formats/chrometrace.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <yajl/yajl_parse.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "formats/grow.h"

/* Keys that matter, at each level of the document. */
enum key {
	K_NONE = 0,
	/* top level */
	K_TRACE_EVENTS, K_BASE_TIME, K_DIST_INFO,
	/* distributedInfo */
	K_RANK,
	/* an event */
	K_PH, K_CAT, K_NAME, K_PID, K_TID, K_TS, K_DUR, K_ID, K_BP, K_ARGS,
	/* args (K_ARG + enum fk_trace_arg; K_NAME for metadata's "name") */
	K_ARG,
};

struct reader {
	const char *name;
	fk_trace_event_fn fn;
	void *ctx;
	struct fk_trace_info *info;
	struct fk_diag *d;
	yajl_handle yajl;
	uint64_t offset;         /* bytes parsed before the current chunk */
	bool failed;             /* reported (or fn stopped): the parse was cancelled */
	/* where the parser is */
	int depth;               /* containers open */
	bool top_object;
	int events_depth;        /* depth of the event array; 0 outside it */
	bool in_event, in_args, in_dist;
	enum key top_key, ev_key, dist_key;
	int arg_key;             /* K_ARG + index, K_NAME, or K_NONE */
	/* the event being read */
	struct fk_trace_event ev;
	bool has_cat;              /* the event has a "cat" */
	char *name_buf, *meta_buf;
	size_t name_cap, meta_cap;
	bool bad_time;           /* a ts or dur that is not a number */
	/* raw control characters in strings: the lexer state across chunks */
	bool in_string, escaped;
	char *fixed;             /* a chunk with them made spaces */
	size_t fixed_cap;
};

static inline bool key_is(const unsigned char *k, size_t n, const char *s)
{
	return strlen(s) == n && memcmp(k, s, n) == 0; /* strlen of a literal: folded */
}

#define ARG(i, text) [i] = { text, sizeof text - 1 }
static const struct { const char *s; size_t len; } arg_keys[FK_TARG_COUNT] = {
	ARG(FK_TARG_CORRELATION, "correlation"),
	ARG(FK_TARG_EXTERNAL_ID, "External id"),
	ARG(FK_TARG_PYTHON_ID, "Python id"),
	ARG(FK_TARG_PYTHON_PARENT, "Python parent id"),
	ARG(FK_TARG_DEVICE, "device"),
	ARG(FK_TARG_STREAM, "stream"),
	ARG(FK_TARG_ADDR, "Addr"),
	ARG(FK_TARG_BYTES, "Bytes"),
	ARG(FK_TARG_TOTAL_ALLOCATED, "Total Allocated"),
	ARG(FK_TARG_TOTAL_RESERVED, "Total Reserved"),
	ARG(FK_TARG_DEVICE_TYPE, "Device Type"),
	ARG(FK_TARG_DEVICE_ID, "Device Id"),
};
#undef ARG

/* Every event has these keys: matched by length first, the hot path. */
static enum key event_key(const unsigned char *k, size_t n)
{
	switch (n) {
	case 2:
		return k[0] == 'p' && k[1] == 'h' ? K_PH : k[0] == 't' && k[1] == 's' ? K_TS
		       : k[0] == 'i' && k[1] == 'd' ? K_ID : k[0] == 'b' && k[1] == 'p' ? K_BP : K_NONE;
	case 3:
		return !memcmp(k, "cat", 3) ? K_CAT : !memcmp(k, "pid", 3) ? K_PID
		       : !memcmp(k, "tid", 3) ? K_TID : !memcmp(k, "dur", 3) ? K_DUR : K_NONE;
	case 4:
		return !memcmp(k, "name", 4) ? K_NAME : !memcmp(k, "args", 4) ? K_ARGS : K_NONE;
	}
	return K_NONE;
}

static enum fk_trace_cat category(const unsigned char *s, size_t n)
{
	static const struct { const char *s; enum fk_trace_cat c; } cats[] = {
		{ "cpu_op", FK_TCAT_CPU_OP }, { "Operator", FK_TCAT_CPU_OP },
		{ "user_annotation", FK_TCAT_USER_ANNOTATION },
		{ "python_function", FK_TCAT_PYTHON },
		{ "cuda_runtime", FK_TCAT_RUNTIME }, { "Runtime", FK_TCAT_RUNTIME },
		{ "cuda_driver", FK_TCAT_DRIVER }, { "cuda_sync", FK_TCAT_SYNC },
		{ "kernel", FK_TCAT_KERNEL }, { "Kernel", FK_TCAT_KERNEL },
		{ "gpu_memcpy", FK_TCAT_MEMCPY }, { "Memcpy", FK_TCAT_MEMCPY },
		{ "gpu_memset", FK_TCAT_MEMSET }, { "Memset", FK_TCAT_MEMSET },
		{ "gpu_user_annotation", FK_TCAT_GPU_ANNOTATION },
		{ "Trace", FK_TCAT_TRACE_SPAN }, { "cpu_instant_event", FK_TCAT_INSTANT },
		{ "ac2g", FK_TCAT_AC2G }, { "async", FK_TCAT_AC2G }, { "fwdbwd", FK_TCAT_FWDBWD },
	};
	for (size_t i = 0; i < sizeof cats / sizeof *cats; i++)
		if (key_is(s, n, cats[i].s))
			return cats[i].c;
	return FK_TCAT_OTHER;
}

/* ---- numbers, from their text ---- */

bool fk_trace_us_to_ns(const char *s, size_t len, int64_t *ns)
{
	const unsigned __int128 keep = (unsigned __int128)1 << 120; /* digits past this only round */
	size_t i = 0;
	bool neg = false, any = false;
	if (i < len && (s[i] == '-' || s[i] == '+'))
		neg = s[i++] == '-';
	unsigned __int128 mant = 0;
	int exp10 = 3; /* mant * 10^exp10 ns */
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, any = true) {
		if (mant < keep / 10)
			mant = mant * 10 + (unsigned)(s[i] - '0');
		else
			exp10++;
	}
	if (i < len && s[i] == '.')
		for (i++; i < len && s[i] >= '0' && s[i] <= '9'; i++, any = true)
			if (mant < keep / 10) {
				mant = mant * 10 + (unsigned)(s[i] - '0');
				exp10--;
			}
	if (!any)
		return false;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		bool eneg = false;
		long e = 0;
		if (++i < len && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		if (i == len)
			return false;
		for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
			if (e < 10000)
				e = e * 10 + (s[i] - '0');
		exp10 += (int)(eneg ? -e : e);
	}
	if (i != len)
		return false;
	const unsigned __int128 limit = (unsigned __int128)INT64_MAX + (neg ? 1 : 0);
	if (mant == 0) {
		*ns = 0;
		return true;
	}
	for (; exp10 > 0; exp10--) {
		if (mant > limit / 10)
			return false;
		mant *= 10;
	}
	if (exp10 < 0) {
		if (exp10 < -38) {
			mant = 0;
		} else {
			unsigned __int128 p = 1;
			for (int k = 0; k < -exp10; k++)
				p *= 10;
			unsigned __int128 q = mant / p, r = mant % p;
			mant = q + (r >= p - r); /* half away from zero */
		}
	}
	if (mant > limit)
		return false;
	*ns = neg ? (int64_t)(0 - (uint64_t)mant) : (int64_t)mant;
	return true;
}

/* A JSON integer as int64 (or a uint64 bit pattern when is_unsigned):
 * false for fractions, exponents and what passes 64 bits. */
static bool parse_int(const char *s, size_t len, bool is_unsigned, int64_t *out)
{
	size_t i = 0;
	bool neg = len > 0 && s[0] == '-';
	if (neg)
		i++;
	if (i == len)
		return false;
	uint64_t v = 0;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		unsigned dgt = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - dgt) / 10)
			return false;
		v = v * 10 + dgt;
	}
	if (neg ? v > (uint64_t)INT64_MAX + 1 : !is_unsigned && v > (uint64_t)INT64_MAX)
		return false;
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	return true;
}

/* A number that has no digits past 64 bits counts as huge only when it
 * looks like an integer. */
static void note_unusable(struct reader *r, const char *s, size_t len)
{
	if (!memchr(s, '.', len) && !memchr(s, 'e', len) && !memchr(s, 'E', len))
		r->info->huge_numbers++;
}

/* A string id ("Spans", "PyTorch Profiler"): a stable number for it. */
static int64_t text_id(const unsigned char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return (int64_t)(h >> 1);
}

/* ---- the event ---- */

static void begin_event(struct reader *r)
{
	r->in_event = true;
	r->bad_time = false;
	r->ev = (struct fk_trace_event){ .name = "", .meta_name = "" };
	r->ev_key = K_NONE;
	r->has_cat = false;
}

static bool copy_text(char **buf, size_t *cap, const unsigned char *s, size_t n)
{
	if (!FK_GROW(*buf, *cap, n + 1, 256))
		return false;
	memcpy(*buf, s, n);
	(*buf)[n] = 0;
	return true;
}

static uint64_t here(const struct reader *r)
{
	return r->offset + yajl_get_bytes_consumed(r->yajl);
}

static int end_event(struct reader *r)
{
	r->in_event = r->in_args = false;
	struct fk_trace_event *e = &r->ev;
	r->info->events++;
	e->byte = here(r);
	bool needs_times = e->ph == 'X';
	if (r->bad_time || (needs_times && !(e->has_ts && e->has_dur)) ||
	    (e->ph && e->ph != 'M' && !e->has_ts)) {
		r->info->skipped++;
		return 1;
	}
	if (e->dur_ns < 0)
		e->dur_ns = 0;
	/* torch built without Kineto (the legacy autograd profiler, Debian's
	 * 1.13) writes its ops as complete events with no category at all. */
	if (e->ph == 'X' && !r->has_cat)
		e->cat = FK_TCAT_CPU_OP;
	if (!r->fn(r->ctx, e)) {
		r->failed = true;
		return 0;
	}
	return 1;
}

static int fail(struct reader *r, const char *why)
{
	fk_diag_error_at(r->d, "%s: byte %" PRIu64 ": %s", r->name, here(r), why);
	r->failed = true;
	return 0;
}

/* ---- yajl callbacks ---- */

static int on_number(void *ctx, const char *s, size_t len)
{
	struct reader *r = ctx;
	if (r->depth == 1 && r->top_object && r->top_key == K_BASE_TIME) {
		if (!parse_int(s, len, false, &r->info->base_ns))
			return fail(r, "baseTimeNanoseconds is not an integer of 64 bits");
		r->info->has_base = true;
	} else if (r->in_dist && r->depth == 2 && r->dist_key == K_RANK) {
		r->info->has_rank = parse_int(s, len, false, &r->info->rank);
	} else if (r->in_event && r->depth == r->events_depth + 1) {
		struct fk_trace_event *e = &r->ev;
		switch (r->ev_key) {
		case K_TS:
			e->has_ts = fk_trace_us_to_ns(s, len, &e->ts_ns);
			r->bad_time |= !e->has_ts;
			break;
		case K_DUR:
			e->has_dur = fk_trace_us_to_ns(s, len, &e->dur_ns);
			r->bad_time |= !e->has_dur;
			break;
		case K_PID:
		case K_TID: {
			int64_t v;
			if (!parse_int(s, len, false, &v)) {
				note_unusable(r, s, len);
				v = text_id((const unsigned char *)s, len);
			}
			*(r->ev_key == K_PID ? &e->pid : &e->tid) = v;
			break;
		}
		case K_ID: {
			int64_t v;
			e->has_id = parse_int(s, len, true, &v);
			e->id = (uint64_t)v;
			if (!e->has_id)
				note_unusable(r, s, len);
			break;
		}
		default:
			break;
		}
	} else if (r->in_args && r->depth == r->events_depth + 2 && r->arg_key >= K_ARG) {
		int a = r->arg_key - K_ARG;
		if (parse_int(s, len, a == FK_TARG_ADDR, &r->ev.args[a]))
			r->ev.has_arg |= 1u << a;
		else
			note_unusable(r, s, len);
	}
	return 1;
}

static int on_string(void *ctx, const unsigned char *s, size_t n)
{
	struct reader *r = ctx;
	if (r->in_event && r->depth == r->events_depth + 1) {
		struct fk_trace_event *e = &r->ev;
		switch (r->ev_key) {
		case K_PH: e->ph = n ? (char)s[0] : 0; break;
		case K_CAT: e->cat = category(s, n), r->has_cat = true; break;
		case K_NAME:
			if (!copy_text(&r->name_buf, &r->name_cap, s, n))
				return fail(r, "out of memory");
			e->name = r->name_buf;
			e->name_len = n;
			break;
		case K_PID: e->pid = text_id(s, n); e->pid_text = true; break;
		case K_TID: e->tid = text_id(s, n); e->tid_text = true; break;
		case K_BP: e->bp_enclosing = n == 1 && s[0] == 'e'; break;
		case K_TS:
		case K_DUR: /* a time as a string: tolerated when it is a number */
			if (!fk_trace_us_to_ns((const char *)s, n, r->ev_key == K_TS ? &e->ts_ns : &e->dur_ns))
				r->bad_time = true;
			else
				*(r->ev_key == K_TS ? &e->has_ts : &e->has_dur) = true;
			break;
		default: break;
		}
	} else if (r->in_args && r->depth == r->events_depth + 2 && r->arg_key == K_NAME) {
		if (!copy_text(&r->meta_buf, &r->meta_cap, s, n))
			return fail(r, "out of memory");
		r->ev.meta_name = r->meta_buf;
	}
	return 1;
}

static int on_scalar(void *ctx)
{
	(void)ctx;
	return 1;
}
static int on_bool(void *ctx, int b)
{
	(void)b;
	return on_scalar(ctx);
}

static int on_start_map(void *ctx)
{
	struct reader *r = ctx;
	int d = ++r->depth;
	if (d == 1)
		r->top_object = true;
	else if (d == 2 && r->top_object && r->top_key == K_DIST_INFO && !r->events_depth)
		r->in_dist = true, r->dist_key = K_NONE;
	else if (r->events_depth && d == r->events_depth + 1)
		begin_event(r);
	else if (r->in_event && d == r->events_depth + 2 && r->ev_key == K_ARGS)
		r->in_args = true, r->arg_key = K_NONE;
	return 1;
}

static int on_map_key(void *ctx, const unsigned char *k, size_t n)
{
	struct reader *r = ctx;
	int d = r->depth;
	if (d == 1) {
		r->top_key = key_is(k, n, "traceEvents") ? K_TRACE_EVENTS
			     : key_is(k, n, "baseTimeNanoseconds") ? K_BASE_TIME
			     : key_is(k, n, "distributedInfo") ? K_DIST_INFO : K_NONE;
	} else if (r->in_dist && d == 2) {
		r->dist_key = key_is(k, n, "rank") ? K_RANK : K_NONE;
	} else if (r->in_event && d == r->events_depth + 1) {
		r->ev_key = event_key(k, n);
	} else if (r->in_args && d == r->events_depth + 2) {
		r->arg_key = K_NONE;
		if (key_is(k, n, "name")) {
			r->arg_key = K_NAME;
		} else {
			for (int a = 0; a < FK_TARG_COUNT; a++)
				if (n == arg_keys[a].len && !memcmp(k, arg_keys[a].s, n)) {
					r->arg_key = K_ARG + a;
					break;
				}
		}
	}
	return 1;
}

static int on_end_map(void *ctx)
{
	struct reader *r = ctx;
	int d = r->depth--;
	if (r->in_args && d == r->events_depth + 2)
		r->in_args = false;
	else if (r->in_event && d == r->events_depth + 1)
		return end_event(r);
	else if (r->in_dist && d == 2)
		r->in_dist = false;
	return 1;
}

static int on_start_array(void *ctx)
{
	struct reader *r = ctx;
	int d = ++r->depth;
	if (d == 1) {
		r->info->bare_array = true;
		r->events_depth = 1;
	} else if (d == 2 && r->top_object && r->top_key == K_TRACE_EVENTS) {
		r->events_depth = 2;
	}
	return 1;
}

static int on_end_array(void *ctx)
{
	struct reader *r = ctx;
	if (r->depth-- == r->events_depth)
		r->events_depth = 0;
	return 1;
}

static int on_null(void *ctx)
{
	return on_scalar(ctx);
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_bool,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_map_key,
	.yajl_end_map = on_end_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

/* ---- raw control characters ---- */

/* Bit i set when p[i] is '"', '\\' or below 0x20: the bytes that change the
 * string state or need mending (16 at a time with SSE2, x86-64's baseline). */
static unsigned special_bits(const unsigned char *p, size_t n)
{
#if defined(__SSE2__)
	if (n == 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i low = _mm_set1_epi8(0x1f);
		__m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
						      _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))),
					 _mm_cmpeq_epi8(_mm_max_epu8(v, low), low));
		return (unsigned)_mm_movemask_epi8(m);
	}
#endif
	unsigned bits = 0;
	for (size_t i = 0; i < n; i++)
		if (p[i] == '"' || p[i] == '\\' || p[i] < 0x20)
			bits |= 1u << i;
	return bits;
}

/* Strict JSON forbids bytes below 0x20 inside strings and yajl refuses
 * them, but torch writes names as they are. They become spaces (one byte
 * for one, so byte offsets hold); returns the chunk to parse (p, or a
 * mended copy), NULL when out of memory. */
static const char *mend_controls(struct reader *r, const char *p, size_t n)
{
	const unsigned char *u = (const unsigned char *)p;
	bool in = r->in_string;
	size_t free_from = r->escaped ? 1 : 0; /* a byte before this is escaped */
	char *out = NULL;
	for (size_t base = 0; base < n; base += 16) {
		size_t len = n - base < 16 ? n - base : 16;
		for (unsigned bits = special_bits(u + base, len); bits; bits &= bits - 1) {
			size_t i = base + (size_t)__builtin_ctz(bits);
			if (i < free_from)
				continue;
			if (u[i] == '\\') {
				if (in)
					free_from = i + 2;
			} else if (u[i] == '"') {
				in = !in;
			} else if (in) {
				if (!out) {
					if (!FK_GROW(r->fixed, r->fixed_cap, n, 1 << 16))
						return NULL;
					memcpy(r->fixed, p, n);
					out = r->fixed;
				}
				out[i] = ' ';
				r->info->control_chars++;
			}
		}
	}
	r->in_string = in;
	r->escaped = free_from > n;
	return out ? out : p;
}

/* ---- reading ---- */

static void syntax_error(struct reader *r, const unsigned char *p, size_t n)
{
	unsigned char *msg = yajl_get_error(r->yajl, 0, p, n);
	char *text = (char *)msg;
	size_t len = strlen(text);
	while (len && (text[len - 1] == '\n' || text[len - 1] == ' ' || text[len - 1] == '.'))
		text[--len] = 0;
	uint64_t at = r->offset + (p ? yajl_get_bytes_consumed(r->yajl) : 0);
	fk_diag_error_at(r->d, "%s: byte %" PRIu64 ": malformed JSON (%s)", r->name, at, text);
	yajl_free_error(r->yajl, msg);
	r->failed = true;
}

static bool on_chunk(void *ctx, const char *p, size_t n)
{
	struct reader *r = ctx;
	const char *text = mend_controls(r, p, n);
	if (!text) {
		fk_diag_error(r->d, "%s: out of memory", r->name);
		r->failed = true;
		return false;
	}
	yajl_status st = yajl_parse(r->yajl, (const unsigned char *)text, n);
	if (st == yajl_status_ok) {
		r->offset += n;
		return true;
	}
	if (!r->failed) /* a syntax error, not one of our cancels */
		syntax_error(r, (const unsigned char *)text, n);
	return false;
}

bool fk_chrometrace_read(struct fk_input *in, fk_trace_event_fn fn, void *ctx,
			 struct fk_trace_info *info, struct fk_diag *d)
{
	*info = (struct fk_trace_info){ 0 };
	struct reader r = { .name = in->name, .fn = fn, .ctx = ctx, .info = info, .d = d };
	r.yajl = yajl_alloc(&callbacks, NULL, &r);
	if (!r.yajl) {
		fk_diag_error(d, "%s: out of memory", in->name);
		return false;
	}
	/* Names are bytes as torch wrote them: no UTF-8 check (the writers
	 * of text and SVG make them safe). */
	yajl_config(r.yajl, yajl_dont_validate_strings, 1);
	enum fk_input_result res = fk_input_read_chunks(in, on_chunk, &r, d);
	bool ok = res == FK_INPUT_OK && !r.failed;
	if (ok && yajl_complete_parse(r.yajl) != yajl_status_ok) {
		if (r.offset == 0)
			fk_diag_error_at(d, "%s: byte 0: empty input, not a trace", in->name);
		else
			syntax_error(&r, NULL, 0);
		ok = false;
	}
	if (ok && !info->bare_array && !r.top_object) {
		fk_diag_error_at(d, "%s: byte 0: a trace is a JSON object or array", in->name);
		ok = false;
	}
	yajl_free(r.yajl);
	free(r.name_buf);
	free(r.meta_buf);
	free(r.fixed);
	return ok;
}
