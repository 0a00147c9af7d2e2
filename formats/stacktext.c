/* stacktext.c - the folded-stack line grammar (see stacktext.h). */
#include "formats/stacktext.h"

#include <string.h>

static int is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Splits "text<ws>TOKEN" at the last whitespace: the token is [*tok, len) and
 * the text is everything before the one whitespace character in front of it.
 * Like flamegraph.pl, other whitespace stays in the text ("a;b  1" has a last
 * frame "b "), so both tools draw the same frames. */
static size_t last_token(const char *s, size_t len, size_t *tok)
{
	size_t i = len;
	while (i > 0 && !is_space((unsigned char)s[i - 1]))
		i--;
	*tok = i;
	return i > 0 ? i - 1 : 0;
}

/* What flamegraph.pl accepts as a number: [0-9]+(.[0-9]*)? */
static int is_numeric_char(char c)
{
	return (c >= '0' && c <= '9') || c == '.';
}

static int looks_numeric(const char *s, size_t len)
{
	return len > 0 && ((s[0] >= '0' && s[0] <= '9') || s[0] == '-' || s[0] == '.');
}

enum fk_stackline_kind fk_stackline_parse(const char *line, size_t len,
					  struct fk_stackline *out, const char **why)
{
	/* CRLF files and trailing blanks are common; they never carry data. */
	while (len > 0 && is_space((unsigned char)line[len - 1]))
		len--;
	if (len == 0 || line[0] == '#')
		return FK_STACKLINE_SKIP;
	if (memchr(line, '\0', len)) {
		*why = "NUL byte in line";
		return FK_STACKLINE_INVALID;
	}
	size_t tok;
	size_t head = last_token(line, len, &tok);
	enum fk_num_status st = fk_num_parse(line + tok, len - tok, &out->value);
	if (tok == 0) { /* one token: a stack without value, or the reverse */
		*why = st == FK_NUM_OK ? "no stack before the value" : "no value at the end of the line";
		return FK_STACKLINE_INVALID;
	}
	if (st != FK_NUM_OK) {
		if (st == FK_NUM_SYNTAX)
			*why = looks_numeric(line + tok, len - tok) ? "value is not a decimal number"
								     : "no value at the end of the line";
		else
			*why = fk_num_status_text(st);
		return FK_STACKLINE_INVALID;
	}
	out->before = out->value;
	out->nvalues = 1;
	/* A second number before the last one makes the line differential
	 * ("stack BEFORE AFTER"), exactly as flamegraph.pl reads it. Only the
	 * characters a number can hold are scanned, never the whole stack. */
	size_t tok2 = head;
	while (tok2 > 0 && (is_numeric_char(line[tok2 - 1])))
		tok2--;
	if (tok2 < head && tok2 > 0 && is_space((unsigned char)line[tok2 - 1])) {
		struct fk_num before;
		st = fk_num_parse(line + tok2, head - tok2, &before);
		if (st == FK_NUM_OK) {
			out->before = before;
			out->nvalues = 2;
			head = tok2 - 1;
		} else if (st != FK_NUM_SYNTAX) {
			*why = fk_num_status_text(st);
			return FK_STACKLINE_INVALID;
		}
	}
	out->stack = line;
	out->stack_len = head;
	return FK_STACKLINE_STACK;
}
