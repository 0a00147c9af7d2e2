/* cli.c - shared command-line plumbing (see cli.h). */
#include "formats/cli.h"

#include <errno.h>
#include <getopt.h>
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

int fk_cli_bad_option(const char *prog, char *const argv[], const char *shortopts,
		      const struct option *longopts)
{
	/* getopt left optopt 0 for an unknown or ambiguous long option, the
	 * option's letter or value when its value is missing, and the letter
	 * of an unknown short option. */
	const char *word = optind > 0 ? argv[optind - 1] : "";
	if (optopt > 0 && optopt < 256 && !strchr(shortopts, optopt))
		return fk_cli_usage_error(prog, "unknown option '-%c'", optopt);
	if (optopt == 0) {
		const char *name = word + strspn(word, "-");
		size_t n = strcspn(name, "="); /* --name=value: the name */
		char matches[256] = "";
		size_t nmatch = 0, used = 0;
		for (const struct option *o = longopts; o && o->name; o++)
			if (n > 0 && strncmp(o->name, name, n) == 0 && used < sizeof matches) {
				used += (size_t)snprintf(matches + used, sizeof matches - used, "%s--%s",
							 nmatch ? ", " : "", o->name);
				nmatch++;
			}
		if (nmatch > 1)
			return fk_cli_usage_error(prog, "ambiguous option '%.*s' (%s)",
						  (int)(name - word + n), word, matches);
		return fk_cli_usage_error(prog, "unknown option '%.*s'", (int)(name - word + n), word);
	}
	if (word[0] == '-' && strchr(word, '=')) /* --flag=value */
		return fk_cli_usage_error(prog, "option '%.*s' takes no value",
					  (int)strcspn(word, "="), word);
	if (optopt < 256 && word[0] == '-' && word[1] != '-')
		return fk_cli_usage_error(prog, "option '-%c' needs a value", optopt);
	return fk_cli_usage_error(prog, "option '%s' needs a value", word);
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
