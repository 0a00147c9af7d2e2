/* perfscript.c - perf script text, folded as stackcollapse-perf.pl folds it
 * (see perfscript.h). The script's three line patterns are its own regular
 * expressions, compiled with PCRE2 (Perl's semantics, JIT-compiled), so
 * odd lines split exactly where Perl splits them; the rest is written out.
 * The patterns are compiled once per process and shared by every reader.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "formats/perfscript.h"

#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

/* The script's patterns, as it writes them. */
#define HEADER "^(\\S.+?)\\s+(\\d+)\\/*(\\d+)*\\s+"
#define EVENT ":\\s*(\\d+)*\\s+(\\S+):\\s*$"
#define FRAME "^\\s*(\\w+)\\s*(.+) \\((.*)\\)"

enum { PAT_HEADER, PAT_EVENT, PAT_FRAME, PAT_COUNT };

/* One pattern as a reader uses it: the shared code, its own match data. */
struct pattern {
	const pcre2_code *code;
	pcre2_match_data *md;
};

struct perf {
	const struct fk_perf_opts *o;
	const struct fk_perf_emit *e;
	struct fk_diag *d;
	const char *name;
	struct pattern header, event, frame;
	const char *filter; /* the event kept; NULL until the first one */
	char *filter_own;
	bool defaulted, warned;
	struct fk_perf_part *part; /* a part of a file (fk_perf_read_part), or NULL */
	bool in_sample;       /* $pname is defined */
	/* A frame line's names, held while --srcline reads their source lines;
	 * rows are added as lines need them (most lines hold one name). */
	char (*names)[4096];
	size_t names_cap, nlen[64], nnames, src_next, src_wanted;
	char pname[512];
	uint64_t period;
	/* frames, leaf first as perf prints them, in one buffer */
	char *frames;
	size_t len, cap;
	size_t *ends;         /* end of each frame in frames */
	size_t nframes, frames_cap;
	char *key;            /* the stack being built */
	size_t key_cap;
	bool failed;
};

/* Compiled once per process and never freed: compiling, and JIT-compiling
 * above all (it maps pages of machine code), costs more than reading a
 * small file. Compiled code is read-only, so readers in any thread share
 * it, each with match data of its own. NULL when out of memory. */
static pcre2_code *compiled[PAT_COUNT];
static pthread_once_t compiled_once = PTHREAD_ONCE_INIT;

static void compile_all(void)
{
	static const char *const re[PAT_COUNT] = { HEADER, EVENT, FRAME };
	for (int i = 0; i < PAT_COUNT; i++) {
		int err;
		PCRE2_SIZE at;
		compiled[i] = pcre2_compile((PCRE2_SPTR)re[i], PCRE2_ZERO_TERMINATED, 0, &err, &at,
					    NULL);
		if (compiled[i]) /* interpreted when JIT is unavailable */
			pcre2_jit_compile(compiled[i], PCRE2_JIT_COMPLETE);
	}
}

static bool compile(struct pattern *p, int which)
{
	pthread_once(&compiled_once, compile_all);
	p->code = compiled[which];
	p->md = p->code ? pcre2_match_data_create_from_pattern(p->code, NULL) : NULL;
	return p->md != NULL;
}

static void release(struct pattern *p)
{
	pcre2_match_data_free(p->md);
}

/* Group g of the last match: its text, or NULL when it did not take part. */
static const char *group(const struct pattern *p, const char *line, int g, size_t *len)
{
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
	if (ov[2 * g] == PCRE2_UNSET) {
		*len = 0;
		return NULL;
	}
	*len = ov[2 * g + 1] - ov[2 * g];
	return line + ov[2 * g];
}

static bool match(struct pattern *p, const char *line, size_t len)
{
	return pcre2_match(p->code, (PCRE2_SPTR)line, len, 0, 0, p->md, NULL) >= 0;
}

/* ---- the stack being built ---- */

static void push_frame(struct perf *s, const char *p, size_t n)
{
	if (!FK_GROW(s->frames, s->cap, s->len + n, 256) ||
	    !FK_GROW(s->ends, s->frames_cap, s->nframes + 1, 256)) {
		s->failed = true;
		return;
	}
	if (n) /* a name tidied to nothing: frames may still be NULL */
		memcpy(s->frames + s->len, p, n);
	s->len += n;
	s->ends[s->nframes++] = s->len;
}

