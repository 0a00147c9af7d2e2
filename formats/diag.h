/* diag.h - the one sink of the library's messages: bad input lines (the
 * first few in full, then a count), errors, notes and progress.
 *
 * Owns: struct fk_diag, one per command run. Messages go to stderr (or to
 * out, when set: tests, fuzzing) as "file:line: reason". In strict mode the first bad line is fatal: the
 * caller sees fk_diag_line() return false and stops. Not thread-safe.
 * Also the exit statuses (FK_EXIT_*) that what reports through it returns.
 */
#ifndef FK_DIAG_H
#define FK_DIAG_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define FK_DIAG_MAX_SHOWN 5
#define FK_DIAG_MAX_ONCE 256

/* A command's exit status, as the library entries that do a command's work
 * return it: success, bad input (or a failed write), a usage error. */
enum { FK_EXIT_OK = 0, FK_EXIT_BAD_INPUT = 1, FK_EXIT_USAGE = 2 };

/* A bad line held back by a deferred diag (worker threads), to be printed
 * in input order once line numbers are known. */
struct fk_diag_held {
	uint64_t line;
	char why[256]; /* room for "Unrecognized line: " and 200 bytes of it */
};

struct fk_diag {
	const char *prog;   /* prefix for summary lines, e.g. "stackfold" */
	unsigned max_shown; /* bad lines printed in full before only counting;
			       at most FK_DIAG_MAX_SHOWN (workers hold no more) */
	bool strict;        /* first bad line is an error */
	bool quiet;         /* count, print nothing (tests, --quiet) */
	bool deferred;      /* hold messages instead of printing them */
	FILE *out;          /* where messages go; NULL: stderr (the one sink) */
	uint64_t bad_lines;
	struct fk_diag_held held[FK_DIAG_MAX_SHOWN];
	unsigned nheld;
	uint64_t said[FK_DIAG_MAX_ONCE]; /* fk_diag_note_once's, by hash */
	unsigned nsaid;
};

void fk_diag_init(struct fk_diag *d, const char *prog);

/* Reports one bad line. Returns false when processing must stop (strict). */
bool fk_diag_line(struct fk_diag *d, const char *file, uint64_t line,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A deferred copy of d (same settings) for one worker. */
void fk_diag_defer(struct fk_diag *worker, const struct fk_diag *d);
/* Prints what a deferred diag held, its line numbers shifted by line_offset,
 * and adds its count to d. Returns false when d is strict and it held one. */
bool fk_diag_replay(struct fk_diag *d, const struct fk_diag *worker, const char *file,
		    uint64_t line_offset);
/* The same for the lines before stop_line only (shifted numbers), where the
 * input stopped being read (a failure there); those not held are counted
 * only when every held line came before it. */
bool fk_diag_replay_before(struct fk_diag *d, const struct fk_diag *worker, const char *file,
			   uint64_t line_offset, uint64_t stop_line);

/* "prog: N bad lines skipped (M not shown)" when there were any. */
void fk_diag_summary(const struct fk_diag *d);

/* "prog: message" on stderr, for errors that are not tied to a line. */
void fk_diag_error(const struct fk_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A problem not tied to a line, counted like a bad line (shown among the
 * first few, fatal when strict): the caller writes "file: where: reason".
 * Returns false when processing must stop (strict). */
bool fk_diag_warn(struct fk_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* "prog: message" on stderr unless quiet: a remark on the input that is
 * not an error ("no stacks found"), not counted. */
void fk_diag_note(const struct fk_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* fk_diag_note, unless the same message was said already (a remark
 * several passes over one input would repeat: a module not found). Past
 * FK_DIAG_MAX_ONCE distinct messages, each is said again. */
void fk_diag_note_once(struct fk_diag *d, const char *message);

/* A message written as given (no "prog: " prefix) unless quiet: notes in
 * another tool's own words (stackcollapse-perf.pl's "Filtering for ..."). */
void fk_diag_note_as_is(const struct fk_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Progress of a long read on a terminal: "\rprog: name: 42%", then
 * fk_diag_progress_end() clears the line. Callers decide when (a TTY,
 * not quiet, a large input). */
void fk_diag_progress(const struct fk_diag *d, const char *name, unsigned percent);
void fk_diag_progress_end(const struct fk_diag *d);

/* An error message written as given (no "prog: " prefix), for errors the
 * caller places itself ("file: event N: reason"). */
void fk_diag_error_at(const struct fk_diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
