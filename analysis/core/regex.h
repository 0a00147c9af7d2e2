/* regex.h - Perl-compatible regular expressions (PCRE2) for frame filters.
 *
 * Owns: the compiled pattern and its match data. One fk_regex must not be
 * used by two threads at once.
 */
#ifndef FK_REGEX_H
#define FK_REGEX_H

#include <stdbool.h>
#include <stddef.h>

struct fk_regex;

/* NULL on a bad pattern, with the reason in err. */
struct fk_regex *fk_regex_compile(const char *pattern, char *err, size_t errlen);
/* 1 on a match, 0 on none, -1 when matching failed (e.g. PCRE2's match
 * limit on a pathological pattern): never guess. */
int fk_regex_match(struct fk_regex *re, const char *p, size_t len);
void fk_regex_free(struct fk_regex *re);

#endif
