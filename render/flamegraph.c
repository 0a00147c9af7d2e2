/* flamegraph.c - the flamegraph command: argument parsing only. A drop-in for
 * flamegraph.pl: same options (single dash and unique prefixes work too). */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cli.h"
#include "analysis/core/transform.h"
#include "analysis/core/stackload.h"
#include "render/flame.h"

static const char *prog = "flamegraph";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: flamegraph [OPTIONS] [FILE...] > graph.svg\n"
"Render folded stacks (\"frame;frame;leaf VALUE\", or \"stack BEFORE AFTER\" for a\n"
"differential graph) as an interactive SVG. A drop-in for flamegraph.pl: the same\n"
"options, defaults, geometry and colours. Reads FILEs (gzip or not) or stdin.\n"
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
"  --nametype TEXT   prefix of the details line (default \"Function:\")\n"
"  --colors PALETTE  hot (default), mem, io, wakeup, chain, java, js, perl, red,\n"
"                    green, blue, aqua, yellow, purple, orange\n"
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
"  -o, --output FILE write the SVG to FILE instead of standard output\n"
"  --strict          the first bad input line is an error\n"
"  -q, --quiet       do not report bad lines\n"
"  --help            show this help\n"
"  --version         show the version\n"
"\n"
"Environment: FLAMEKIT_THREADS=N reads large files with N threads (default:\n"
"the number of CPUs, at most 8); the result is the same for any N.\n"
"\n"
"Exit status: 0 success, 1 bad input (nothing to draw, unreadable input,\n"
"--strict bad line), 2 usage error.\n");
}

