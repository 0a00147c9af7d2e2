/* memtimeline_run.c - memory timelines in, the outputs memtimeline was
 * asked for out (see memtimeline_run.h). */
#include "render/memtimeline_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/outfile.h"
#include "formats/sink.h"
#include "analysis/mem/torch.h"
#include "render/memhtml.h"
#include "render/memplot.h"

void fk_memtimeline_opts_defaults(struct fk_memtimeline_opts *o)
{
	*o = (struct fk_memtimeline_opts){ .device = FK_MEM_DEVICE_ANY, .timeline = true };
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* torch's dispatch on the name: .html first, then .gz (raw.json.gz: raw). */
static enum fk_memtimeline_format format_of(const char *path, enum fk_memtimeline_format given,
					    bool *gzip)
{
	*gzip = path && ends_with(path, ".gz");
	if (given != FK_MEMTIMELINE_AUTO)
		return given;
	if (path && ends_with(path, ".html"))
		return FK_MEMTIMELINE_HTML;
	if (path && ends_with(path, "raw.json.gz"))
		return FK_MEMTIMELINE_RAW;
	return FK_MEMTIMELINE_JSON;
}

static int write_html(const char *path, const struct fk_memtimeline *m, struct fk_diag *d)
{
	char title[200];
	unsigned char *png = NULL;
	size_t len = 0;
	const char *why;
	fk_memhtml_title(title, sizeof title, &m->tl, &m->rep);
	int drawn = fk_memplot_png(&m->tl, title, &png, &len, &why);
	fk_memplot_release();
	if (drawn != 0) {
		fk_diag_error(d, "cannot draw the plot: %s", why);
		return FK_EXIT_BAD_INPUT;
	}
	FILE *f = fk_outfile_fopen(path, d);
	if (!f) {
		free(png);
		return FK_EXIT_BAD_INPUT;
	}
	fk_memhtml_write(f, png, len, &m->tl, &m->rep, m->in.loss);
	free(png);
	return fk_outfile_fclose(f, path, d) ? FK_EXIT_OK : FK_EXIT_BAD_INPUT;
}

/* JSON and raw rows go through a sink: gzip when the name ends in .gz. */
static int write_rows(const char *path, enum fk_memtimeline_format format, bool gzip,
		      const struct fk_mem_timeline *tl, struct fk_diag *d)
{
	struct fk_sink s;
	/* Level 1: 3x faster than 6 for 15% more bytes; gzip -9 can redo it. */
	if (!fk_sink_open(&s, path, gzip ? 1 : 0)) {
		fk_diag_error(d, "%s: %s", path ? path : "-", strerror(errno));
		return FK_EXIT_BAD_INPUT;
	}
	if (format == FK_MEMTIMELINE_RAW)
		fk_mem_write_torch_raw(&s, tl);
	else
		fk_mem_write_torch_json(&s, tl);
	if (!fk_sink_close(&s)) {
		fk_diag_error(d, "%s: write error: %s", s.name,
			      s.err ? strerror(s.err) : "zlib failed");
		return FK_EXIT_BAD_INPUT;
	}
	return FK_EXIT_OK;
}

enum report { SUMMARY, PEAK, LEAKS };

/* What --leaks left out because a loss may explain it, in one line each. */
static void note_unsure_leaks(const struct fk_memtimeline *m, const struct fk_diag *d)
{
	unsigned long long count = m->rep.unsure_count, bytes = m->rep.unsure_bytes;
	if (m->tl.no_end)
		fk_diag_note(d, "--leaks: a capture has no END chunk (killed, crashed or still "
			     "running): the program's end is unknown, so no leak is certain; %llu "
			     "allocations, %llu bytes, live where it stops are not reported as leaks",
			     count, bytes);
	else if (count)
		fk_diag_note(d, "--leaks: %llu allocations, %llu bytes, live at the end were made "
			     "before a loss: not reported as leaks", count, bytes);
	if (m->rep.reused)
		fk_diag_note(d, "--leaks: %llu allocations at an address still live: the free "
			     "before each was lost, the earlier block is not reported as a leak",
			     (unsigned long long)m->rep.reused);
	if (m->tl.unmatched_frees)
		fk_diag_note(d, "--leaks: %llu frees of blocks never seen allocated (made before "
			     "the capture started, or lost)", (unsigned long long)m->tl.unmatched_frees);
}

static int write_report(const struct fk_memtimeline_out *r, enum report which,
			const struct fk_memtimeline *m, struct fk_diag *d)
{
	if (!r->wanted)
		return FK_EXIT_OK;
	FILE *f = fk_outfile_fopen(r->path, d);
	if (!f)
		return FK_EXIT_BAD_INPUT;
	if (which == SUMMARY)
		fk_mem_write_summary(f, &m->rep, m->warnings, m->in.loss);
	else if (which == PEAK)
		fk_mem_write_live_stacks(f, &m->tl, m->rep.at_peak, m->rep.n_at_peak);
	else {
		fk_mem_write_live_stacks(f, &m->tl, m->rep.leaked, m->rep.n_leaked);
		note_unsure_leaks(m, d);
	}
	return fk_outfile_fclose(f, r->path, d) ? FK_EXIT_OK : FK_EXIT_BAD_INPUT;
}

int fk_memtimeline_write(const struct fk_memtimeline *m, const struct fk_memtimeline_opts *o,
			 struct fk_diag *d)
{
	int rc = FK_EXIT_OK;
	if (o->timeline) {
		bool gzip;
		enum fk_memtimeline_format f = format_of(o->output, o->format, &gzip);
		rc = f == FK_MEMTIMELINE_HTML ? write_html(o->output, m, d)
					      : write_rows(o->output, f, gzip, &m->tl, d);
	}
	if (rc == FK_EXIT_OK)
		rc = write_report(&o->summary, SUMMARY, m, d);
	if (rc == FK_EXIT_OK)
		rc = write_report(&o->peak, PEAK, m, d);
	if (rc == FK_EXIT_OK)
		rc = write_report(&o->leaks, LEAKS, m, d);
	return rc;
}

int fk_memtimeline_run(const struct fk_memtimeline_opts *o, struct fk_diag *d)
{
	struct fk_memtimeline m;
	int rc = FK_EXIT_BAD_INPUT;
	if (fk_memtimeline_build(&m, o->inputs, o->ninputs, o->device, &o->python, d))
		rc = fk_memtimeline_write(&m, o, d);
	fk_memtimeline_free(&m);
	return rc;
}
