/* flamegraph.c - the flamegraph command: argument parsing only, into
 * struct fk_flamegraph_opts for fk_flamegraph_run() (render/flamegraph_run.h).
 * A drop-in for flamegraph.pl: same options (single dash and unique prefixes
 * work too). */
#include <getopt.h>
#include <string.h>

#include "analysis/capture/pynames.h"
#include "formats/cli.h"
#include "render/flamegraph_run.h"

static const char *prog = "flamegraph";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: flamegraph [OPTIONS] [FILE...] > graph.svg\n"
"Render folded stacks (\"frame;frame;leaf VALUE\", or \"stack BEFORE AFTER\" for a\n"
"differential graph) as an interactive SVG. A drop-in for flamegraph.pl: the same\n"
"options, defaults, geometry and colours. Reads FILEs (gzip or not) or stdin.\n"
"A stackcap capture is folded first, as `stackfold FILE` folds it; what it lost\n"
"is reported and marked in the subtitle and notes.\n"
"\n"
"  --title TEXT      change the title (default \"Flame Graph\"; \"Icicle Graph\"\n"
"                    with --inverted, \"Flame Chart\" with --flamechart)\n"
"  --subtitle TEXT   second-level title\n"
"  --width NUM       image width in pixels (default 1200)\n"
"  --height NUM      height of each frame in pixels (default 16)\n"
"  --minwidth NUM    omit frames narrower than NUM pixels, or NUM%% of the total\n"
"                    when NUM ends in %% (default 0.1); the SVG says how many\n"
"  --fonttype FONT   font family (default Verdana)\n"
"  --fontsize NUM    font size (default 12)\n"
"  --fontwidth NUM   average glyph width / font size, for label fitting (0.59)\n"
"  --countname TEXT  count unit in tooltips (default \"samples\")\n"
"  --bytes           counts are bytes: tooltips read \"6.04 MiB = 6,332,420 bytes\"\n"
"  --nametype TEXT   prefix of the details line (default \"Function:\")\n"
"  --colors PALETTE  hot (default), mem, io, wakeup, chain, java, js, perl, red,\n"
"                    green, blue, aqua, yellow, purple, orange; torchmem: frames\n"
"                    under a torch memory category (memtimeline --peak-stacks)\n"
"                    in that category's plot colour\n"
"  --bgcolors COLOR  yellow (default), blue, green, grey, or #rrggbb\n"
"  --hash            colours keyed by a hash of the function name\n"
"  --random          random colours\n"
"  --cp              consistent palette: read and update ./palette.map\n"
"  --reverse         stack-reversed flame graph (merge from the leaves)\n"
"  --inverted        icicle graph (root at the top)\n"
"  --flamechart      keep input order, merge only consecutive stacks\n"
"  --negate          switch differential hues (blue <-> red)\n"
"  --notes TEXT      add a notes comment to the SVG\n"
"  --factor NUM      multiply the counts shown in tooltips (default 1)\n"
"  --total NUM       width of the whole graph in counts, when larger than the sum\n"
"  --encoding ENC    declare this encoding in the XML header\n"
"  --metric NAME     captures: what is drawn, as stackfold's --metric\n"
FK_PY_HELP
"                    (self_cpu_time_total by default, samples, alloc_bytes, ...)\n"
"  -o, --output FILE write the SVG to FILE instead of standard output\n"
"  --strict          the first bad input line, or a capture's loss, is an error\n"
"  -q, --quiet       do not report bad lines\n"
"  --help            show this help\n"
"  --version         show the version\n"
"\n"
"Environment: FLAMEKIT_THREADS=N reads large files with N threads (default:\n"
"the number of CPUs, at most 8); the result is the same for any N.\n"
"\n"
"Exit status: 0 success, 1 bad input (nothing to draw, unreadable input,\n"
"--strict bad line or incomplete capture), 2 usage error.\n");
}

enum {
	OPT_TITLE = 256, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_FONTTYPE,
	OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS,
	OPT_HASH, OPT_RANDOM, OPT_CP, OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART, OPT_NEGATE,
	OPT_NOTES, OPT_FACTOR, OPT_TOTAL, OPT_ENCODING, OPT_STRICT, OPT_VERSION, OPT_METRIC,
	OPT_BYTES,
	OPT_PY, /* FK_PY_NOPTS of them: keep last */
};

