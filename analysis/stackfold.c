/* stackfold.c - the stackfold command: argument parsing only. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/capture/model.h"
#include "formats/cli.h"
#include "analysis/core/transform.h"
#include "analysis/core/folded_write.h"
#include "analysis/core/stackload.h"
#include "formats/perfscript.h"
#include "analysis/sym/symbolize.h"
#include "analysis/table/view.h"

static const char *prog = "stackfold";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stackfold [OPTIONS] [FILE...]\n"
"Fold stacks into aggregated folded text (\"frame;frame;leaf VALUE\", one line\n"
"per unique stack), the text flamegraph and flamegraph.pl read.\n"
"\n"
"Inputs: torch export_stacks files, folded stack files (\"stack VALUE\" or\n"
"differential \"stack BEFORE AFTER\"), gzip-compressed or not; stackcap captures\n"
"(symbolized here); '-' or no FILE reads standard input.\n"
"\n"
"Options:\n"
"  -o, --output FILE        write to FILE instead of standard output\n"
"      --sort=stack|value   order of the lines (default stack: by stack bytes,\n"
"                           like stackcollapse; value: largest first)\n"
"      --include REGEX      keep only stacks with a frame matching REGEX (PCRE;\n"
"                           may be repeated: any of them)\n"
"      --exclude REGEX      drop stacks with a frame matching REGEX (repeatable)\n"
"      --tag-files          put each input's file name at the root of its stacks\n"
"      --strip-addresses    drop run-specific addresses (torch's \"_at_0x7f..\",\n"
"                           other 0x<6+ hex digits> become \"0x...\") so runs merge\n"
"      --scale FACTOR       multiply every value by FACTOR (exact decimal)\n"
"      --min VALUE          omit stacks whose (scaled) value is below VALUE\n"
"      --strict             the first bad input line is an error\n"
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
"\n"
"perf script output (found by its look, or --input=perf), folded exactly as\n"
"FlameGraph's stackcollapse-perf.pl folds it, with its options:\n"
"      --input=auto|perf|stacks  the input's kind (default auto)\n"
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
"sum past 64 bits), 2 usage error. Bad lines are skipped and reported on\n"
"standard error as FILE:LINE: reason (the first 5, then a count).\n");
}

enum { OPT_SORT = 256, OPT_INCLUDE, OPT_EXCLUDE, OPT_TAG, OPT_STRIP, OPT_SCALE, OPT_MIN,
       OPT_STRICT, OPT_VERSION, OPT_METRIC, OPT_THREADS, OPT_INLINE, OPT_LINES, OPT_INFO, OPT_NO_KERNEL, OPT_NVTX, OPT_INPUT, OPT_PERF_PID, OPT_PERF_TID, OPT_PERF_KERNEL,
       OPT_PERF_JIT, OPT_PERF_ALL, OPT_PERF_ADDRS, OPT_PERF_EVENT, OPT_PERF_SRCLINE,
       OPT_PERF_CONTEXT, OPT_TABLE, OPT_BY, OPT_LIMIT, OPT_FORMAT };

enum input_kind { INPUT_AUTO, INPUT_PERF, INPUT_STACKS };

/* A stackcap capture into stacks; anything else is stack text. */
/* gpu: where a capture's GPU time goes as well (--table), or NULL. */
static enum fk_input_result load_input(const char *path, struct fk_stacks *into,
				       struct fk_stacks *gpu, bool *capture,
				       const struct fk_cap_fold_opts *co, bool info,
				       enum input_kind kind, const struct fk_perf_opts *po,
				       struct fk_diag *d)
{
	if (kind == INPUT_PERF || (kind == INPUT_AUTO && fk_perf_detect(path))) {
		if (co->sym_flags & FK_SYM_LINES) {
			fk_diag_error(d, "%s: --lines reads captures; for perf script input use "
				      "--inline --context, or --srcline", fk_input_display_name(path));
			return FK_INPUT_ERROR;
		}
		return fk_perf_load(path, po, into, d);
	}
	if (kind == INPUT_STACKS || !fk_cap_is_capture(path)) {
		if (info) {
			fk_diag_error(d, "%s: --info reads stackcap captures", fk_input_display_name(path));
			return FK_INPUT_ERROR;
		}
		return fk_load_stacktext(path, into, NULL, d);
	}
	struct fk_capture c;
	const char *name = fk_input_display_name(path);
	if (!(co->nvtx ? fk_capture_load_samples(path, name, &c, d) : fk_capture_load(path, name, &c, d)))
		return FK_INPUT_ERROR;
	bool ok = true;
	*capture = true;
	if (info)
		fk_capture_info(stdout, name, &c);
	else
		ok = fk_capture_fold(&c, co, into, d);
	if (ok && !info && gpu && c.nops) {
		struct fk_cap_fold_opts g = *co;
		g.metric = FK_METRIC_SELF_CUDA;
		ok = fk_capture_fold(&c, &g, gpu, d);
	}
	/* Counted as lines so an empty capture says "no stacks found". */
	into->lines += c.samples + c.nallocs + (gpu ? c.nops : 0);
	fk_capture_free(&c);
	return ok ? FK_INPUT_OK : FK_INPUT_ERROR;
}

