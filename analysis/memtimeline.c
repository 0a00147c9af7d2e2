/* memtimeline.c - the memtimeline command: argument parsing only. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "formats/input.h"
#include "formats/sink.h"
#include "analysis/mem/torch.h"
#include "render/memhtml.h"
#include "render/memplot.h"
#include "formats/cli.h"
#include "analysis/mem/load.h"

static const char *prog = "memtimeline";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: memtimeline [OPTIONS] INPUT... [-o OUT]\n"
"Memory timelines from torch.profiler raw timelines (*.raw.json.gz, what\n"
"export_memory_timeline(\"x.raw.json.gz\") writes; gzip or not; '-' is stdin),\n"
"written as torch writes them: coalesced JSON [times, sizes], raw rows, or an\n"
"HTML page with the stacked plot, plus the peak and what was live at it.\n"
"stackcap captures give the host heap (stackcap --alloc) or GPU memory\n"
"(--device cuda:N), by address, with the stacks that allocated.\n"
"Several inputs are merged into one timeline in time order.\n"
"\n"
"Output (the timeline; JSON on standard output when nothing else is asked):\n"
"  -o, --output FILE        the format follows the name, as in torch:\n"
"                           *.html: HTML page; *raw.json.gz: raw rows;\n"
"                           other *.gz: coalesced JSON, gzipped;\n"
"                           anything else: coalesced JSON\n"
"      --html, --json, --raw  this format, whatever the name (a .gz name\n"
"                           still compresses JSON and raw rows)\n"
"      --device DEV         cpu, cuda or cuda:N: the device to draw, for inputs\n"
"                           holding several (a torch raw file holds one; for a\n"
"                           capture the default is cuda:0 when it has GPU\n"
"                           memory, else cpu)\n"
"\n"
"Beyond torch (each to standard output, or to FILE):\n"
"      --summary[=FILE]     the peak, each category at the peak, at its\n"
"                           maximum and at the end, event counts\n"
"      --peak-stacks[=FILE] folded stacks of the bytes live at the peak,\n"
"                           \"CATEGORY;frame;...;leaf BYTES\": a memory flame graph\n"
"                           with flamegraph --colors mem --countname bytes\n"
"      --leaks[=FILE]       the same for bytes created in the timeline and\n"
"                           still live at its end\n"
"\n"
"      --strict             a warning (see below) is an error\n"
"  -q, --quiet              do not print warnings (they are still counted)\n"
"  -h, --help               show this help\n"
"      --version            show the version\n"
"\n"
"Errors (exit 1, nothing written): unreadable or malformed JSON, a row that is\n"
"not 4 integers, an unknown action or category, a size of the wrong sign, an\n"
"INCREMENT_VERSION row without its pair, totals past 64 bits.\n"
"Warnings (counted, reported as FILE: event N: reason, the first 5 shown):\n"
"events out of time order (sorted, as torch sorts its timeline), a DESTROY or\n"
"INCREMENT_VERSION of bytes that are not live (kept, as torch would).\n"
"Exit status: 0 success, 1 bad input, 2 usage error.\n");
}

enum format { FORMAT_AUTO, FORMAT_JSON, FORMAT_RAW, FORMAT_HTML };

enum { OPT_HTML = 256, OPT_JSON, OPT_RAW, OPT_DEVICE, OPT_SUMMARY, OPT_PEAK, OPT_LEAKS,
       OPT_STRICT, OPT_VERSION };

struct report_out {
	bool wanted;
	const char *path; /* NULL: stdout */
};

struct options {
	const char *output;
	enum format format;
	int16_t device;
	struct report_out summary, peak, leaks;
	bool timeline; /* write the timeline (-o, a format, or nothing else asked) */
	bool strict, quiet;
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* torch's dispatch on the name: .html first, then .gz (raw.json.gz: raw). */
static enum format format_of(const char *path, enum format given, bool *gzip)
{
	*gzip = path && ends_with(path, ".gz");
	if (given != FORMAT_AUTO)
		return given;
	if (path && ends_with(path, ".html"))
		return FORMAT_HTML;
	if (path && ends_with(path, "raw.json.gz"))
		return FORMAT_RAW;
	return FORMAT_JSON;
}

static int write_html(const char *path, const struct fk_mem_timeline *tl,
		      const struct fk_mem_report *rep)
{
	char title[200];
	unsigned char *png = NULL;
	size_t len = 0;
	const char *why;
	fk_memhtml_title(title, sizeof title, tl, rep);
	int drawn = fk_memplot_png(tl, title, &png, &len, &why);
	fk_memplot_release();
	if (drawn != 0) {
		fprintf(stderr, "%s: cannot draw the plot: %s\n", prog, why);
		return FK_EXIT_BAD_INPUT;
	}
	FILE *f = fk_cli_open_output(prog, path);
	if (!f) {
		free(png);
		return FK_EXIT_BAD_INPUT;
	}
	fk_memhtml_write(f, png, len, tl, rep);
	free(png);
	return fk_cli_close_output(prog, f, path) ? FK_EXIT_OK : FK_EXIT_BAD_INPUT;
}

/* JSON and raw rows go through a sink: gzip when the name ends in .gz. */
static int write_rows(const char *path, enum format format, bool gzip,
		      const struct fk_mem_timeline *tl)
{
	struct fk_sink s;
	/* Level 1: 3x faster than 6 for 15% more bytes; gzip -9 can redo it. */
	if (!fk_sink_open(&s, path, gzip ? 1 : 0)) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, strerror(errno));
		return FK_EXIT_BAD_INPUT;
	}
	if (format == FORMAT_RAW)
		fk_mem_write_torch_raw(&s, tl);
	else
		fk_mem_write_torch_json(&s, tl);
	if (!fk_sink_close(&s)) {
		fprintf(stderr, "%s: %s: write error: %s\n", prog, s.name,
			s.err ? strerror(s.err) : "zlib failed");
		return FK_EXIT_BAD_INPUT;
	}
	return FK_EXIT_OK;
}