static const struct option longopts[] = {
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "subtitle", required_argument, NULL, OPT_SUBTITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "height", required_argument, NULL, OPT_HEIGHT },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "fonttype", required_argument, NULL, OPT_FONTTYPE },
	{ "fontsize", required_argument, NULL, OPT_FONTSIZE },
	{ "fontwidth", required_argument, NULL, OPT_FONTWIDTH },
	{ "countname", required_argument, NULL, OPT_COUNTNAME },
	{ "bytes", no_argument, NULL, OPT_BYTES },
	{ "nametype", required_argument, NULL, OPT_NAMETYPE },
	{ "colors", required_argument, NULL, OPT_COLORS },
	{ "bgcolors", required_argument, NULL, OPT_BGCOLORS },
	{ "hash", no_argument, NULL, OPT_HASH },
	{ "random", no_argument, NULL, OPT_RANDOM },
	{ "cp", no_argument, NULL, OPT_CP },
	{ "reverse", no_argument, NULL, OPT_REVERSE },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "flamechart", no_argument, NULL, OPT_FLAMECHART },
	{ "negate", no_argument, NULL, OPT_NEGATE },
	{ "notes", required_argument, NULL, OPT_NOTES },
	{ "factor", required_argument, NULL, OPT_FACTOR },
	{ "total", required_argument, NULL, OPT_TOTAL },
	{ "encoding", required_argument, NULL, OPT_ENCODING },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "output", required_argument, NULL, 'o' },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ 0 },
};

static bool valid_bgcolor(const char *s)
{
	if (!strcmp(s, "yellow") || !strcmp(s, "blue") || !strcmp(s, "green") || !strcmp(s, "grey"))
		return true;
	if (strlen(s) != 7 || s[0] != '#')
		return false;
	for (int i = 1; i < 7; i++)
		if (!strchr("0123456789abcdefABCDEF", s[i]))
			return false;
	return true;
}

static bool parse_minwidth(const char *s, struct fk_flame_opts *o)
{
	size_t n = strlen(s);
	char buf[64];
	if (n == 0 || n >= sizeof buf)
		return false;
	memcpy(buf, s, n + 1);
	o->minwidth_pct = buf[n - 1] == '%';
	if (o->minwidth_pct)
		buf[n - 1] = '\0';
	return buf[0] != '-' && buf[0] != '+' && fk_cli_double(buf, &o->minwidth) && o->minwidth >= 0;
}

/* Checks and stores one drawing option's value: -1 when it is good, else
 * (a bad value or an unknown option) the usage error's exit status. */
static int set_value(int c, const char *arg, struct fk_flame_opts *o)
{
	long lv;
	switch (c) {
	case OPT_TITLE: o->title = arg; break;
	case OPT_SUBTITLE: o->subtitle = arg; break;
	case OPT_WIDTH:
		if (!fk_cli_int(arg, 21, 1000000, &lv))
			return fk_cli_usage_error(prog, "--width needs an integer from 21 to 1000000, not '%s'", arg);
		o->width = lv;
		break;
	case OPT_HEIGHT:
		if (!fk_cli_int(arg, 1, 10000, &lv))
			return fk_cli_usage_error(prog, "--height needs an integer from 1 to 10000, not '%s'", arg);
		o->frameheight = lv;
		break;
	case OPT_MINWIDTH:
		if (!parse_minwidth(arg, o))
			return fk_cli_usage_error(prog, "--minwidth needs a number of pixels or a percentage (like 0.5%%), not '%s'", arg);
		break;
	case OPT_FONTTYPE: o->fonttype = arg; break;
	case OPT_FONTSIZE:
		if (!fk_cli_double(arg, &o->fontsize) || o->fontsize <= 0 || o->fontsize > 1000)
			return fk_cli_usage_error(prog, "--fontsize needs a positive number, not '%s'", arg);
		break;
	case OPT_FONTWIDTH:
		if (!fk_cli_double(arg, &o->fontwidth) || o->fontwidth <= 0 || o->fontwidth > 100)
			return fk_cli_usage_error(prog, "--fontwidth needs a positive number, not '%s'", arg);
		break;
	case OPT_COUNTNAME: o->countname = arg; break;
	case OPT_NAMETYPE: o->nametype = arg; break;
	case OPT_COLORS:
		if (!fk_palette_parse(arg, &o->palette))
			return fk_cli_usage_error(prog, "unknown palette '%s' (hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange, torchmem)", arg);
		break;
	case OPT_BGCOLORS:
		if (!valid_bgcolor(arg))
			return fk_cli_usage_error(prog, "--bgcolors must be yellow, blue, green, grey or #rrggbb, not '%s'", arg);
		o->bgcolors = arg;
		break;
	case OPT_NOTES:
		if (strpbrk(arg, "<>") || strstr(arg, "--"))
			return fk_cli_usage_error(prog, "--notes cannot contain '<', '>' or '--'");
		o->notes = arg;
		break;
	case OPT_FACTOR:
		if (!fk_cli_double(arg, &o->factor) || o->factor <= 0)
			return fk_cli_usage_error(prog, "--factor needs a positive number, not '%s'", arg);
		break;
	case OPT_TOTAL:
		if (!fk_cli_double(arg, &o->total) || o->total < 0)
			return fk_cli_usage_error(prog, "--total needs a non-negative number, not '%s'", arg);
		break;
	case OPT_ENCODING:
		if (!arg[0] || strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(arg))
			return fk_cli_usage_error(prog, "--encoding needs an encoding name like UTF-8, not '%s'", arg);
		o->encoding = arg;
		break;
	default:
		return fk_cli_usage_error(prog, "unknown, ambiguous or incomplete option");
	}
	return -1;
}

