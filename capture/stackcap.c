/* stackcap.c - the stackcap command: argument parsing, then either running
 * a program with libstackcap.so preloaded, printing a capture's summary, or
 * exporting captures as a Chrome / Perfetto trace.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analysis/capture/model.h"
#include "analysis/sym/symbolize.h"
#include "capture/launch.h"
#include "formats/cli.h"
#include "formats/input.h"
#include "render/export_run.h"

static const char *prog = "stackcap";

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stackcap [OPTIONS] [--] PROGRAM [ARGS...]\n"
"       stackcap info FILE...\n"
"       stackcap export --chrome OUT.json[.gz] CAPTURE...\n"
"Runs PROGRAM with libstackcap.so preloaded: every thread's native stack is\n"
"sampled on its own CPU-time clock (in a Python program, with its Python\n"
"frames), and with --alloc every host allocation is\n"
"recorded, into PROGRAM.<pid>.stackcap (crash-tolerant: a killed run keeps all\n"
"but its last ~100 ms). Fold it with `stackfold FILE`, draw the heap with\n"
"`memtimeline --device cpu FILE`, summarize it with `stackcap info FILE`,\n"
"open it as a timeline with `stackcap export --chrome t.json FILE`.\n"
"CUDA programs need nothing more: kernel, copy and set times and GPU\n"
"allocations are recorded with the host stacks that launched them (CUPTI), and\n"
"NVTX ranges with their threads (stackfold --metric self_cuda_time_total,\n"
"--nvtx; memtimeline --device cuda:N).\n"
"\n"
"Options:\n"
"  -o, --output FILE     the capture of PROGRAM (its children: FILE.<pid>)\n"
"  -F, --freq HZ         samples per second of CPU time per thread (default 999;\n"
"                        0 samples nothing)\n"
"      --alloc           record malloc, calloc, realloc, free, posix_memalign,\n"
"                        aligned_alloc, memalign, valloc, pvalloc with stacks\n"
"      --alloc-sample BYTES  record allocations sampled by bytes (Poisson, mean\n"
"                        BYTES): for allocation-heavy programs; the analysis\n"
"                        scales them back (implies --alloc)\n"
"      --alloc-drop      when a thread's event ring is full, drop allocation\n"
"                        events (counted, and reported by every reader)\n"
"                        instead of making the thread wait for the writer\n"
"      --fp              unwind with frame pointers (faster, but stops at code\n"
"                        built without them) instead of libunwind\n"
"      --no-follow       do not capture programs PROGRAM executes (forked\n"
"                        children are always captured, each to its own file)\n"
"      --no-python       native stacks only in a Python program (by default\n"
"                        CPython 3.11-3.13 frames replace the interpreter's)\n"
"  -h, --help            show this help\n"
"      --version         show the version\n"
"\n"
"The same settings work as environment variables, for launchers (torchrun,\n"
"mpirun) that start the processes themselves:\n"
"  LD_PRELOAD=/path/to/libstackcap.so STACKCAP_OUTPUT=run.%%p.stackcap\n"
"  STACKCAP_HZ=999 STACKCAP_ALLOC=1 STACKCAP_ALLOC_SAMPLE=BYTES STACKCAP_UNWIND=fp\n"
"  STACKCAP_ALLOC_DROP=1\n"
"  STACKCAP_FOLLOW=0 STACKCAP_PYTHON=0 (%%p in STACKCAP_OUTPUT becomes the\n"
"  process id)\n"
"\n"
"Exit status: PROGRAM's (128+N when a signal N ended it); 2 usage error;\n"
"127 when PROGRAM is not found, 126 when it is a directory or not executable.\n");
}

static int info(int argc, char **argv)
{
	if (argc < 1)
		return fk_cli_usage_error(prog, "info needs a capture file");
	struct fk_diag d;
	fk_diag_init(&d, prog);
	int status = FK_EXIT_OK;
	for (int i = 0; i < argc; i++) {
		struct fk_capture c;
		const char *name = fk_input_display_name(argv[i]);
		if (!fk_capture_load(argv[i], name, &c, &d)) {
			status = FK_EXIT_BAD_INPUT;
			continue;
		}
		fk_capture_info(stdout, name, &c);
		fk_capture_free(&c);
	}
	return status;
}

static void export_usage(FILE *f)
{
	fprintf(f,
"Usage: stackcap export --chrome OUT.json[.gz] [OPTIONS] CAPTURE...\n"
"Writes captures as one Chrome / Perfetto trace: each thread's CPU samples as\n"
"nested slices (consecutive samples sharing frames share their slices), CUDA\n"
"API calls with their host stacks, kernels, copies and sets per device and\n"
"stream with flows from their launches, NVTX ranges, host and GPU memory as\n"
"counters and torch's [memory] events. Open it in https://ui.perfetto.dev\n"
"(\"Open trace file\") or chrome://tracing; stackfold reads it back. Frames\n"
"are named as stackfold names them, with the same naming options.\n"
"\n"
"Options:\n"
"      --chrome FILE        the trace (gzip when FILE ends in .gz; - for stdout)\n"
"      --inline             inlined functions as frames of their own (\"_[i]\")\n"
"      --lines              \"function (file.c:12)\" frames, where DWARF knows\n"
FK_PY_HELP
"      --strict             a capture that lost anything is an error\n"
"  -q, --quiet              do not report losses and notes\n"
"  -h, --help               show this help\n"
"\n"
"Exit status: 0 written; 1 a capture cannot be read (or, with --strict, lost\n"
"something) or the trace cannot be written (nothing is left behind); 2 usage.\n");
}

static int export_cmd(int argc, char **argv)
{
	enum { OPT_CHROME = 256, OPT_STRICT, OPT_INLINE, OPT_LINES, PY_BASE };
	static const struct option own[] = {
		{ "chrome", required_argument, NULL, OPT_CHROME },
		{ "strict", no_argument, NULL, OPT_STRICT },
		{ "inline", no_argument, NULL, OPT_INLINE },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
	};
	enum { NOWN = sizeof own / sizeof *own };
	struct option longopts[NOWN + FK_PY_NOPTS + 1];
	memcpy(longopts, own, sizeof own);
	fk_py_options(longopts + NOWN, PY_BASE); /* --python-*: as stackfold's */
	longopts[NOWN + FK_PY_NOPTS] = (struct option){ 0 };
	static const char *const eprog = "stackcap export";
	struct fk_export_opts o;
	fk_export_opts_defaults(&o);
	struct fk_diag d;
	fk_diag_init(&d, prog);
	int c;
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		if (c >= PY_BASE && c < PY_BASE + FK_PY_NOPTS) {
			const char *wrong = fk_py_option(&o.names.python, c - PY_BASE, optarg);
			if (wrong)
				return fk_cli_usage_error(eprog, "%s", wrong);
			continue;
		}
		switch (c) {
		case OPT_CHROME: o.chrome = optarg; break;
		case OPT_INLINE: o.names.sym_flags |= FK_SYM_INLINE; break;
		case OPT_LINES: o.names.sym_flags |= FK_SYM_LINES; break;
		case OPT_STRICT: d.strict = true; break;
		case 'q': d.quiet = true; break;
		case 'h': export_usage(stdout); return FK_EXIT_OK;
		default: return fk_cli_bad_option(eprog, argv, "qh", longopts);
		}
	}
	if (!o.chrome)
		return fk_cli_usage_error(eprog, "say what to write: --chrome OUT.json[.gz]");
	if (*o.chrome == 0)
		return fk_cli_usage_error(eprog, "--chrome needs a file name (- for stdout)");
	if (optind >= argc)
		return fk_cli_usage_error(eprog, "no capture to export");
	o.inputs = argv + optind;
	o.ninputs = (size_t)(argc - optind);
	return fk_export_run(&o, &d);
}