enum {
	OPT_TITLE = 256, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_FONTTYPE,
	OPT_FONTSIZE, OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS,
	OPT_HASH, OPT_RANDOM, OPT_CP, OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART, OPT_NEGATE,
	OPT_NOTES, OPT_FACTOR, OPT_TOTAL, OPT_ENCODING, OPT_STRICT, OPT_VERSION,
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

/* Loads every input; for flame charts the lines are kept in order too. */
static int load_inputs(char **inputs, int n, struct fk_stacks *raw, struct fk_seq *seq,
		       struct fk_diag *diag)
{
	for (int i = 0; i < n; i++)
		if (fk_load_stacktext(inputs[i], raw, seq, diag) != FK_INPUT_OK)
			return FK_EXIT_BAD_INPUT;
	return FK_EXIT_OK;
}

/* Rewrites *stacks into out with fo; seq and order (when given) follow the
 * new ids; order keeps the first place of stacks that merged. */
static bool rewrite(struct fk_stacks **stacks, struct fk_stacks *out, const struct fk_fold_opts *fo,
		    struct fk_seq *seq, uint32_t *order)
{
	uint32_t n = fk_stacks_count(*stacks);
	uint32_t *map = malloc((n + 1) * sizeof *map);
	if (!map || fk_fold(out, *stacks, fo, NULL, map) != FK_STACKS_OK) {
		free(map);
		return false;
	}
	if (seq)
		for (size_t i = 0; i < seq->count; i++)
			seq->items[i].stack = map[seq->items[i].stack];
	bool ok = true;
	if (order) {
		uint8_t *placed = calloc(fk_stacks_count(out) + 1, 1);
		uint32_t kept = 0;
		ok = placed != NULL;
		for (uint32_t i = 0; ok && i < n; i++) {
			uint32_t id = map[order[i]];
			if (id != FK_STRTAB_NONE && !placed[id]) {
				placed[id] = 1;
				order[kept++] = id;
			}
		}
		free(placed);
	}
	free(map);
	*stacks = out;
	return ok;
}

/* flamegraph.pl's stack rewrites, in its order: --reverse as lines are read
 * (before sorting), the chain palette's waker marks after sorting. */
static bool prepare(struct fk_stacks **stacks, struct fk_stacks *reversed, struct fk_stacks *chained,
		    struct fk_seq *seq, uint32_t **order, bool reverse, bool chain)
{
	struct fk_fold_opts rev = { .reverse = true }, wake = { .chain_wakers = true };
	if (reverse && !rewrite(stacks, reversed, &rev, seq, NULL))
		return false;
	if (!seq && !(*order = fk_stacks_sorted(*stacks, FK_ORDER_FLAME)))
		return false;
	return !chain || rewrite(stacks, chained, &wake, seq, seq ? NULL : *order);
}

int main(int argc, char **argv)
{
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
		{ "output", required_argument, NULL, 'o' },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	struct fk_flame_opts o;
	fk_flame_opts_defaults(&o);
	const char *output = NULL;
	bool reverse = false, hash = false, random = false;
	struct fk_diag diag;
	fk_diag_init(&diag, prog);
	long lv;

	int c;
	while ((c = getopt_long_only(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_TITLE: o.title = optarg; break;
		case OPT_SUBTITLE: o.subtitle = optarg; break;
		case OPT_WIDTH:
			if (!fk_cli_int(optarg, 21, 1000000, &lv))
				return fk_cli_usage_error(prog, "--width needs an integer from 21 to 1000000, not '%s'", optarg);
			o.width = lv;
			break;
		case OPT_HEIGHT:
			if (!fk_cli_int(optarg, 1, 10000, &lv))
				return fk_cli_usage_error(prog, "--height needs an integer from 1 to 10000, not '%s'", optarg);
			o.frameheight = lv;
			break;
		case OPT_MINWIDTH:
			if (!parse_minwidth(optarg, &o))
				return fk_cli_usage_error(prog, "--minwidth needs a number of pixels or a percentage (like 0.5%%), not '%s'", optarg);
			break;
		case OPT_FONTTYPE: o.fonttype = optarg; break;
		case OPT_FONTSIZE:
			if (!fk_cli_double(optarg, &o.fontsize) || o.fontsize <= 0 || o.fontsize > 1000)
				return fk_cli_usage_error(prog, "--fontsize needs a positive number, not '%s'", optarg);
			break;
		case OPT_FONTWIDTH:
			if (!fk_cli_double(optarg, &o.fontwidth) || o.fontwidth <= 0 || o.fontwidth > 100)
				return fk_cli_usage_error(prog, "--fontwidth needs a positive number, not '%s'", optarg);
			break;
		case OPT_COUNTNAME: o.countname = optarg; break;
		case OPT_NAMETYPE: o.nametype = optarg; break;
		case OPT_COLORS:
			if (!fk_palette_parse(optarg, &o.palette))
				return fk_cli_usage_error(prog, "unknown palette '%s' (hot, mem, io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, purple, orange)", optarg);
			break;
		case OPT_BGCOLORS:
			if (!valid_bgcolor(optarg))
				return fk_cli_usage_error(prog, "--bgcolors must be yellow, blue, green, grey or #rrggbb, not '%s'", optarg);
			o.bgcolors = optarg;
			break;
		case OPT_HASH: hash = true; break;
		case OPT_RANDOM: random = true; break;
		case OPT_CP: o.consistent_palette = true; break;
		case OPT_REVERSE: reverse = true; break;
		case OPT_INVERTED: o.inverted = true; break;
		case OPT_FLAMECHART: o.flamechart = true; break;
		case OPT_NEGATE: o.negate = true; break;
		case OPT_NOTES:
			if (strpbrk(optarg, "<>") || strstr(optarg, "--"))
				return fk_cli_usage_error(prog, "--notes cannot contain '<', '>' or '--'");
			o.notes = optarg;
			break;
		case OPT_FACTOR:
			if (!fk_cli_double(optarg, &o.factor) || o.factor <= 0)
				return fk_cli_usage_error(prog, "--factor needs a positive number, not '%s'", optarg);
			break;
		case OPT_TOTAL:
			if (!fk_cli_double(optarg, &o.total) || o.total < 0)
				return fk_cli_usage_error(prog, "--total needs a non-negative number, not '%s'", optarg);
			break;
		case OPT_ENCODING:
			if (!optarg[0] || strspn(optarg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-") != strlen(optarg))
				return fk_cli_usage_error(prog, "--encoding needs an encoding name like UTF-8, not '%s'", optarg);
			o.encoding = optarg;
			break;
		case 'o': output = optarg; break;
		case OPT_STRICT: diag.strict = true; break;
		case 'q': diag.quiet = true; break;
		case 'h': usage(stdout); return FK_EXIT_OK;
		case OPT_VERSION: printf("flamegraph (flamekit) %s\n", FK_VERSION); return FK_EXIT_OK;
		default: return fk_cli_usage_error(prog, "unknown, ambiguous or incomplete option");
		}
	}
	/* --hash wins over --random, as in flamegraph.pl. */
	o.color_mode = hash ? FK_COLOR_HASH : random ? FK_COLOR_RANDOM : FK_COLOR_NAME;
	static char *stdin_only[] = { "-", NULL };
	char **inputs = optind < argc ? argv + optind : stdin_only;
	int ninputs = optind < argc ? argc - optind : 1;

	struct fk_stacks raw = { 0 }, reversed = { 0 }, chained = { 0 };
	struct fk_seq seq = { 0 };
	uint32_t *order = NULL;
	int status = load_inputs(inputs, ninputs, &raw, o.flamechart ? &seq : NULL, &diag);
	fk_diag_summary(&diag);

	struct fk_stacks *stacks = &raw;
	if (status == FK_EXIT_OK &&
	    !prepare(&stacks, &reversed, &chained, o.flamechart ? &seq : NULL, &order, reverse,
		     o.palette == FK_PAL_CHAIN)) {
		fk_diag_error(&diag, "out of memory");
		status = FK_EXIT_BAD_INPUT;
	}
	if (status == FK_EXIT_OK) {
		FILE *out = fk_cli_open_output(prog, output);
		if (!out) {
			status = FK_EXIT_BAD_INPUT;
		} else {
			struct fk_flame_report rep;
			enum fk_flame_status fs = fk_flame_render(out, stacks, order, o.flamechart ? &seq : NULL, &o, &rep);
			if (fs == FK_FLAME_EMPTY) {
				fk_diag_error(&diag, "ERROR: No stack counts found");
				status = FK_EXIT_BAD_INPUT;
			} else if (fs == FK_FLAME_NOMEM) {
				fk_diag_error(&diag, "out of memory");
				status = FK_EXIT_BAD_INPUT;
			} else if (rep.warning[0]) {
				fk_diag_error(&diag, "%s", rep.warning);
			}
			if (fs == FK_FLAME_OK && o.total > 0 && o.total < rep.total && o.total / rep.total > 0.02) {
				fk_diag_error(&diag, "Specified --total %g is less than actual total %g, so ignored",
					      o.total, rep.total);
			}
			if (!fk_cli_close_output(prog, out, output))
				status = FK_EXIT_BAD_INPUT;
		}
	}
	free(order);
	fk_seq_free(&seq);
	fk_stacks_free(&raw);
	fk_stacks_free(&reversed);
	fk_stacks_free(&chained);
	return status;
}