#define MAX_PATTERNS 64

struct patterns {
	const char *list[MAX_PATTERNS];
	int count;
};

/* Repeated --include/--exclude patterns match as alternatives. Each is
 * checked alone first so an error names the pattern the user wrote. */
static struct fk_regex *compile_any(const struct patterns *p, const char *opt, int *status)
{
	char err[512];
	size_t len = 1;
	for (int i = 0; i < p->count; i++) {
		struct fk_regex *one = fk_regex_compile(p->list[i], err, sizeof err);
		if (!one) {
			*status = fk_cli_usage_error(prog, "%s: %s", opt, err);
			return NULL;
		}
		fk_regex_free(one);
		len += strlen(p->list[i]) + 6;
	}
	char *joined = malloc(len);
	if (!joined) {
		*status = FK_EXIT_BAD_INPUT;
		return NULL;
	}
	joined[0] = '\0';
	for (int i = 0; i < p->count; i++) {
		strcat(joined, i ? "|(?:" : "(?:");
		strcat(joined, p->list[i]);
		strcat(joined, ")");
	}
	struct fk_regex *re = fk_regex_compile(joined, err, sizeof err);
	if (!re)
		*status = fk_cli_usage_error(prog, "%s: %s", opt, err);
	free(joined);
	return re;
}

