/* cli.c - shared command-line plumbing (see cli.h). */
#include "formats/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "formats/outfile.h"

FILE *fk_cli_open_output(const char *prog, const char *path)
{
	struct fk_diag d;
	fk_diag_init(&d, prog);
	return fk_outfile_fopen(path, &d);
}

bool fk_cli_close_output(const char *prog, FILE *f, const char *path)
{
	struct fk_diag d;
	fk_diag_init(&d, prog);
	return fk_outfile_fclose(f, path, &d);
}

int fk_cli_usage_hint(const char *prog)
{
	fprintf(stderr, "Try '%s --help'.\n", prog);
	return FK_EXIT_USAGE;
}

int fk_cli_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return fk_cli_usage_hint(prog);
}

bool fk_cli_num(const char *s, struct fk_num *out)
{
	return fk_num_parse(s, strlen(s), out) == FK_NUM_OK;
}

bool fk_cli_double(const char *s, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !isfinite(v))
		return false;
	*out = v;
	return true;
}

bool fk_cli_int(const char *s, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < min || v > max)
		return false;
	*out = v;
	return true;
}
