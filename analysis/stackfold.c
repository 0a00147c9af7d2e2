/* stackfold.c - the stackfold command: argument parsing only. */
#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/sym/symbolize.h"
#include "formats/cli.h"
#include "render/stackfold_run.h"

static const char *prog = "stackfold";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stackfold [OPTIONS] [FILE...]\n"
"Fold stacks into aggregated folded text (\"frame;frame;leaf VALUE\", one line\n"
"per unique stack), the text flamegraph and flamegraph.pl read.\n"
"\n"
"Inputs: torch export_stacks files, folded stack files (\"stack VALUE\" or\n"
"differential \"stack BEFORE AFTER\"), perf script output, stackcap captures\n"
"(symbolized here); gzip-compressed or not, files or pipes, each kind told from\n"
"its first bytes; '-' or no FILE reads standard input.\n"
"torch.profiler Chrome/Kineto traces: self CPU time of nested CPU events, or\n"
"--metric self_cuda_time_total (GPU time per launching stack), --table,\n"
"--no-kernel-frames, --threads, --nvtx (a root per ProfilerStep#N),\n"
"--tag-files (\"rank N\"), --join-backward (backward ops under the stack of\n"
"their forward op, through fwdbwd flows); see README.md.\n"
"\n"
"Options:\n"
"  -o, --output FILE        write to FILE instead of standard output\n"
"      --sort=stack|value   order of the lines (default stack: by stack bytes,\n"
"                           like stackcollapse; value: largest first)\n"
"      --include REGEX      keep only stacks with a frame matching REGEX (PCRE;\n"
"                           may be repeated: any of them)\n"
"      --exclude REGEX      drop stacks with a frame matching REGEX (repeatable)\n"
"      --diff BEFORE AFTER  \"stack BEFORE_VALUE AFTER_VALUE\" lines for a\n"
"                           differential flame graph, as difffolded.pl writes\n"
"                           them, from any two inputs stackfold reads\n"
"      --normalize          with --diff: BEFORE's values scaled to AFTER's total\n"
"                           (difffolded.pl -n)\n"
"      --strip-hex          every 0x... hex number made \"0x...\" (difffolded.pl -s)\n"
"      --tag-files          put each input's name (basename, or the path parts\n"
"                           that tell it from the others) at the root\n"
"      --strip-addresses    drop run-specific addresses (torch's \"_at_0x7f..\",\n"
"                           other 0x<6+ hex digits> become \"0x...\") so runs merge\n"
"      --scale FACTOR       multiply every value by FACTOR (exact decimal)\n"
"      --min VALUE          omit stacks whose (scaled) value is below VALUE\n"
"      --strict             the first bad input line is an error\n"
"      --format=folded|speedscope|pprof  folded text (default); speedscope's\n"
"                           JSON (one sampled profile per metric, and for\n"
"                           captures each thread in time order); or gzipped pprof\n"
"                           (profile.proto) with every metric as a sample\n"
"                           type. Captures without --metric: every metric\n"
"                           they have (CPU time and samples, GPU time,\n"
"                           allocations); torch stacks: us of CPU time\n"
"\n"
"A top table instead of folded text (torch's key_averages().table):\n"
"      --table              one row per frame name: self and total (inclusive,\n"
"                           once per stack) values and shares; for captures CPU\n"
"                           and CUDA time side by side, with kernel launches as\n"
"                           # of Calls; for torch export_stacks files, --metric\n"
"                           self_cpu_time_total (or self_cuda_time_total) says\n"
"                           the values are times, one line per op call\n"
"      --by=frame|leaf|kernel  rows for every frame (default), for frames some\n"
"                           stack ends in, or for GPU kernels (captures)\n"
"      --sort=KEY           self (default), total, calls, avg, name, or torch's\n"
"                           self_cpu_time_total, cpu_time_total, cuda_time_total,\n"
"                           self_cuda_time_total, cpu_time, cuda_time, count, ...\n"
"      --limit=N            at most N rows (default 100, as torch; 0: all)\n"
"      --format=text|csv|json  torch's text (default), or fields for scripts\n"
"\n"
"Captures (stackcap):\n"
"      --metric NAME        self_cpu_time_total (default: us of CPU, like torch),\n"
"                           samples, alloc_bytes, alloc_count (stackcap --alloc),\n"
"                           self_cuda_time_total (us of GPU time per launching\n"
"                           stack, the kernel or [memcpy ...] as the leaf),\n"
"                           gpu_alloc_bytes\n"
"      --no-kernel-frames   GPU time without the kernel leaf frames\n"
"      --nvtx               the NVTX ranges open on the thread (push/pop) as the\n"
"                           root frames of each stack\n"
"      --threads            a \"name-tid\" root frame for each thread\n"
"      --inline             inlined functions as frames of their own (\"_[i]\")\n"
"      --lines              \"function (file.c:12)\" frames, where DWARF knows\n"
"      --info               print each capture's summary (stackcap info) instead\n"
FK_PY_HELP
"\n"
"perf script output (found by its look, or --input=perf), folded exactly as\n"
"FlameGraph's stackcollapse-perf.pl folds it, with its options:\n"
"      --input=KIND         every input's kind, not told from its first bytes:\n"
"                           stacks, perf, capture or dtrace (default auto)\n"
"      --pid, --tid         \"comm-pid\", \"comm-pid/tid\" root frames\n"
"      --kernel, --jit, --all  _[k] on kernel frames, _[j] on JIT frames\n"
"      --addrs              \"[module <address>]\" for unknown symbols\n"
"      --event-filter=EVENT keep EVENT samples (default: the first event seen)\n"
"      --srcline            input from perf script -F+srcline: add file:line\n"
"      --inline             each frame as the functions inlined at its address,\n"
"                           as addr2line -i names them (read from the binaries\n"
"                           and their debug files; addr2line is not run)\n"
"      --context            with --inline: \"function:file.c:12\" frames\n"
"  -q, --quiet              do not report bad lines (they are still skipped)\n"
"  -h, --help               show this help\n"
"      --version            show the version\n"
"\n"
"Environment: FLAMEKIT_THREADS=N reads large files with N threads (default:\n"
"the number of CPUs, at most 8); the result is the same for any N.\n"
"\n"
"Exit status: 0 success, 1 bad input (unreadable file, --strict bad line, a\n"
"sum past 128 bits), 2 usage error. Bad lines are skipped and reported on\n"
"standard error as FILE:LINE: reason (the first 5, then a count).\n");
}