int main(int argc, char **argv)
{
	enum { NVALUES = sizeof longopts / sizeof longopts[0] - 1 };
	struct option opts[NVALUES + FK_PY_NOPTS + 1];
	memcpy(opts, longopts, NVALUES * sizeof *opts);
	fk_py_options(opts + NVALUES, OPT_PY);
	opts[NVALUES + FK_PY_NOPTS] = (struct option){ 0 };
	struct fk_flamegraph_opts o;
	fk_flamegraph_opts_defaults(&o);
	bool hash = false, random = false;
	struct fk_diag diag;
	fk_diag_init(&diag, prog);
	int c, status;
	opterr = 0; /* fk_cli_bad_option says it once */
	while ((c = getopt_long_only(argc, argv, "o:qh", opts, NULL)) != -1) {
		if (c >= OPT_PY && c < OPT_PY + FK_PY_NOPTS) {
			const char *wrong = fk_py_option(&o.python, c - OPT_PY, optarg);
			if (wrong)
				return fk_cli_usage_error(prog, "%s, not '%s'", wrong, optarg ? optarg : "");
			continue;
		}
		switch (c) {
		case OPT_HASH: hash = true; break;
		case OPT_RANDOM: random = true; break;
		case OPT_CP: o.flame.consistent_palette = true; break;
		case OPT_REVERSE: o.reverse = true; break;
		case OPT_INVERTED: o.flame.inverted = true; break;
		case OPT_FLAMECHART: o.flame.flamechart = true; break;
		case OPT_NEGATE: o.flame.negate = true; break;
		case OPT_METRIC:
			o.metric_given = true;
			if (!fk_cap_metric_parse(optarg, &o.metric))
				return fk_cli_usage_error(prog, "--metric: '%s' is not self_cpu_time_total, "
							  "samples, alloc_bytes, alloc_count, "
							  "self_cuda_time_total or gpu_alloc_bytes", optarg);
			break;
		case OPT_BYTES: o.flame.bytes = true; break;
		case 'o': o.output = optarg; break;
		case OPT_STRICT: diag.strict = true; break;
		case 'q': diag.quiet = true; break;
		case '?': return fk_cli_bad_option(prog, argv, "o:qh", opts);
		case 'h': usage(stdout); return FK_EXIT_OK;
		case OPT_VERSION: printf("flamegraph (flamekit) %s\n", FK_VERSION); return FK_EXIT_OK;
		default:
			if ((status = set_value(c, optarg, &o.flame)) >= 0)
				return status;
		}
	}
	/* --hash wins over --random, as in flamegraph.pl. */
	o.flame.color_mode = hash ? FK_COLOR_HASH : random ? FK_COLOR_RANDOM : FK_COLOR_NAME;
	o.inputs = argv + optind;
	o.ninputs = (size_t)(argc - optind);
	return fk_flamegraph_run(&o, &diag);
}