enum { OPT_ALLOC = 256, OPT_ALLOC_SAMPLE, OPT_ALLOC_DROP, OPT_FP, OPT_NO_FOLLOW, OPT_NO_PYTHON,
       OPT_VERSION };

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "info") == 0)
		return info(argc - 2, argv + 2);
	if (argc > 1 && strcmp(argv[1], "export") == 0)
		return export_cmd(argc - 1, argv + 1);
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "freq", required_argument, NULL, 'F' },
		{ "alloc", no_argument, NULL, OPT_ALLOC },
		{ "alloc-sample", required_argument, NULL, OPT_ALLOC_SAMPLE },
		{ "alloc-drop", no_argument, NULL, OPT_ALLOC_DROP },
		{ "fp", no_argument, NULL, OPT_FP },
		{ "no-follow", no_argument, NULL, OPT_NO_FOLLOW },
		{ "no-python", no_argument, NULL, OPT_NO_PYTHON },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct fk_launch_opts o;
	fk_launch_opts_defaults(&o);
	o.self = argv[0];
	int c;
	/* '+': options end at PROGRAM, whose own options are its own. */
	opterr = 0; /* fk_cli_bad_option says it once */
	while ((c = getopt_long(argc, argv, "+o:F:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': o.output = optarg; break;
		case 'F':
			if (!fk_cli_int(optarg, 0, 100000, &o.hz))
				return fk_cli_usage_error(prog, "-F needs a rate from 0 to 100000 Hz, not '%s'", optarg);
			break;
		case OPT_ALLOC: o.alloc = true; break;
		case OPT_ALLOC_SAMPLE:
			if (!fk_cli_int(optarg, 1, 1L << 40, &o.alloc_sample))
				return fk_cli_usage_error(prog, "--alloc-sample needs a byte count, not '%s'", optarg);
			o.alloc = true;
			break;
		case OPT_ALLOC_DROP: o.alloc_drop = true; break;
		case OPT_FP: o.fp = true; break;
		case OPT_NO_FOLLOW: o.follow = false; break;
		case OPT_NO_PYTHON: o.python = false; break;
		case 'h': usage(stdout); return FK_EXIT_OK;
		case OPT_VERSION: printf("stackcap (flamekit) %s\n", FK_VERSION); return FK_EXIT_OK;
		default: return fk_cli_bad_option(prog, argv, "+o:F:h", longopts);
		}
	}
	if (optind >= argc)
		return fk_cli_usage_error(prog, "no program to run");
	o.argv = argv + optind;
	struct fk_diag d;
	fk_diag_init(&d, prog);
	return fk_launch_run(&o, &d);
}
