/* stackcap.c - the stackcap command: argument parsing, then running a
 * program with libstackcap.so preloaded. `stackcap info` and `stackcap
 * export` are stackcap-read's (capture/stackcap_read.c), run in its place:
 * what reads captures links libdw and six more libraries, whose loading
 * took 1.6 ms of every capture's start on a VM; this links libc alone.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "capture/launch.h"
#include "formats/capwindow.h"
#include "formats/cli.h"

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
"      --fp              unwind with frame pointers instead of .eh_frame, for\n"
"                        samples and --alloc's stacks (faster, but stops at\n"
"                        code built without them)\n"
"      --libunwind       walk stacks (samples' and --alloc's) with libunwind\n"
"                        alone, not the shim's cached .eh_frame rules\n"
"                        (slower; the same stacks, for a check)\n"
"      --no-follow       do not capture programs PROGRAM executes (forked\n"
"                        children are always captured, each to its own file)\n"
"      --no-python       native stacks only in a Python program (by default\n"
"                        CPython 3.11-3.13 frames replace the interpreter's)\n"
"  -h, --help            show this help\n"
"      --version         show the version\n"
"\n"
"Capture windows (record a part of the run; the capture says which windows\n"
"it recorded, and CPU time outside them is charged nowhere):\n"
"      --delay SECONDS   record nothing for SECONDS (fractions too) from the\n"
"                        program's start\n"
"      --duration SECONDS  stop recording SECONDS after the delay\n"
"      --toggle-signal SIG  start paused; each SIG (USR1, SIGUSR2, RTMIN+3, a\n"
"                        number) sent to PROGRAM (stackcap's pid: stackcap\n"
"                        becomes PROGRAM) starts or pauses recording; the\n"
"                        program never sees it\n"
"      --capture-range nvtx:NAME  record while an NVTX range named NAME (a glob)\n"
"                        is open on any thread\n"
"      --capture-range cuda-profiler-api  record between cudaProfilerStart and\n"
"                        cudaProfilerStop\n"
"      --schedule wait=N,warmup=N,active=N,repeat=N[,skip_first=N]\n"
"                        torch.profiler.schedule over the step marker's NVTX\n"
"                        ranges: record the active steps, each as an NVTX\n"
"                        range \"[step N]\" (stackfold --nvtx); repeat=0: forever\n"
"      --step-marker NAME  the step marker, an NVTX range name glob (default\n"
"                        " FK_WIN_DEFAULT_STEP ")\n"
"  --delay and --duration bound the others; --toggle-signal, --capture-range\n"
"  and --schedule exclude each other.\n"
"\n"
"The same settings work as environment variables, for launchers (torchrun,\n"
"mpirun) that start the processes themselves:\n"
"  LD_PRELOAD=/path/to/libstackcap.so STACKCAP_OUTPUT=run.%%p.stackcap\n"
"  STACKCAP_HZ=999 STACKCAP_ALLOC=1 STACKCAP_ALLOC_SAMPLE=BYTES STACKCAP_UNWIND=fp|libunwind\n"
"  STACKCAP_ALLOC_DROP=1\n"
"  STACKCAP_FOLLOW=0 STACKCAP_PYTHON=0 (%%p in STACKCAP_OUTPUT becomes the\n"
"  process id)\n"
"  STACKCAP_DELAY=S STACKCAP_DURATION=S STACKCAP_TOGGLE_SIGNAL=SIG\n"
"  STACKCAP_CAPTURE_RANGE=RANGE STACKCAP_SCHEDULE=SPEC STACKCAP_STEP_MARKER=NAME\n"
"  (a bad window setting: the program runs uncaptured, and stderr says why)\n"
"\n"
"Exit status: PROGRAM's (128+N when a signal N ended it); 2 usage error;\n"
"127 when PROGRAM is not found, 126 when it is a directory or not executable.\n");
}

enum { OPT_ALLOC = 256, OPT_ALLOC_SAMPLE, OPT_ALLOC_DROP, OPT_FP, OPT_LIBUNWIND, OPT_NO_FOLLOW, OPT_NO_PYTHON,
       OPT_VERSION, OPT_DELAY, OPT_DURATION, OPT_TOGGLE_SIGNAL, OPT_CAPTURE_RANGE, OPT_SCHEDULE,
       OPT_STEP_MARKER };

/* One window option into o (and w, to check them together); 0, or the
 * usage error's exit status. */
