/* export_run.c - the stackcap export command (see export_run.h). */
#include "render/export_run.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/input.h"
#include "formats/sink.h"
#include "render/chromeexport.h"

void fk_export_opts_defaults(struct fk_export_opts *o)
{
	*o = (struct fk_export_opts){ .names.metric = FK_METRIC_SELF_CPU };
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int write_trace(const struct fk_export_opts *o, const struct fk_chrome_capture *in,
		       size_t n, struct fk_diag *d)
{
	struct fk_sink s;
	bool gzip = strcmp(o->chrome, "-") != 0 && ends_with(o->chrome, ".gz");
	/* Level 1: 3x faster than 6 for 15% more bytes (as memtimeline). */
	if (!fk_sink_open(&s, o->chrome, gzip ? 1 : 0)) {
		fk_diag_error(d, "%s: %s", o->chrome, strerror(errno));
		return FK_EXIT_BAD_INPUT;
	}
	struct fk_chrome_stats st;
	bool ok = fk_chrome_write(&s, in, n, &o->names, &st, d);
	if (!ok && !s.failed) { /* leave no partial trace */
		s.failed = true;
		s.err = ENOMEM;
	}
	if (!fk_sink_close(&s)) {
		if (ok)
			fk_diag_error(d, "%s: write error: %s", s.name,
				      s.err ? strerror(s.err) : "zlib failed");
		return FK_EXIT_BAD_INPUT;
	}
	if (st.syncs)
		fk_diag_note(d, "%" PRIu64 " CUDA synchronizations not drawn (a capture knows no "
			     "device or stream for them)", st.syncs);
	return FK_EXIT_OK;
}

int fk_export_run(const struct fk_export_opts *o, struct fk_diag *d)
{
	struct fk_capture *caps = calloc(o->ninputs ? o->ninputs : 1, sizeof *caps);
	struct fk_chrome_capture *in = calloc(o->ninputs ? o->ninputs : 1, sizeof *in);
	size_t n = 0;
	int status = caps && in ? FK_EXIT_OK : FK_EXIT_BAD_INPUT;
	if (status != FK_EXIT_OK)
		fk_diag_error(d, "out of memory");
	for (size_t i = 0; status == FK_EXIT_OK && i < o->ninputs; i++) {
		const char *name = fk_input_display_name(o->inputs[i]);
		if (!fk_capture_load_samples(o->inputs[i], name, &caps[n], d)) {
			status = FK_EXIT_BAD_INPUT;
			break;
		}
		in[n] = (struct fk_chrome_capture){ name, &caps[n] };
		n++;
	}
	/* Viewers draw threads by (pid, tid): two runs with one pid (another
	 * machine, a pid reused) share tracks. */
	for (size_t i = 0; status == FK_EXIT_OK && i < n; i++)
		for (size_t j = 0; j < i; j++)
			if (caps[i].hdr.pid == caps[j].hdr.pid) {
				fk_diag_note(d, "%s and %s are both pid %u: their threads share the "
					     "trace's tracks", in[j].name, in[i].name, caps[i].hdr.pid);
				break;
			}
	if (status == FK_EXIT_OK)
		status = write_trace(o, in, n, d);
	for (size_t i = 0; i < n; i++)
		fk_capture_free(&caps[i]);
	free(caps);
	free(in);
	return status;
}
