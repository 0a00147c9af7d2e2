/* stackcap_read.c - stackcap-read, what `stackcap info` and `stackcap
 * export` run (capture/stackcap.c execs it, with stackcap's arguments):
 * a capture's summary, and captures as one Chrome / Perfetto trace. Apart
 * from stackcap so that the launcher, which every capture starts with,
 * loads libc alone, and this the readers' libraries. Installed beside
 * libstackcap.so, in lib/flamekit.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "analysis/capture/model.h"
#include "analysis/sym/symbolize.h"
#include "formats/cli.h"
#include "formats/input.h"
#include "render/export_run.h"

static const char *prog = "stackcap";

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

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "info") == 0)
		return info(argc - 2, argv + 2);
	if (argc > 1 && strcmp(argv[1], "export") == 0)
		return export_cmd(argc - 1, argv + 1);
	fprintf(stderr, "stackcap-read: what `stackcap info FILE...` and `stackcap export "
			"--chrome OUT CAPTURE...` run; see stackcap --help\n");
	return FK_EXIT_USAGE;
}
