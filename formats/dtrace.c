/* dtrace.c - DTrace aggregated stacks, collapsed as stackcollapse.pl
 * collapses them (see dtrace.h). The script's rules, in its order:
 *   - its first 3 lines are skipped, whatever they hold (here: when the
 *     first is dtrace's "CPU ..." header; output without it loses no
 *     frames);
 *   - a line of only a count (/^\s*(\d+)+$/) ends a stack;
 *   - blank lines are skipped;
 *   - a frame: leading space cut, then everything from its last '+' (the
 *     offset), then from the last '(' or '<' after its first "::" (C++
 *     arguments); "-" when nothing is left; split at "->" (Perl's split:
 *     trailing empty parts dropped) into inline frames, each with ';' made
 *     ':' and one leading 'L' dropped, all but the first marked "_[i]".
 * A line's trailing '\r' is dropped (the script would keep it).
 */
#include "formats/dtrace.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

#define HEADER_LINES 3

struct dtrace {
	fk_dtrace_fn fn;
	void *ctx;
	struct fk_diag *d;
	const char *name;
	bool header;       /* line 1 is dtrace's "CPU ID FUNCTION:NAME" */
	uint64_t lineno;   /* the last line read */
	/* The stack so far, root first: each new frame line goes in front. */
	char *buf;
	size_t start, cap; /* the stack is buf[start, cap) */
	bool failed;
};

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Room for n more bytes in front of the stack. */
static bool make_room(struct dtrace *t, size_t n)
{
	if (n <= t->start)
		return true;
	size_t len = t->cap - t->start, cap = t->cap ? t->cap : 256;
	while (cap - len < n)
		cap *= 2;
	char *b = malloc(cap);
	if (!b)
		return false;
	if (len) /* the first frame: no buffer yet */
		memcpy(b + cap - len, t->buf + t->start, len);
	free(t->buf);
	t->buf = b;
	t->start = cap - len;
	t->cap = cap;
	return true;
}

/* A count line: optional space, then digits to the end. */
static bool count_line(const char *p, size_t n, const char **digits, size_t *ndigits)
{
	size_t i = 0;
	while (i < n && is_space(p[i]))
		i++;
	if (i == n)
		return false;
	for (size_t j = i; j < n; j++)
		if (p[j] < '0' || p[j] > '9')
			return false;
	*digits = p + i;
	*ndigits = n - i;
	return true;
}

/* The frame line's name, tidied (leading space, offset, C++ arguments). */
static size_t tidy(const char *p, size_t n, const char **out)
{
	while (n > 0 && is_space(*p))
		p++, n--;
	const char *plus = NULL;
	for (size_t i = n; i-- > 0;)
		if (p[i] == '+') {
			plus = p + i;
			break;
		}
	if (plus)
		n = (size_t)(plus - p);
	const char *colons = NULL;
	for (size_t i = 0; i + 1 < n && !colons; i++)
		if (p[i] == ':' && p[i + 1] == ':')
			colons = p + i;
	if (colons)
		for (size_t i = n; i-- > (size_t)(colons - p) + 2;)
			if (p[i] == '(' || p[i] == '<') {
				n = i;
				break;
			}
	*out = p;
	return n;
}

/* One part of an inline chain, in front of the stack: ';' made ':', one
 * leading 'L' dropped, "_[i]" after all but the chain's first. The parts
 * go in back to front, so `inlined` is known for each. */
static bool push_part(struct dtrace *t, const char *p, size_t n, bool inlined, bool sep)
{
	if (n > 0 && p[0] == 'L')
		p++, n--;
	size_t need = n + (inlined ? 4 : 0) + (sep ? 1 : 0);
	if (need == 0) /* a lone "L": nothing to add (and maybe no buffer yet) */
		return true;
	if (!make_room(t, need))
		return false;
	t->start -= need;
	char *o = t->buf + t->start;
	for (size_t i = 0; i < n; i++)
		*o++ = p[i] == ';' ? ':' : p[i];
	if (inlined)
		memcpy(o, "_[i]", 4), o += 4;
	if (sep)
		*o = ';';
	return true;
}

