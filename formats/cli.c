/* cli.c - shared command-line plumbing (see cli.h). */
#include "formats/cli.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/outfile.h"

#define OUT_BUFFER ((size_t)1 << 20)

FILE *fk_cli_open_output(const char *prog, const char *path)
{
	FILE *f = stdout;
	if (path && strcmp(path, "-") != 0) {
		int fd = fk_outfile_open(path);
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f && fd >= 0) {
			int err = errno;
			fk_outfile_abort(fd);
			errno = err;
		}
	}
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, OUT_BUFFER);
	return f;
}

bool fk_cli_close_output(const char *prog, FILE *f, const char *path)
{
	bool ok = fflush(f) == 0 && !ferror(f);
	int err = errno;
	if (f != stdout) {
		/* The file appears only now, complete; on an error it never does. */
		int fd = dup(fileno(f));
		ok = fclose(f) == 0 && ok;
		err = ok ? err : errno;
		if (fd < 0) {
			ok = false;
			err = errno;
		} else if (!ok) {
			fk_outfile_abort(fd);
		} else if (!fk_outfile_commit(fd, path)) {
			ok = false;
			err = errno;
		}
	}
	if (!ok)
		fprintf(stderr, "%s: %s: write error: %s\n", prog,
			(!path || strcmp(path, "-") == 0) ? "<stdout>" : path, strerror(err));
	return ok;
}

int fk_cli_usage_error(const char *prog, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry '%s --help'.\n", prog);
	va_end(ap);
	return FK_EXIT_USAGE;
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
