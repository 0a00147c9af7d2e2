/* memtimeline.c - the memtimeline command: argument parsing only, into
 * struct fk_memtimeline_opts for fk_memtimeline_run()
 * (render/memtimeline_run.h: the run ends in render's writers, the HTML plot). */
#include <getopt.h>
#include <string.h>

#include "formats/cli.h"
#include "render/memtimeline_run.h"

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
"torch.profiler Chrome/Kineto traces give their [memory] events\n"
"(profile_memory=True), by address and device.\n"
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
"Python frames in captures' stacks (as stackfold names them):\n"
FK_PY_HELP
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

enum { OPT_HTML = 256, OPT_JSON, OPT_RAW, OPT_DEVICE, OPT_SUMMARY, OPT_PEAK, OPT_LEAKS,
       OPT_STRICT, OPT_VERSION, OPT_PY /* + FK_PY_OPT_*: analysis/capture/pynames.h */ };

static const struct option value_opts[] = {
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
};
#define NVALUES (sizeof value_opts / sizeof value_opts[0])

/* Whether the timeline is written, and that at most one output goes to
 * standard output: -1 when so, else the usage error's exit status. */
static int check_outputs(struct fk_memtimeline_opts *o)
{
	o->timeline = o->output || o->format != FK_MEMTIMELINE_AUTO ||
		      !(o->summary.wanted || o->peak.wanted || o->leaks.wanted);
	if (o->output && strcmp(o->output, "-") == 0)
		o->output = NULL;
	int to_stdout = (o->timeline && !o->output) + (o->summary.wanted && !o->summary.path) +
			(o->peak.wanted && !o->peak.path) + (o->leaks.wanted && !o->leaks.path);
	if (to_stdout > 1)
		return fk_cli_usage_error(prog, "only one output can go to standard output; "
					  "give the others a file (-o FILE, --summary=FILE, ...)");
	return -1;
}

int main(int argc, char **argv)
{
	struct option longopts[NVALUES + FK_PY_NOPTS + 1];
	memcpy(longopts, value_opts, sizeof value_opts);
	fk_py_options(longopts + NVALUES, OPT_PY);
	longopts[NVALUES + FK_PY_NOPTS] = (struct option){ 0 };
	struct fk_memtimeline_opts o;
	fk_memtimeline_opts_defaults(&o);
	struct fk_diag diag;
	fk_diag_init(&diag, prog);
	int c, status;
	opterr = 0; /* fk_cli_bad_option says it once */
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		if (c >= OPT_PY && c < OPT_PY + FK_PY_NOPTS) {
			const char *wrong = fk_py_option(&o.python, c - OPT_PY, optarg);
			if (wrong)
				return fk_cli_usage_error(prog, "%s, not '%s'", wrong, optarg ? optarg : "");
			continue;
		}
		switch (c) {
		case 'o':
			o.output = optarg;
			break;
		case OPT_HTML:
		case OPT_JSON:
		case OPT_RAW: {
			enum fk_memtimeline_format f = c == OPT_HTML ? FK_MEMTIMELINE_HTML
						       : c == OPT_JSON ? FK_MEMTIMELINE_JSON
						       : FK_MEMTIMELINE_RAW;
			if (o.format != FK_MEMTIMELINE_AUTO && o.format != f)
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
			struct fk_memtimeline_out *r = c == OPT_SUMMARY ? &o.summary
						       : c == OPT_PEAK ? &o.peak : &o.leaks;
			r->wanted = true;
			r->path = optarg && strcmp(optarg, "-") != 0 ? optarg : NULL;
			break;
		}
		case OPT_STRICT:
			diag.strict = true;
			break;
		case 'q':
			diag.quiet = true;
			break;
		case 'h':
			usage(stdout);
			return FK_EXIT_OK;
		case OPT_VERSION:
			printf("memtimeline (flamekit) %s\n", FK_VERSION);
			return FK_EXIT_OK;
		default:
			return fk_cli_bad_option(prog, argv, "o:qh", longopts);
		}
	}
	if (optind >= argc)
		return fk_cli_usage_error(prog, "no input (give a raw timeline, or '-' for stdin)");
	if ((status = check_outputs(&o)) >= 0)
		return status;
	o.inputs = argv + optind;
	o.ninputs = (size_t)(argc - optind);
	return fk_memtimeline_run(&o, &diag);
}