/* Options that only set a flag: each is FLAG_BASE + its index here. */
#define FLAG_BASE 1000
#define OPT(field) offsetof(struct fk_stackfold_opts, field)
static const struct {
	const char *name;
	size_t field, also; /* the bool set; also: a second one, or 0 */
} flag_opts[] = {
	{ "tag-files", OPT(tag_files), 0 },
	{ "strip-addresses", OPT(strip_addresses), 0 },
	{ "strip-hex", OPT(strip_hex), 0 },
	{ "diff", OPT(diff), 0 },
	{ "normalize", OPT(normalize), 0 },
	{ "table", OPT(table), 0 },
	{ "threads", OPT(read.capture.threads), 0 },
	{ "no-kernel-frames", OPT(read.capture.no_kernel_frames), 0 },
	{ "nvtx", OPT(read.capture.nvtx), 0 },
	{ "join-backward", OPT(read.join_backward), 0 },
	{ "pid", OPT(read.perf.pid), 0 },
	{ "tid", OPT(read.perf.tid), 0 },
	{ "kernel", OPT(read.perf.kernel), 0 },
	{ "jit", OPT(read.perf.jit), 0 },
	{ "all", OPT(read.perf.kernel), OPT(read.perf.jit) },
	{ "addrs", OPT(read.perf.addrs), 0 },
	{ "srcline", OPT(read.perf.srcline), 0 },
	{ "context", OPT(read.perf.context), 0 },
};
#define NFLAGS (sizeof flag_opts / sizeof flag_opts[0])
/* The --python-* options (analysis/capture/pynames.h): PY_BASE + FK_PY_OPT_*. */
#define PY_BASE 2000

enum { OPT_SORT = 256, OPT_INCLUDE, OPT_EXCLUDE, OPT_SCALE, OPT_MIN, OPT_STRICT, OPT_VERSION,
       OPT_METRIC, OPT_INLINE, OPT_LINES, OPT_INFO, OPT_INPUT, OPT_EVENT, OPT_BY, OPT_LIMIT,
       OPT_FORMAT };

static const struct option value_opts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "sort", required_argument, NULL, OPT_SORT },
	{ "include", required_argument, NULL, OPT_INCLUDE },
	{ "exclude", required_argument, NULL, OPT_EXCLUDE },
	{ "scale", required_argument, NULL, OPT_SCALE },
	{ "min", required_argument, NULL, OPT_MIN },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "event-filter", required_argument, NULL, OPT_EVENT },
	{ "inline", no_argument, NULL, OPT_INLINE },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "info", no_argument, NULL, OPT_INFO },
	{ "by", required_argument, NULL, OPT_BY },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
};
#define NVALUES (sizeof value_opts / sizeof value_opts[0])

