/* diag.c - bad-line reporting (see diag.h). */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>

void fk_diag_init(struct fk_diag *d, const char *prog)
{
	*d = (struct fk_diag){ .prog = prog, .max_shown = 5 };
}

bool fk_diag_line(struct fk_diag *d, const char *file, uint64_t line,
		  const char *fmt, ...)
{
	d->bad_lines++;
	if (!d->quiet && (d->strict || d->bad_lines <= d->max_shown)) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(stderr, "%s:%llu: ", file, (unsigned long long)line);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
		va_end(ap);
	}
	return !d->strict;
}

void fk_diag_summary(const struct fk_diag *d)
{
	if (d->quiet || d->bad_lines == 0 || d->strict)
		return;
	uint64_t hidden = d->bad_lines > d->max_shown ? d->bad_lines - d->max_shown : 0;
	fprintf(stderr, "%s: %llu bad line%s skipped", d->prog,
		(unsigned long long)d->bad_lines, d->bad_lines == 1 ? "" : "s");
	if (hidden)
		fprintf(stderr, " (%llu not shown)", (unsigned long long)hidden);
	fputc('\n', stderr);
}

void fk_diag_error(const struct fk_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", d->prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
