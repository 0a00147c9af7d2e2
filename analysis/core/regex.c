/* regex.c - PCRE2 wrapper (see regex.h). */
#include "analysis/core/regex.h"

#include <stdio.h>
#include <stdlib.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

struct fk_regex {
	pcre2_code *code;
	pcre2_match_data *md;
};

struct fk_regex *fk_regex_compile(const char *pattern, char *err, size_t errlen)
{
	int code;
	PCRE2_SIZE offset;
	/* No UTF flag: frame names are bytes and may hold invalid UTF-8. */
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, 0, &code,
				      &offset, NULL);
	if (!c) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		snprintf(err, errlen, "bad regex '%s' at offset %zu: %s", pattern, (size_t)offset,
			 (const char *)msg);
		return NULL;
	}
	pcre2_jit_compile(c, PCRE2_JIT_COMPLETE); /* optional speed-up */
	struct fk_regex *re = malloc(sizeof *re);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(c, NULL);
	if (!re || !md) {
		free(re);
		pcre2_match_data_free(md);
		pcre2_code_free(c);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	re->code = c;
	re->md = md;
	return re;
}

int fk_regex_match(struct fk_regex *re, const char *p, size_t len)
{
	int rc = pcre2_match(re->code, (PCRE2_SPTR)p, len, 0, 0, re->md, NULL);
	return rc >= 0 ? 1 : rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

void fk_regex_free(struct fk_regex *re)
{
	if (!re)
		return;
	pcre2_match_data_free(re->md);
	pcre2_code_free(re->code);
	free(re);
}