static int window_option(int c, const char *arg, struct fk_launch_opts *o, struct fk_win_spec *w)
{
	static const char *trigger;
	if ((c == OPT_TOGGLE_SIGNAL || c == OPT_CAPTURE_RANGE || c == OPT_SCHEDULE) && trigger)
		return fk_cli_usage_error(prog, "%s: only one of --toggle-signal, --capture-range "
					  "and --schedule", trigger);
	switch (c) {
	case OPT_DELAY:
		if (!fk_win_seconds(arg, &w->delay_s))
			return fk_cli_usage_error(prog, "--delay needs seconds (0 or more), not '%s'", arg);
		o->delay = arg;
		break;
	case OPT_DURATION:
		if (!fk_win_seconds(arg, &w->duration_s) || w->duration_s <= 0)
			return fk_cli_usage_error(prog, "--duration needs seconds above 0, not '%s'", arg);
		o->duration = arg;
		break;
	case OPT_TOGGLE_SIGNAL:
		if (!(o->toggle_sig = fk_win_signal(arg)))
			return fk_cli_usage_error(prog, "--toggle-signal needs a signal a program can "
						  "lose (USR1, USR2, RTMIN+N, ...), not '%s'", arg);
		o->toggle_signal = arg;
		trigger = "--toggle-signal";
		break;
	case OPT_CAPTURE_RANGE:
		if (!fk_win_range(arg, w))
			return fk_cli_usage_error(prog, "--capture-range needs nvtx:NAME or "
						  "cuda-profiler-api, not '%s'", arg);
		o->capture_range = arg;
		trigger = "--capture-range";
		break;
	case OPT_SCHEDULE:
		if (!fk_win_schedule_parse(arg, &w->schedule))
			return fk_cli_usage_error(prog, "--schedule needs wait=N,warmup=N,active=N,"
						  "repeat=N (active at least 1), not '%s'", arg);
		o->schedule = arg;
		w->trigger = FK_WIN_SCHEDULE;
		trigger = "--schedule";
		break;
	case OPT_STEP_MARKER:
		if (!fk_win_pattern(arg, w->pattern))
			return fk_cli_usage_error(prog, "--step-marker needs an NVTX range name "
						  "pattern of 1 to %d bytes", FK_WIN_PATTERN_MAX - 1);
		o->step_marker = arg;
		break;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "info") == 0 || strcmp(argv[1], "export") == 0)) {
		struct fk_diag d;
		fk_diag_init(&d, prog);
		return fk_launch_read(argv, &d);
	}
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "freq", required_argument, NULL, 'F' },
		{ "alloc", no_argument, NULL, OPT_ALLOC },
		{ "alloc-sample", required_argument, NULL, OPT_ALLOC_SAMPLE },
		{ "alloc-drop", no_argument, NULL, OPT_ALLOC_DROP },
		{ "fp", no_argument, NULL, OPT_FP },
		{ "libunwind", no_argument, NULL, OPT_LIBUNWIND },
		{ "no-follow", no_argument, NULL, OPT_NO_FOLLOW },
		{ "no-python", no_argument, NULL, OPT_NO_PYTHON },
		{ "delay", required_argument, NULL, OPT_DELAY },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "toggle-signal", required_argument, NULL, OPT_TOGGLE_SIGNAL },
		{ "capture-range", required_argument, NULL, OPT_CAPTURE_RANGE },
		{ "schedule", required_argument, NULL, OPT_SCHEDULE },
		{ "step-marker", required_argument, NULL, OPT_STEP_MARKER },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct fk_launch_opts o;
	fk_launch_opts_defaults(&o);
	struct fk_win_spec w;
	fk_win_spec_init(&w);
	int bad;
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
		case OPT_LIBUNWIND: o.libunwind_only = true; break;
		case OPT_NO_FOLLOW: o.follow = false; break;
		case OPT_NO_PYTHON: o.python = false; break;
		case OPT_DELAY: case OPT_DURATION: case OPT_TOGGLE_SIGNAL: case OPT_CAPTURE_RANGE:
		case OPT_SCHEDULE: case OPT_STEP_MARKER:
			if ((bad = window_option(c, optarg, &o, &w)) != 0)
				return bad;
			break;
		case 'h': usage(stdout); return FK_EXIT_OK;
		case OPT_VERSION: printf("stackcap (flamekit) %s\n", FK_VERSION); return FK_EXIT_OK;
		default: return fk_cli_bad_option(prog, argv, "+o:F:h", longopts);
		}
	}
	if (o.fp && o.libunwind_only)
		return fk_cli_usage_error(prog, "--fp and --libunwind are two ways to unwind: choose one");
	if (o.step_marker && w.trigger != FK_WIN_SCHEDULE)
		return fk_cli_usage_error(prog, "--step-marker goes with --schedule");
	if (optind >= argc)
		return fk_cli_usage_error(prog, "no program to run");
	o.argv = argv + optind;
	struct fk_diag d;
	fk_diag_init(&d, prog);
	return fk_launch_run(&o, &d);
}