/* A blank line ends the sample: "pname;root;...;leaf" += period. */
static void end_sample(struct perf *s)
{
	size_t need = strlen(s->pname) + s->len + s->nframes + 2;
	if (!FK_GROW(s->key, s->key_cap, need, 256)) {
		s->failed = true;
		return;
	}
	size_t k = strlen(s->pname);
	memcpy(s->key, s->pname, k);
	for (size_t i = s->nframes; i-- > 0;) { /* perf lists the leaf first */
		size_t start = i ? s->ends[i - 1] : 0;
		s->key[k++] = ';';
		if (s->ends[i] > start)
			memcpy(s->key + k, s->frames + start, s->ends[i] - start);
		k += s->ends[i] - start;
	}
	if (!s->e->sample(s->e->ctx, s->key, k, s->period))
		s->failed = true;
	s->nframes = s->len = 0;
	s->in_sample = false;
}

/* ---- one frame's names, tidied as the script tidies them ---- */

/* The first "ab" in p[0..n), or NULL: memmem, without its set-up cost on
 * names of a few bytes (once or more per frame line). */
static const char *find_pair(const char *p, size_t n, char a, char b)
{
	for (const char *end = p + n; n >= 2 && (p = memchr(p, a, (size_t)(end - p) - 1)) != NULL;
	     p++)
		if (p[1] == b)
			return p;
	return NULL;
}

/* $func !~ m/\.\(.*\)\./ (Java lambdas keep their parentheses) */
static bool has_dotted_parens(const char *f, size_t n)
{
	const char *open = find_pair(f, n, '.', '(');
	return open && find_pair(open + 2, n - (size_t)(open + 2 - f), ')', '.');
}

#define FUNC_MAX 4096

/* One name of a frame line, tidied and annotated into buf; its length. */
static size_t tidy_func(const struct perf *s, const char *f, size_t n, const char *mod,
			size_t modlen, const char *pc, size_t pclen, bool inlined_before,
			char buf[FUNC_MAX])
{
	size_t k = 0;
	if (n == 9 && memcmp(f, "[unknown]", 9) == 0) {
		/* the module's basename when perf knows it */
		const char *base = "unknown";
		size_t bl = 7;
		if (!(modlen == 9 && memcmp(mod, "[unknown]", 9) == 0)) {
			const char *slash = memrchr(mod, '/', modlen);
			base = slash ? slash + 1 : mod;
			bl = modlen - (size_t)(base - mod);
		}
		k = (size_t)(s->o->addrs ? snprintf(buf, FUNC_MAX, "[%.*s <%.*s>]", (int)bl, base,
						       (int)pclen, pc)
					 : snprintf(buf, FUNC_MAX, "[%.*s]", (int)bl, base));
		if (k >= FUNC_MAX)
			k = FUNC_MAX - 1;
	} else {
		k = n < FUNC_MAX - 8 ? n : FUNC_MAX - 8;
		memcpy(buf, f, k);
	}
	/* tidy_generic: ';' -> ':', argument lists dropped, quotes removed */
	for (size_t i = 0; i < k; i++)
		if (buf[i] == ';')
			buf[i] = ':';
	if (!has_dotted_parens(buf, k)) {
		for (size_t i = 0; i < k; i++)
			if (buf[i] == '(' && !(k - i - 1 >= 19 &&
					       memcmp(buf + i + 1, "anonymous namespace)", 20) == 0)) {
				k = i;
				break;
			}
	}
	size_t w = 0;
	for (size_t i = 0; i < k; i++)
		if (buf[i] != '"' && buf[i] != '\'')
			buf[w++] = buf[i];
	k = w;
	/* tidy_java: Java class names lose their leading L */
	if (strncmp(s->pname, "java", 4) == 0 && k > 0 && buf[0] == 'L' && memchr(buf, '/', k))
		memmove(buf, buf + 1, --k);
	const char *mark = NULL;
	if (inlined_before) {
		if (!memmem(buf, k, "_[i]", 4))
			mark = "_[i]";
	} else if (s->o->kernel && modlen > 0 &&
		   (mod[0] == '[' || (modlen >= 7 && memcmp(mod + modlen - 7, "vmlinux", 7) == 0)) &&
		   !memmem(mod, modlen, "unknown", 7)) {
		mark = "_[k]";
	} else if (s->o->jit && !memmem(buf, k, "_[j]", 4)) {
		/* m:/tmp/perf-\d+\.map: */
		const char *m = memmem(mod, modlen, "/tmp/perf-", 10);
		if (m) {
			const char *p = m + 10, *end = mod + modlen;
			const char *digits = p;
			while (p < end && *p >= '0' && *p <= '9')
				p++;
			if (p > digits && end - p >= 4 && memcmp(p, ".map", 4) == 0)
				mark = "_[j]";
		}
	}
	if (mark && k + 4 < FUNC_MAX) {
		memcpy(buf + k, mark, 4);
		k += 4;
	}
	return k;
}