static bool add_frame(struct dtrace *t, const char *line, size_t len)
{
	const char *p;
	size_t n = tidy(line, len, &p);
	if (n == 0)
		p = "-", n = 1;
	/* Perl's split drops trailing empty parts. */
	size_t parts = 0, end = n;
	for (;;) {
		size_t at = end;
		while (at >= 2 && !(p[at - 2] == '-' && p[at - 1] == '>'))
			at--;
		size_t from = at >= 2 ? at : 0;
		if (from == end && parts == 0 && from > 0) { /* an empty trailing part */
			end = from - 2;
			continue;
		}
		if (from == 0 && end == 0 && parts == 0)
			return true; /* nothing but "->": no frame */
		bool sep = t->cap - t->start > 0 || parts > 0;
		if (!push_part(t, p + from, end - from, from > 0, sep))
			return false;
		parts++;
		if (from == 0)
			return true;
		end = from - 2;
	}
}

static bool on_line(void *ctx, const char *line, size_t len, uint64_t lineno)
{
	struct dtrace *t = ctx;
	t->lineno = lineno;
	if (lineno == 1)
		t->header = len >= 3 && memcmp(line, "CPU", 3) == 0;
	if (t->header && lineno <= HEADER_LINES)
		return true;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	const char *digits;
	size_t ndigits;
	if (count_line(line, len, &digits, &ndigits)) {
		uint64_t count = 0;
		bool fits = ndigits <= 20;
		for (size_t i = 0; i < ndigits && fits; i++)
			fits = !__builtin_mul_overflow(count, 10, &count) &&
			       !__builtin_add_overflow(count, (uint64_t)(digits[i] - '0'), &count);
		bool ok = true;
		if (!fits)
			ok = fk_diag_line(t->d, t->name, lineno,
					  "a count past 2^64-1: the stack above is skipped");
		else if (!t->fn(t->ctx, t->buf ? t->buf + t->start : "", t->cap - t->start, count))
			t->failed = ok = false;
		t->start = t->cap; /* a new stack */
		return ok;
	}
	size_t i = 0;
	while (i < len && is_space(line[i]))
		i++;
	if (i == len)
		return true;
	if (!add_frame(t, line, len)) {
		fk_diag_error(t->d, "out of memory");
		t->failed = true;
		return false;
	}
	return true;
}

enum fk_input_result fk_dtrace_read(struct fk_input *in, fk_dtrace_fn fn, void *ctx,
				    struct fk_diag *d)
{
	struct dtrace t = { .fn = fn, .ctx = ctx, .d = d, .name = in->name };
	enum fk_input_result r = fk_input_read_lines(in, on_line, &t, d);
	/* The script drops frames no count line ended; they are said here. */
	if (r == FK_INPUT_OK && !t.failed && t.start != t.cap &&
	    !fk_diag_line(d, t.name, t.lineno, "the input ends inside a stack (no count line): "
			  "its frames are skipped"))
		r = FK_INPUT_STOPPED;
	free(t.buf);
	return t.failed ? FK_INPUT_ERROR : r;
}

bool fk_dtrace_detect(const char *p, size_t n)
{
	static const char header[] = "CPU";
	const char *end = p + n;
	const char *nl = memchr(p, '\n', n);
	size_t first = (size_t)((nl ? nl : end) - p);
	if (first >= 3 && memcmp(p, header, 3) == 0 && memmem(p, first, "FUNCTION:NAME", 13))
		return true;
	/* Without the header: frames with a module`function, then a count. */
	bool frame = false;
	for (int i = 0; i < 200 && p < end; i++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		const char *line = p;
		size_t len = (size_t)((nl ? nl : end) - p);
		p = nl ? nl + 1 : end;
		const char *digits;
		size_t nd;
		if (len == 0 || (len == 1 && line[0] == '\r'))
			continue;
		if (!is_space(line[0]))
			return false; /* every line of a block is indented */
		if (count_line(line, len && line[len - 1] == '\r' ? len - 1 : len, &digits, &nd))
			return frame;
		if (memchr(line, '`', len))
			frame = true;
	}
	return false;
}