static bool add_pattern(struct patterns *p, const char *pattern)
{
	if (p->count == MAX_PATTERNS)
		return false;
	p->list[p->count++] = pattern;
	return true;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "sort", required_argument, NULL, OPT_SORT },
		{ "include", required_argument, NULL, OPT_INCLUDE },
		{ "exclude", required_argument, NULL, OPT_EXCLUDE },
		{ "tag-files", no_argument, NULL, OPT_TAG },
		{ "strip-addresses", no_argument, NULL, OPT_STRIP },
		{ "scale", required_argument, NULL, OPT_SCALE },
		{ "min", required_argument, NULL, OPT_MIN },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "metric", required_argument, NULL, OPT_METRIC },
		{ "threads", no_argument, NULL, OPT_THREADS },
		{ "no-kernel-frames", no_argument, NULL, OPT_NO_KERNEL },
		{ "nvtx", no_argument, NULL, OPT_NVTX },
		{ "input", required_argument, NULL, OPT_INPUT },
		{ "pid", no_argument, NULL, OPT_PERF_PID },
		{ "tid", no_argument, NULL, OPT_PERF_TID },
		{ "kernel", no_argument, NULL, OPT_PERF_KERNEL },
		{ "jit", no_argument, NULL, OPT_PERF_JIT },
		{ "all", no_argument, NULL, OPT_PERF_ALL },
		{ "addrs", no_argument, NULL, OPT_PERF_ADDRS },
		{ "event-filter", required_argument, NULL, OPT_PERF_EVENT },
		{ "srcline", no_argument, NULL, OPT_PERF_SRCLINE },
		{ "context", no_argument, NULL, OPT_PERF_CONTEXT },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "info", no_argument, NULL, OPT_INFO },
		{ "table", no_argument, NULL, OPT_TABLE },
		{ "by", required_argument, NULL, OPT_BY },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ 0 },
	};
	const char *output = NULL;
	enum fk_stacks_order order = FK_ORDER_STACK;
	struct patterns include = { 0 }, exclude = { 0 };
	bool tag_files = false;
	struct fk_fold_opts fo = { 0 };
	struct fk_num min = { 0 };
	struct fk_cap_fold_opts co = { .metric = FK_METRIC_SELF_CPU };
	bool info = false;
	enum input_kind kind = INPUT_AUTO;
	struct fk_perf_opts po = { 0 };
	bool table = false, table_opts = false;
	const char *sort = NULL;
	struct fk_tableview_opts tv = { .limit = 100 };
	struct fk_diag diag;
	fk_diag_init(&diag, prog);

	int c;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case OPT_SORT: sort = optarg; break;
		case OPT_TABLE: table = true; break;
		case OPT_BY:
			table_opts = true;
			if (strcmp(optarg, "frame") == 0)
				tv.by = FK_TABLE_BY_FRAME;
			else if (strcmp(optarg, "leaf") == 0)
				tv.by = FK_TABLE_BY_LEAF;
			else if (strcmp(optarg, "kernel") == 0)
				tv.by = FK_TABLE_BY_KERNEL;
			else
				return fk_cli_usage_error(prog, "--by: '%s' is not frame, leaf or kernel", optarg);
			break;
		case OPT_LIMIT: {
			long n;
			table_opts = true;
			if (!fk_cli_int(optarg, 0, 1000000000L, &n))
				return fk_cli_usage_error(prog, "--limit needs a row count (0: all), not '%s'", optarg);
			tv.limit = (size_t)n;
			break;
		}
		case OPT_FORMAT:
			table_opts = true;
			if (strcmp(optarg, "text") == 0)
				tv.format = FK_TOPTABLE_TEXT;
			else if (strcmp(optarg, "csv") == 0)
				tv.format = FK_TOPTABLE_CSV;
			else if (strcmp(optarg, "json") == 0)
				tv.format = FK_TOPTABLE_JSON;
			else
				return fk_cli_usage_error(prog, "--format: '%s' is not text, csv or json", optarg);
			break;
		case OPT_INCLUDE:
		case OPT_EXCLUDE:
			if (!add_pattern(c == OPT_INCLUDE ? &include : &exclude, optarg))
				return fk_cli_usage_error(prog, "at most %d --include and %d --exclude patterns",
							  MAX_PATTERNS, MAX_PATTERNS);
			break;
		case OPT_TAG: tag_files = true; break;
		case OPT_STRIP: fo.strip_addresses = true; break;
		case OPT_SCALE:
			if (!fk_cli_num(optarg, &fo.scale))
				return fk_cli_usage_error(prog, "--scale needs a non-negative decimal number, not '%s'", optarg);
			fo.scaled = true;
			break;
		case OPT_MIN:
			if (!fk_cli_num(optarg, &min))
				return fk_cli_usage_error(prog, "--min needs a non-negative decimal number, not '%s'", optarg);
			break;
		case OPT_STRICT: diag.strict = true; break;
		case OPT_METRIC:
			tv.metric_given = true;
			if (!fk_cap_metric_parse(optarg, &co.metric))
				return fk_cli_usage_error(prog, "--metric: '%s' is not self_cpu_time_total, "
							  "samples, alloc_bytes, alloc_count, "
							  "self_cuda_time_total or gpu_alloc_bytes", optarg);
			break;
		case OPT_THREADS: co.threads = true; break;
		case OPT_NO_KERNEL: co.no_kernel_frames = true; break;
		case OPT_NVTX: co.nvtx = true; break;
		case OPT_INPUT:
			if (strcmp(optarg, "perf") == 0)
				kind = INPUT_PERF;
			else if (strcmp(optarg, "stacks") == 0)
				kind = INPUT_STACKS;
			else if (strcmp(optarg, "auto") == 0)
				kind = INPUT_AUTO;
			else
				return fk_cli_usage_error(prog, "--input: '%s' is not auto, perf or stacks", optarg);
			break;
		case OPT_PERF_PID: po.pid = true; break;
		case OPT_PERF_TID: po.tid = true; break;
		case OPT_PERF_KERNEL: po.kernel = true; break;
		case OPT_PERF_JIT: po.jit = true; break;
		case OPT_PERF_ALL: po.kernel = po.jit = true; break;
		case OPT_PERF_ADDRS: po.addrs = true; break;
		case OPT_PERF_EVENT: po.event_filter = optarg; break;
		case OPT_PERF_SRCLINE: po.srcline = true; break;
		case OPT_PERF_CONTEXT: po.context = true; break;
		case OPT_INLINE:
			co.sym_flags |= FK_SYM_INLINE;
			po.inlined = true;
			break;
		case OPT_LINES: co.sym_flags |= FK_SYM_LINES; break;
		case OPT_INFO: info = true; break;
		case 'q': diag.quiet = true; break;
		case 'h': usage(stdout); return FK_EXIT_OK;
		case OPT_VERSION: printf("stackfold (flamekit) %s\n", FK_VERSION); return FK_EXIT_OK;
		default: return fk_cli_usage_error(prog, "unknown or incomplete option");
		}
	}
	if (table_opts && !table)
		return fk_cli_usage_error(prog, "--by, --limit and --format shape a --table");
	if (sort && !table) {
		if (strcmp(sort, "stack") == 0)
			order = FK_ORDER_STACK;
		else if (strcmp(sort, "value") == 0)
			order = FK_ORDER_VALUE;
		else
			return fk_cli_usage_error(prog, "--sort must be 'stack' or 'value', not '%s'", sort);
	}
	if (table && info)
		return fk_cli_usage_error(prog, "--table and --info are two different reports");
	if (table) {
		if (sort && !fk_tableview_sort_known(sort))
			return fk_cli_usage_error(prog, "--sort: '%s' is not a table column (self, total, "
						  "calls, avg, name, or torch's names: see --help)", sort);
		tv.sort = sort;
		tv.metric = co.metric;
		co.metric = fk_tableview_capture_metric(co.metric);
	}
	int status = FK_EXIT_OK;
	if (include.count && !(fo.include = compile_any(&include, "--include", &status)))
		return status;
	if (exclude.count && !(fo.exclude = compile_any(&exclude, "--exclude", &status))) {
		fk_regex_free(fo.include);
		return status;
	}
	bool transform = fo.strip_addresses || fo.include || fo.exclude || fo.scaled || tag_files;

	static char *stdin_only[] = { "-", NULL };
	char **inputs = optind < argc ? argv + optind : stdin_only;
	int ninputs = optind < argc ? argc - optind : 1;

	struct fk_stacks result = { 0 }, gpu = { 0 };
	struct fk_fold_stats stats = { 0 };
	for (int i = 0; i < ninputs && status == FK_EXIT_OK; i++) {
		/* Tagged inputs are read one table each so the tag can differ;
		 * otherwise everything aggregates in one table, folded once. */
		struct fk_stacks one = { 0 }, one_gpu = { 0 };
		struct fk_stacks *into = transform ? &one : &result;
		struct fk_stacks *gpu_into = !table || !fk_tableview_wants_gpu(tv.metric) ? NULL
					     : transform ? &one_gpu : &gpu;
		uint64_t lines_before = into->lines;
		if (load_input(inputs[i], into, gpu_into, &tv.capture, &co, info, kind, &po, &diag) !=
		    FK_INPUT_OK)
			status = FK_EXIT_BAD_INPUT;
		else if (into->lines == lines_before && !diag.quiet)
			fprintf(stderr, "%s: %s: no stacks found\n", prog,
				fk_input_display_name(inputs[i]));
		if (status == FK_EXIT_OK && transform) {
			fo.root = tag_files ? fk_input_display_name(inputs[i]) : NULL;
			enum fk_stacks_status st = fk_fold(&result, &one, &fo, &stats, NULL);
			if (st == FK_STACKS_OK && table)
				st = fk_fold(&gpu, &one_gpu, &fo, &stats, NULL);
			if (st != FK_STACKS_OK) {
				fk_diag_error(&diag, "%s", st == FK_STACKS_OVERFLOW
					      ? "scaled or merged value passes 64 bits or 18 decimals"
					      : st == FK_STACKS_MATCH_FAILED
					      ? "an --include/--exclude pattern could not be matched (PCRE2 match limit): simplify it"
					      : "out of memory");
				status = FK_EXIT_BAD_INPUT;
			}
		}
		fk_stacks_free(&one);
		fk_stacks_free(&one_gpu);
	}
	fk_diag_summary(&diag);

	if (status == FK_EXIT_OK && table) {
		FILE *out = fk_cli_open_output(prog, output);
		char why[160];
		int st = out ? fk_tableview_write(out, &result, &gpu, &tv, why, sizeof why) : 1;
		if (st == 2)
			status = fk_cli_usage_error(prog, "%s", why);
		else if (st != 0)
			status = FK_EXIT_BAD_INPUT;
		if (out && !fk_cli_close_output(prog, out, output))
			status = FK_EXIT_BAD_INPUT;
	} else if (status == FK_EXIT_OK && !info) {
		FILE *out = fk_cli_open_output(prog, output);
		uint32_t *ids = fk_stacks_sorted(&result, order);
		if (!out || !ids) {
			status = FK_EXIT_BAD_INPUT;
		} else {
			struct fk_folded_opts wo = { .order = ids, .count = fk_stacks_count(&result), .min = min };
			uint64_t written;
			fk_folded_write(out, &result, &wo, &written);
			if (written == 0 && stats.filtered > 0 && !diag.quiet)
				fprintf(stderr, "%s: all %llu stacks were removed by --include/--exclude\n",
					prog, (unsigned long long)stats.filtered);
			if (!fk_cli_close_output(prog, out, output))
				status = FK_EXIT_BAD_INPUT;
		}
		free(ids);
	}
	fk_stacks_free(&result);
	fk_stacks_free(&gpu);
	fk_regex_free(fo.include);
	fk_regex_free(fo.exclude);
	return status;
}