/* unshift @stack, @inline: the line's names keep their order ahead of the
 * frames read before; stored leaf first, so pushed in reverse. */
static void push_names(struct perf *s)
{
	for (size_t i = s->nnames; i-- > 0;)
		push_frame(s, s->names[i], s->nlen[i]);
	s->nnames = 0;
}

/* The frame pattern's groups for the usual line, "  1a2b func+0x10 (mod)",
 * found without the regex engine: \w+ and \s* as far as they go, then the
 * last " (" that a later ")" closes, as greedy (.+) and (.*) settle. false
 * when the line needs the engine's backtracking to decide. */
static bool frame_fast(const char *line, size_t len, const char **pc, size_t *pclen,
		       const char **f, size_t *fl, const char **mod, size_t *ml)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (i < len && (line[i] == '\r' || line[i] == '\f' || line[i] == '\v'))
		return false;
	size_t p0 = i;
	while (i < len && ((line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'z') ||
			   (line[i] >= 'A' && line[i] <= 'Z') || line[i] == '_'))
		i++;
	if (i == p0)
		return false;
	size_t p1 = i;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	/* Other whitespace Perl's \s takes (\r \f \v): leave it to the engine. */
	if (i < len && (line[i] == '\r' || line[i] == '\f' || line[i] == '\v'))
		return false;
	const char *close = memrchr(line + i, ')', len - i);
	if (!close)
		return false;
	size_t r = (size_t)(close - line);
	for (size_t q = r; q-- > i + 1;) { /* (.+) takes at least one byte */
		if (line[q] == ' ' && line[q + 1] == '(' && q + 1 < r) {
			*pc = line + p0, *pclen = p1 - p0;
			*f = line + i, *fl = q - i;
			*mod = line + q + 2, *ml = r - (q + 2);
			return true;
		}
	}
	return false;
}

static void frame(struct perf *s, const char *pc, size_t pclen, const char *f, size_t fl,
		  const char *mod, size_t ml)
{
	if (s->e->inline_frames) { /* addr2line's chain replaces the line, untidied */
		const char *chain = s->e->inline_frames(s->e->ctx, pc, pclen, f, fl, mod, ml,
							&s->failed);
		if (chain) {
			push_frame(s, chain, strlen(chain));
			return;
		}
	}
	/* s/\+0x[\da-f]+$// */
	const char *e = f + fl;
	while (e > f && ((e[-1] >= '0' && e[-1] <= '9') || (e[-1] >= 'a' && e[-1] <= 'f')))
		e--;
	if (e < f + fl && e - f >= 3 && e[-1] == 'x' && e[-2] == '0' && e[-3] == '+')
		fl = (size_t)(e - 3 - f);
	if (fl > 0 && f[0] == '(')
		return; /* a process name, not a frame */
	/* split /\->/: "a->b" is a frame and the one inlined into it; Perl's
	 * split drops trailing empty fields (and gives none for ""). */
	const char *parts[64];
	size_t lens[64], nparts = 0;
	for (const char *p = f, *end = f + fl; nparts < 64;) {
		const char *arrow = find_pair(p, (size_t)(end - p), '-', '>');
		const char *stop = arrow ? arrow : end;
		parts[nparts] = p, lens[nparts++] = (size_t)(stop - p);
		if (!arrow)
			break;
		p = arrow + 2;
	}
	while (nparts > 0 && lens[nparts - 1] == 0)
		nparts--;
	/* --srcline: a source line follows for each name, up to the first
	 * name perf knew nothing of ($is_unknown stays set). */
	size_t wanted = 0;
	bool unknown = false;
	if (!FK_GROW(s->names, s->names_cap, nparts, 1)) {
		s->failed = true;
		return;
	}
	for (size_t i = 0; i < nparts; i++) {
		s->nlen[i] = tidy_func(s, parts[i], lens[i], mod, ml, pc, pclen, i > 0, s->names[i]);
		unknown |= lens[i] == 9 && memcmp(parts[i], "[unknown]", 9) == 0 && ml == 9 &&
			   memcmp(mod, "[unknown]", 9) == 0;
		wanted += !unknown;
	}
	s->nnames = nparts;
	s->src_next = 0;
	s->src_wanted = s->o->srcline ? wanted : 0;
	if (!s->src_wanted)
		push_names(s);
}

/* ---- lines ---- */

/* "Filtering for events of type" once, at the first sample of another
 * event: a part's reader holds it (its line, the event) for the caller to
 * print in order. */