/* The value of one option that takes one; a usage error status, or 0. */
static int take_value(int c, const char *arg, struct fk_stackfold_opts *o, const char **sort,
		      bool *table_opts)
{
	struct fk_tableview_opts *tv = &o->tableview;
	long n;
	switch (c) {
	case 'o': o->output = arg; return 0;
	case OPT_SORT: *sort = arg; return 0;
	case OPT_INCLUDE:
	case OPT_EXCLUDE: {
		size_t *count = c == OPT_INCLUDE ? &o->ninclude : &o->nexclude;
		if (*count == FK_STACKFOLD_MAX_PATTERNS)
			return fk_cli_usage_error(prog, "at most %d --include and %d --exclude patterns",
						  FK_STACKFOLD_MAX_PATTERNS, FK_STACKFOLD_MAX_PATTERNS);
		(c == OPT_INCLUDE ? o->include : o->exclude)[(*count)++] = arg;
		return 0;
	}
	case OPT_SCALE:
		o->scaled = true;
		return fk_cli_num(arg, &o->scale) ? 0
			: fk_cli_usage_error(prog, "--scale needs a non-negative decimal number, not '%s'", arg);
	case OPT_MIN:
		return fk_cli_num(arg, &o->min) ? 0
			: fk_cli_usage_error(prog, "--min needs a non-negative decimal number, not '%s'", arg);
	case OPT_METRIC:
		tv->metric_given = true;
		return fk_cap_metric_parse(arg, &o->read.capture.metric) ? 0
			: fk_cli_usage_error(prog, "--metric: '%s' is not self_cpu_time_total, samples, "
					     "alloc_bytes, alloc_count, self_cuda_time_total or "
					     "gpu_alloc_bytes", arg);
	case OPT_INPUT:
		o->read.kind_given = strcmp(arg, "auto") != 0;
		if (!o->read.kind_given ||
		    (fk_input_kind_parse(arg, &o->read.kind) &&
		     (o->read.kind <= FK_KIND_CAPTURE || o->read.kind == FK_KIND_DTRACE)))
			return 0;
		return fk_cli_usage_error(prog, "--input: '%s' is not auto, stacks, perf, capture or dtrace",
					  arg);
	case OPT_EVENT: o->read.perf.event_filter = arg; return 0;
	case OPT_BY:
		*table_opts = true;
		if (strcmp(arg, "frame") == 0)
			tv->by = FK_TABLE_BY_FRAME;
		else if (strcmp(arg, "leaf") == 0)
			tv->by = FK_TABLE_BY_LEAF;
		else if (strcmp(arg, "kernel") == 0)
			tv->by = FK_TABLE_BY_KERNEL;
		else
			return fk_cli_usage_error(prog, "--by: '%s' is not frame, leaf or kernel", arg);
		return 0;
	case OPT_LIMIT:
		*table_opts = true;
		if (!fk_cli_int(arg, 0, 1000000000L, &n))
			return fk_cli_usage_error(prog, "--limit needs a row count (0: all), not '%s'", arg);
		tv->limit = (size_t)n;
		return 0;
	case OPT_FORMAT:
		*table_opts = true;
		if (strcmp(arg, "folded") == 0 || strcmp(arg, "speedscope") == 0 ||
		    strcmp(arg, "pprof") == 0) {
			*table_opts = false;
			o->format = arg[0] == 'f' ? FK_STACKFOLD_FOLDED
				    : arg[0] == 's' ? FK_STACKFOLD_SPEEDSCOPE : FK_STACKFOLD_PPROF;
		} else if (strcmp(arg, "text") == 0)
			tv->format = FK_TOPTABLE_TEXT;
		else if (strcmp(arg, "csv") == 0)
			tv->format = FK_TOPTABLE_CSV;
		else if (strcmp(arg, "json") == 0)
			tv->format = FK_TOPTABLE_JSON;
		else
			return fk_cli_usage_error(prog, "--format: '%s' is not folded, speedscope or pprof "
						  "(folded stacks), nor text, csv or json (--table)", arg);
		return 0;
	}
	return fk_cli_usage_error(prog, "unknown or incomplete option");
}

