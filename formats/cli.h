/* cli.h - plumbing the commands share: exit codes, output files, option
 * values. Only command main()s use it; the library never prints.
 */
#ifndef FK_CLI_H
#define FK_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "formats/diag.h" /* FK_EXIT_* */
#include "formats/num.h"

#define FK_VERSION "0.1.0"

/* fk_outfile_fopen() and fk_outfile_fclose() (formats/outfile.h), their
 * messages prefixed with prog. */
FILE *fk_cli_open_output(const char *prog, const char *path);
bool fk_cli_close_output(const char *prog, FILE *f, const char *path);

/* "Try 'prog --help'." on stderr, after a usage error already reported
 * (getopt's, or a library entry's); returns FK_EXIT_USAGE. */
int fk_cli_usage_hint(const char *prog);
/* "prog: message\nTry 'prog --help'." on stderr; returns FK_EXIT_USAGE. */
int fk_cli_usage_error(const char *prog, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A getopt '?' (run with opterr = 0, so getopt says nothing): one line
 * naming the option, unknown, ambiguous (with its candidates) or missing
 * its value, and the hint; returns FK_EXIT_USAGE. shortopts and longopts:
 * what getopt was given. */
struct option;
int fk_cli_bad_option(const char *prog, char *const argv[], const char *shortopts,
		      const struct option *longopts);

/* Parses an exact non-negative decimal option value. */
bool fk_cli_num(const char *s, struct fk_num *out);
/* Parses a double (finite); false on junk. */
bool fk_cli_double(const char *s, double *out);
/* Parses an int in [min, max]; false on junk or range. */
bool fk_cli_int(const char *s, long min, long max, long *out);

#endif