static void note_filter(struct perf *s, const char *event, size_t el, uint64_t lineno)
{
	if (!s->part) {
		fk_diag_note_as_is(s->d, "Filtering for events of type: %.*s", (int)el, event);
		return;
	}
	s->part->note_line = lineno;
	s->part->note_event = strndup(event, el);
	s->failed |= s->part->note_event == NULL;
}

static void header(struct perf *s, const char *line, size_t len, uint64_t lineno)
{
	size_t cl, pl, tl;
	const char *comm = group(&s->header, line, 1, &cl);
	const char *pid = group(&s->header, line, 2, &pl);
	const char *tid = group(&s->header, line, 3, &tl);
	uint64_t period = 0;
	if (match(&s->event, line, len)) {
		size_t dl, el;
		const char *digits = group(&s->event, line, 1, &dl);
		const char *event = group(&s->event, line, 2, &el);
		for (size_t i = 0; digits && i < dl && period < UINT64_MAX / 10; i++)
			period = period * 10 + (uint64_t)(digits[i] - '0');
		if (!s->filter) {
			s->filter_own = strndup(event, el);
			s->filter = s->filter_own ? s->filter_own : "";
			s->defaulted = true;
		} else if (strlen(s->filter) != el || memcmp(s->filter, event, el) != 0) {
			if (s->defaulted && !s->warned) {
				note_filter(s, event, el, lineno);
				s->warned = true;
			}
			return; /* a sample of another event: its lines are skipped */
		}
	}
	s->period = period ? period : 1; /* "0" is false in Perl, too */
	int n;
	/* No tid: perf printed one number, which is the tid; the pid is "?". */
	const char *shown_pid = tid ? pid : "?";
	size_t spl = tid ? pl : 1;
	const char *shown_tid = tid ? tid : pid;
	size_t stl = tid ? tl : pl;
	if (s->o->tid)
		n = snprintf(s->pname, sizeof s->pname, "%.*s-%.*s/%.*s", (int)cl, comm, (int)spl,
			     shown_pid, (int)stl, shown_tid);
	else if (s->o->pid)
		n = snprintf(s->pname, sizeof s->pname, "%.*s-%.*s", (int)cl, comm, (int)spl, shown_pid);
	else { /* the usual case, once per sample: no printf */
		n = (int)(cl < sizeof s->pname - 1 ? cl : sizeof s->pname - 1);
		memcpy(s->pname, comm, (size_t)n);
		s->pname[n] = '\0';
	}
	for (int i = 0; i < n && (size_t)i < sizeof s->pname; i++)
		if (s->pname[i] == ' ')
			s->pname[i] = '_';
	/* Frames are kept: without a blank line between them, the script
	 * runs two samples together, and so does this. */
	s->in_sample = true;
}

static bool on_line(void *ctx, const char *line, size_t len, uint64_t lineno)
{
	struct perf *s = ctx;
	if (s->src_wanted) { /* perf script -F+srcline: "  file.c:12" */
		char src[1024];
		size_t k = 0;
		for (const char *p = line, *end = line + len; p < end && k < sizeof src - 1; p++) {
			const char *close = *p == '[' ? memchr(p, ']', (size_t)(end - p)) : NULL;
			if (close) { /* s/\[.*?\]//g */
				p = close;
				continue;
			}
			src[k++] = *p;
		}
		size_t a = 0;
		while (a < k && strchr(" \t\r\f\v", src[a]))
			a++;
		while (k > a && strchr(" \t\r\f\v", src[k - 1]))
			k--;
		size_t i = s->src_next++;
		if (k > a && s->nlen[i] + 1 + (k - a) < FUNC_MAX) { /* $func .= ':' . $_ */
			s->names[i][s->nlen[i]++] = ':';
			memcpy(s->names[i] + s->nlen[i], src + a, k - a);
			s->nlen[i] += k - a;
		}
		if (--s->src_wanted == 0)
			push_names(s);
		return !s->failed;
	}
	if (len > 0 && line[0] == '#')
		return true;
	if (len == 0) {
		if (s->in_sample)
			end_sample(s);
		return !s->failed;
	}
	const char *pc, *f, *mod;
	size_t pclen, fl, ml;
	/* The header pattern starts with \S: indented lines are frames. */
	bool indented = line[0] == ' ' || line[0] == '\t';
	if (!indented && match(&s->header, line, len)) {
		header(s, line, len, lineno);
	} else if (frame_fast(line, len, &pc, &pclen, &f, &fl, &mod, &ml)) {
		if (s->in_sample)
			frame(s, pc, pclen, f, fl, mod, ml);
	} else if (match(&s->frame, line, len)) {
		if (s->in_sample) {
			pc = group(&s->frame, line, 1, &pclen);
			f = group(&s->frame, line, 2, &fl);
			mod = group(&s->frame, line, 3, &ml);
			frame(s, pc, pclen, f, fl, mod, ml);
		}
	} else if (!fk_diag_line(s->d, s->name, lineno, "Unrecognized line: %.*s",
				 (int)(len > 200 ? 200 : len), line)) {
		return false;
	}
	return !s->failed;
}