/* Checks that need every option: which sort, which report. */
static int check_combination(struct fk_stackfold_opts *o, const char *sort, bool table_opts)
{
	if (table_opts && !o->table)
		return fk_cli_usage_error(prog, "--by, --limit and --format text|csv|json shape a --table");
	if (o->format != FK_STACKFOLD_FOLDED) {
		const char *f = o->format == FK_STACKFOLD_PPROF ? "pprof" : "speedscope";
		if (o->table || o->read.info || o->diff)
			return fk_cli_usage_error(prog, "--format %s writes the folded stacks as a "
						  "profile: not with --table, --info or --diff", f);
		if (sort || fk_num_cmp(o->min, (struct fk_num){ 0, 0 }) != 0)
			return fk_cli_usage_error(prog, "--sort and --min shape folded text; %s "
						  "keeps every stack (its viewer sorts)", f);
		if (o->format == FK_STACKFOLD_PPROF && (!o->output || strcmp(o->output, "-") == 0) &&
		    isatty(STDOUT_FILENO))
			return fk_cli_usage_error(prog, "--format pprof writes gzipped binary: "
						  "-o FILE.pb.gz, or redirect standard output");
	}
	if (o->table && o->read.info)
		return fk_cli_usage_error(prog, "--table and --info are two different reports");
	if (!sort)
		return 0;
	if (o->table) {
		if (!fk_tableview_sort_known(sort))
			return fk_cli_usage_error(prog, "--sort: '%s' is not a table column (self, total, "
						  "calls, avg, name, or torch's names: see --help)", sort);
		o->tableview.sort = sort;
	} else if (strcmp(sort, "stack") == 0) {
		o->order = FK_ORDER_STACK;
	} else if (strcmp(sort, "value") == 0) {
		o->order = FK_ORDER_VALUE;
	} else {
		return fk_cli_usage_error(prog, "--sort must be 'stack' or 'value', not '%s'", sort);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct option longopts[NVALUES + NFLAGS + FK_PY_NOPTS + 1];
	memcpy(longopts, value_opts, sizeof value_opts);
	for (size_t i = 0; i < NFLAGS; i++)
		longopts[NVALUES + i] = (struct option){ flag_opts[i].name, no_argument, NULL,
							 FLAG_BASE + (int)i };
	fk_py_options(longopts + NVALUES + NFLAGS, PY_BASE);
	longopts[NVALUES + NFLAGS + FK_PY_NOPTS] = (struct option){ 0 };

	struct fk_stackfold_opts o;
	fk_stackfold_opts_defaults(&o);
	struct fk_diag diag;
	fk_diag_init(&diag, prog);
	const char *sort = NULL;
	bool table_opts = false;
	int c, status;
	opterr = 0; /* fk_cli_bad_option says it once */
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		if (c >= PY_BASE && c < PY_BASE + FK_PY_NOPTS) {
			const char *wrong = fk_py_option(&o.read.capture.python, c - PY_BASE, optarg);
			if (wrong)
				return fk_cli_usage_error(prog, "%s, not '%s'", wrong, optarg ? optarg : "");
			continue;
		}
		if (c >= FLAG_BASE && c < FLAG_BASE + (int)NFLAGS) {
			char *base = (char *)&o;
			*(bool *)(base + flag_opts[c - FLAG_BASE].field) = true;
			if (flag_opts[c - FLAG_BASE].also)
				*(bool *)(base + flag_opts[c - FLAG_BASE].also) = true;
			continue;
		}
		switch (c) {
		case OPT_STRICT: diag.strict = true; continue;
		case 'q': diag.quiet = true; continue;
		case OPT_INLINE: /* captures and perf script alike */
			o.read.capture.sym_flags |= FK_SYM_INLINE;
			o.read.perf.inlined = true;
			continue;
		case OPT_LINES: o.read.capture.sym_flags |= FK_SYM_LINES; continue;
		case OPT_INFO: o.read.info = stdout; continue;
		case '?': return fk_cli_bad_option(prog, argv, "o:qh", longopts);
		case 'h': usage(stdout); return FK_EXIT_OK;
		case OPT_VERSION: printf("stackfold (flamekit) %s\n", FK_VERSION); return FK_EXIT_OK;
		}
		if ((status = take_value(c, optarg, &o, &sort, &table_opts)) != 0)
			return status;
	}
	if ((status = check_combination(&o, sort, table_opts)) != 0)
		return status;
	o.inputs = argv + optind;
	o.ninputs = (size_t)(argc - optind);
	if (o.diff && o.ninputs != 2)
		return fk_cli_usage_error(prog, "--diff compares two inputs, BEFORE and AFTER (%zu given)",
					  o.ninputs);
	if (o.diff && (o.table || o.tag_files || o.read.info))
		return fk_cli_usage_error(prog, "--diff writes folded text: not with --table, "
					  "--tag-files or --info");
	if (o.normalize && !o.diff)
		return fk_cli_usage_error(prog, "--normalize scales --diff's BEFORE counts");
	status = fk_stackfold_run(&o, &diag);
	return status == FK_EXIT_USAGE ? fk_cli_usage_hint(prog) : status;
}
