/* diag.c - bad-line reporting (see diag.h). */
#include "formats/diag.h"

#include <stdarg.h>
#include <stdio.h>

void fk_diag_init(struct fk_diag *d, const char *prog)
{
	*d = (struct fk_diag){ .prog = prog, .max_shown = FK_DIAG_MAX_SHOWN };
}

/* How many bad lines are printed in full: what workers can hold, at most. */
static unsigned shown_limit(const struct fk_diag *d)
{
	return d->max_shown < FK_DIAG_MAX_SHOWN ? d->max_shown : FK_DIAG_MAX_SHOWN;
}

void fk_diag_defer(struct fk_diag *worker, const struct fk_diag *d)
{
	*worker = (struct fk_diag){ .prog = d->prog, .max_shown = d->max_shown,
				    .strict = d->strict, .quiet = d->quiet, .deferred = true,
				    .out = d->out };
}

/* Where messages go: stderr unless the caller chose another stream. */
static FILE *out(const struct fk_diag *d)
{
	return d->out ? d->out : stderr;
}

static void print_line(const struct fk_diag *d, const char *file, uint64_t line, const char *why)
{
	fprintf(out(d), "%s:%llu: %s\n", file, (unsigned long long)line, why);
}

bool fk_diag_replay(struct fk_diag *d, const struct fk_diag *worker, const char *file,
		    uint64_t line_offset)
{
	return fk_diag_replay_before(d, worker, file, line_offset, UINT64_MAX);
}

bool fk_diag_replay_before(struct fk_diag *d, const struct fk_diag *worker, const char *file,
			   uint64_t line_offset, uint64_t stop_line)
{
	unsigned i = 0;
	for (; i < worker->nheld && worker->held[i].line + line_offset < stop_line; i++) {
		d->bad_lines++;
		if (!d->quiet && (d->strict || d->bad_lines <= shown_limit(d)))
			print_line(d, file, worker->held[i].line + line_offset, worker->held[i].why);
		if (d->strict)
			return false;
	}
	/* Those not held come after the held ones: counted when all held were. */
	if (i == worker->nheld)
		d->bad_lines += worker->bad_lines - worker->nheld;
	return true;
}

bool fk_diag_line(struct fk_diag *d, const char *file, uint64_t line,
		  const char *fmt, ...)
{
	d->bad_lines++;
	if (d->deferred) {
		if (d->nheld < shown_limit(d)) {
			struct fk_diag_held *h = &d->held[d->nheld++];
			h->line = line;
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(h->why, sizeof h->why, fmt, ap);
			va_end(ap);
		}
		return !d->strict;
	}
	if (!d->quiet && (d->strict || d->bad_lines <= shown_limit(d))) {
		va_list ap;
		va_start(ap, fmt);
		fprintf(out(d), "%s:%llu: ", file, (unsigned long long)line);
		vfprintf(out(d), fmt, ap);
		fputc('\n', out(d));
		va_end(ap);
	}
	return !d->strict;
}

void fk_diag_summary(const struct fk_diag *d)
{
	if (d->quiet || d->bad_lines == 0 || d->strict)
		return;
	uint64_t hidden = d->bad_lines > shown_limit(d) ? d->bad_lines - shown_limit(d) : 0;
	fprintf(out(d), "%s: %llu bad line%s skipped", d->prog,
		(unsigned long long)d->bad_lines, d->bad_lines == 1 ? "" : "s");
	if (hidden)
		fprintf(out(d), " (%llu not shown)", (unsigned long long)hidden);
	fputc('\n', out(d));
}

/* One line: "prog: " (when prog is not NULL), the message. */
static void say(const struct fk_diag *d, const char *prog, const char *fmt, va_list ap)
{
	if (prog)
		fprintf(out(d), "%s: ", prog);
	vfprintf(out(d), fmt, ap);
	fputc('\n', out(d));
}

void fk_diag_error(const struct fk_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(d, d->prog, fmt, ap);
	va_end(ap);
}

void fk_diag_note(const struct fk_diag *d, const char *fmt, ...)
{
	if (d->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	say(d, d->prog, fmt, ap);
	va_end(ap);
}

void fk_diag_note_once(struct fk_diag *d, const char *message)
{
	uint64_t h = 14695981039346656037ull; /* FNV-1a: a few short messages */
	for (const char *p = message; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	for (unsigned i = 0; i < d->nsaid; i++)
		if (d->said[i] == h)
			return;
	if (d->nsaid < FK_DIAG_MAX_ONCE)
		d->said[d->nsaid++] = h;
	fk_diag_note(d, "%s", message);
}

void fk_diag_note_as_is(const struct fk_diag *d, const char *fmt, ...)
{
	if (d->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	say(d, NULL, fmt, ap);
	va_end(ap);
}

void fk_diag_progress(const struct fk_diag *d, const char *name, unsigned percent)
{
	fprintf(out(d), "\r%s: %s: %u%%", d->prog, name, percent);
}

void fk_diag_progress_end(const struct fk_diag *d)
{
	fputs("\r\033[K", out(d));
}

bool fk_diag_warn(struct fk_diag *d, const char *fmt, ...)
{
	d->bad_lines++;
	if (!d->quiet && (d->strict || d->bad_lines <= shown_limit(d))) {
		va_list ap;
		va_start(ap, fmt);
		say(d, NULL, fmt, ap);
		va_end(ap);
	}
	return !d->strict;
}

void fk_diag_error_at(const struct fk_diag *d, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	say(d, NULL, fmt, ap);
	va_end(ap);
}