static bool start(struct perf *s, struct fk_diag *d)
{
	if (compile(&s->header, PAT_HEADER) && compile(&s->event, PAT_EVENT) &&
	    compile(&s->frame, PAT_FRAME))
		return true;
	fk_diag_error(d, "out of memory");
	return false;
}

static void finish(struct perf *s)
{
	release(&s->header);
	release(&s->event);
	release(&s->frame);
	free(s->filter_own);
	free(s->names);
	free(s->frames);
	free(s->ends);
	free(s->key);
}

enum fk_input_result fk_perf_read(struct fk_input *in, const struct fk_perf_opts *o,
				  const struct fk_perf_emit *e, struct fk_diag *d)
{
	struct perf s = { .o = o, .e = e, .d = d, .filter = o->event_filter, .name = in->name };
	enum fk_input_result res = FK_INPUT_ERROR;
	if (start(&s, d)) {
		res = fk_input_read_lines(in, on_line, &s, d);
		if (s.failed) {
			fk_diag_error(d, "%s: out of memory, or a sum past 128 bits", s.name);
			res = FK_INPUT_ERROR;
		}
	}
	/* A sample with no blank line after it is dropped, as the script does. */
	finish(&s);
	return res;
}

/* ---- a file in parts ---- */

size_t fk_perf_split(const char *p, size_t n, unsigned parts, size_t *starts)
{
	size_t count = 0;
	starts[count++] = 0;
	for (unsigned i = 1; i < parts; i++) {
		size_t at = (size_t)((unsigned __int128)n * i / parts);
		if (at <= starts[count - 1])
			continue;
		const char *blank = memmem(p + at - 1, n - (at - 1), "\n\n", 2);
		if (!blank)
			break;
		size_t next = (size_t)(blank - p) + 2;
		if (next < n)
			starts[count++] = next;
	}
	starts[count] = n;
	return count;
}

struct first_event {
	struct perf s;
	char *event;
	bool failed;
};

static bool look_for_event(void *ctx, const char *line, size_t len, uint64_t lineno)
{
	struct first_event *f = ctx;
	(void)lineno;
	/* What on_line takes for a sample header (no --srcline here). */
	if (len == 0 || line[0] == '#' || line[0] == ' ' || line[0] == '\t' ||
	    !match(&f->s.header, line, len) || !match(&f->s.event, line, len))
		return true;
	size_t el;
	const char *event = group(&f->s.event, line, 2, &el);
	f->event = strndup(event, el);
	f->failed = f->event == NULL;
	return false;
}

bool fk_perf_first_event(const char *p, size_t n, char **event)
{
	struct fk_diag quiet;
	fk_diag_init(&quiet, NULL);
	quiet.quiet = true;
	struct first_event f = { .event = NULL };
	bool ok = start(&f.s, &quiet);
	if (ok) {
		uint64_t lines;
		fk_input_buffer_lines(p, n, "", 0, look_for_event, &f, &quiet, &lines);
		ok = !f.failed;
	}
	finish(&f.s);
	*event = f.event;
	return ok;
}

/* A part's line: its frames are copied as they come, so its home is not kept. */
static bool on_part_line(void *ctx, const char *line, size_t len, const char *home,
			 uint64_t lineno)
{
	(void)home;
	return on_line(ctx, line, len, lineno);
}

enum fk_input_result fk_perf_read_part(const char *name, const struct fk_perf_opts *o,
				       const struct fk_perf_emit *e, struct fk_perf_part *part,
				       struct fk_diag *d)
{
	struct perf s = { .o = o, .e = e, .d = d, .name = name, .part = part,
			  .filter = o->event_filter ? o->event_filter : part->filter,
			  .defaulted = !o->event_filter && part->filter };
	part->lines = 0;
	enum fk_input_result res = FK_INPUT_ERROR;
	if (start(&s, d))
		res = fk_input_pread_lines(part->in, part->off, part->n, name, 0, on_part_line, &s, d,
					   &part->lines);
	part->failed = s.failed;
	finish(&s);
	return res;
}