static int write_report(const struct report_out *r, const struct fk_mem_timeline *tl,
			const struct fk_mem_report *rep, int which, uint64_t warnings)
{
	if (!r->wanted)
		return FK_EXIT_OK;
	FILE *f = fk_cli_open_output(prog, r->path);
	if (!f)
		return FK_EXIT_BAD_INPUT;
	if (which == OPT_SUMMARY)
		fk_mem_write_summary(f, rep, warnings);
	else if (which == OPT_PEAK)
		fk_mem_write_live_stacks(f, tl, rep->at_peak, rep->n_at_peak);
	else
		fk_mem_write_live_stacks(f, tl, rep->leaked, rep->n_leaked);
	return fk_cli_close_output(prog, f, r->path) ? FK_EXIT_OK : FK_EXIT_BAD_INPUT;
}

static int run(const struct options *o, char *const *inputs, size_t ninputs)
{
	struct fk_diag d;
	fk_diag_init(&d, prog);
	d.strict = o->strict;
	d.quiet = o->quiet;
	struct fk_mem_timeline tl;
	struct fk_mem_inputs in = { 0 };
	struct fk_mem_report rep = { 0 };
	fk_mem_init(&tl);
	int rc = FK_EXIT_BAD_INPUT;
	if (!fk_mem_load(&tl, &in, inputs, ninputs, o->device, &d) ||
	    !fk_mem_check(&tl, &in, &rep, &d))
		goto out;
	if (d.bad_lines && !d.quiet)
		fprintf(stderr, "%s: %llu warning%s%s\n", prog, (unsigned long long)d.bad_lines,
			d.bad_lines == 1 ? "" : "s",
			d.bad_lines > d.max_shown ? " (the first 5 shown)" : "");
	rc = FK_EXIT_OK;
	if (o->timeline) {
		bool gzip;
		enum format f = format_of(o->output, o->format, &gzip);
		rc = f == FORMAT_HTML ? write_html(o->output, &tl, &rep)
				      : write_rows(o->output, f, gzip, &tl);
	}
	if (rc == FK_EXIT_OK)
		rc = write_report(&o->summary, &tl, &rep, OPT_SUMMARY, d.bad_lines);
	if (rc == FK_EXIT_OK)
		rc = write_report(&o->peak, &tl, &rep, OPT_PEAK, d.bad_lines);
	if (rc == FK_EXIT_OK)
		rc = write_report(&o->leaks, &tl, &rep, OPT_LEAKS, d.bad_lines);
out:
	fk_mem_report_free(&rep);
	fk_mem_inputs_free(&in);
	fk_mem_free(&tl);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "html", no_argument, NULL, OPT_HTML },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "raw", no_argument, NULL, OPT_RAW },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "summary", optional_argument, NULL, OPT_SUMMARY },
		{ "peak-stacks", optional_argument, NULL, OPT_PEAK },
		{ "leaks", optional_argument, NULL, OPT_LEAKS },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct options o = { .device = FK_MEM_DEVICE_ANY };
	int c;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case OPT_HTML:
		case OPT_JSON:
		case OPT_RAW: {
			enum format f = c == OPT_HTML ? FORMAT_HTML : c == OPT_JSON ? FORMAT_JSON : FORMAT_RAW;
			if (o.format != FORMAT_AUTO && o.format != f)
				return fk_cli_usage_error(prog, "--html, --json and --raw exclude each other");
			o.format = f;
			break;
		}
		case OPT_DEVICE:
			if (!fk_mem_parse_device(optarg, &o.device))
				return fk_cli_usage_error(prog, "--device: '%s' is not cpu, cuda or cuda:N",
							  optarg);
			break;
		case OPT_SUMMARY:
		case OPT_PEAK:
		case OPT_LEAKS: {
			struct report_out *r = c == OPT_SUMMARY ? &o.summary : c == OPT_PEAK ? &o.peak : &o.leaks;
			r->wanted = true;
			r->path = optarg && strcmp(optarg, "-") != 0 ? optarg : NULL;
			break;
		}
		case OPT_STRICT:
			o.strict = true;
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return FK_EXIT_OK;
		case OPT_VERSION:
			printf("memtimeline (flamekit) %s\n", FK_VERSION);
			return FK_EXIT_OK;
		default:
			fprintf(stderr, "Try '%s --help'.\n", prog);
			return FK_EXIT_USAGE;
		}
	}
	if (optind >= argc)
		return fk_cli_usage_error(prog, "no input (give a raw timeline, or '-' for stdin)");
	o.timeline = o.output || o.format != FORMAT_AUTO ||
		     !(o.summary.wanted || o.peak.wanted || o.leaks.wanted);
	if (o.output && strcmp(o.output, "-") == 0)
		o.output = NULL;
	int to_stdout = (o.timeline && !o.output) + (o.summary.wanted && !o.summary.path) +
			(o.peak.wanted && !o.peak.path) + (o.leaks.wanted && !o.leaks.path);
	if (to_stdout > 1)
		return fk_cli_usage_error(prog, "only one output can go to standard output; "
					  "give the others a file (-o FILE, --summary=FILE, ...)");
	return run(&o, argv + optind, (size_t)(argc - optind));
}
