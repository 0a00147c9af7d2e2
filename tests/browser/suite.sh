#!/bin/sh
# The browser tests as a suite of tests/run.sh, in the language of
# tests/e2e/lib.sh: each page is rendered, then opened in headless Chromium
# by tests/browser/run.sh; a case is skipped (TAP "# SKIP", with the reason)
# where that finds no Chromium, Node or npm.
#   sh tests/browser/suite.sh BUILD_DIR
set -u
if [ $# -ne 1 ]; then
	echo "usage: sh tests/browser/suite.sh BUILD_DIR" >&2
	exit 2
fi
BUILD=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
. "$root/tests/e2e/lib.sh"

# browser DESC FILE -- MAKE...: renders FILE with MAKE, then opens it.
browser() {
	selected "$1" || return 0
	d=$1 f=$2; shift 2; sep "$1"; shift
	begin
	if ! "$@" > "$f" 2> "$T/err"; then
		problem "rendering $f failed: $(stderr_head)"
		finish "$d" nosan
		return
	fi
	out=$(sh tests/browser/run.sh "$f" 2>&1)
	st=$?
	case $st:$out in
	0:*SKIPPED*)
		why=${out#*SKIPPED}; why=${why# (}; why=${why%)}
		skip "$d" "$why"
		;;
	0:*) finish "$d" nosan ;;
	*)
		printf '%s\n' "$out" | tail -20 | sed 's/^/# /'
		problem "tests/browser/run.sh $f: exit $st (its last lines above)"
		finish "$d" nosan
		;;
	esac
}
# speedscope DESC JSON FOLDED...: opens JSON (made already) in the real
# speedscope, each profile against its folded text.
speedscope() {
	selected "$1" || return 0
	d=$1; shift
	begin
	out=$(sh tests/browser/run.sh "$@" 2>&1)
	st=$?
	case $st:$out in
	0:*SKIPPED*)
		why=${out#*SKIPPED}; why=${why# (}; why=${why%)}
		skip "$d" "$why"
		;;
	0:*) finish "$d" nosan ;;
	*)
		printf '%s\n' "$out" | grep -v '^ok ' | tail -20 | sed 's/^/# /'
		problem "tests/browser/run.sh $1: exit $st (its last lines above)"
		finish "$d" nosan
		;;
	esac
}

mkdir -p "$BUILD/browser"
# A real flame graph: zoom, search, URL state. The memory timeline page:
# plot shown, report there.
browser "browser: the flame graph viewer of samples/torch/stacks_gelu_manual.txt (zoom, search, URL state)" \
	"$BUILD/browser/gelu.svg" -- "$BUILD/flamegraph" --countname us samples/torch/stacks_gelu_manual.txt
browser "browser: the memory timeline page of samples/torch/memory_mlp_train.raw.json.gz (plot, report)" \
	"$BUILD/browser/memory.html" -- "$BUILD/memtimeline" --html samples/torch/memory_mlp_train.raw.json.gz

# stackfold --format speedscope in speedscope itself: a folded file (unit
# none: exact totals), a torch export_stacks file (us), and captures: CPU
# time, samples and one profile per thread (a two-thread run), CPU time,
# samples, allocation bytes and counts (--alloc), GPU time and GPU bytes.
# The expected folded text of each profile comes from stackfold's folded
# output (--metric NAME; --threads, split at the root, for the threads).
B=$BUILD/browser SF=$BUILD/stackfold cap=tests/fuzz/corpus/capture
"$SF" --format speedscope tests/e2e/data/fold_agg.txt > "$B/agg.json"
speedscope "browser: speedscope shows stackfold --format speedscope of a folded file (frames, self, totals)" \
	"$B/agg.json" tests/e2e/data/fold_agg.txt
"$SF" --format speedscope samples/torch/stacks_gelu_manual.txt > "$B/gelu.json"
speedscope "browser: speedscope shows stackfold --format speedscope of a torch export_stacks file" \
	"$B/gelu.json" samples/torch/stacks_gelu_manual.txt
"$SF" -q --format speedscope "$cap/cpu_shares.stackcap" > "$B/shares.json"
for m in self_cpu_time_total samples; do
	"$SF" -q --metric $m "$cap/cpu_shares.stackcap" > "$B/shares.$m.txt"
done
# Threads in time order: their samples at the capture's rate.
hz=$("$BUILD/stackcap" info "$cap/cpu_shares.stackcap" | sed -n 's/^sampling: *\([0-9]*\) Hz.*/\1/p')
"$SF" -q --threads --metric samples "$cap/cpu_shares.stackcap" > "$B/shares.threads.txt"
set -- "$B/shares.json" "$B/shares.self_cpu_time_total.txt" "$B/shares.samples.txt"
for t in $(cut -d';' -f1 "$B/shares.threads.txt" | LC_ALL=C sort -u); do
	grep "^$t;" "$B/shares.threads.txt" | sed 's/^[^;]*;//' > "$B/shares.$t.txt"
	set -- "$@" "$B/shares.$t.txt@$hz"
done
speedscope "browser: speedscope shows a capture's CPU time, samples and each thread in time order" "$@"
# After a rewrite (--strip-addresses), threads as sampled profiles of their sums.
"$SF" -q --format speedscope --strip-addresses "$cap/cpu_shares.stackcap" > "$B/shares.strip.json"
"$SF" -q --strip-addresses --threads "$cap/cpu_shares.stackcap" > "$B/shares.strip.threads.txt"
set -- "$B/shares.strip.json"
for m in self_cpu_time_total samples; do
	"$SF" -q --strip-addresses --metric $m "$cap/cpu_shares.stackcap" > "$B/shares.strip.$m.txt"
	set -- "$@" "$B/shares.strip.$m.txt"
done
for t in $(cut -d';' -f1 "$B/shares.strip.threads.txt" | LC_ALL=C sort -u); do
	grep "^$t;" "$B/shares.strip.threads.txt" | sed 's/^[^;]*;//' > "$B/shares.strip.$t.txt"
	set -- "$@" "$B/shares.strip.$t.txt"
done
speedscope "browser: speedscope shows --strip-addresses' threads as sampled profiles of their sums" "$@"

# stackcap export --chrome in a real viewer that runs headless: speedscope
# imports Chrome traces ("Trace Event Format"), one profile per thread from
# its nested slices; each must hold that thread's folded CPU time in all
# ([unsampled] and [signal blocked] charges too, which the export draws).
# Frames are not compared here: speedscope adds ts and dur in binary
# floating point, so of two slices that abut exactly (ts 182966.179, dur
# 11011.011; next ts 193977.19) the first can end a ulp late and take the
# next as its child. The trace reader's round trip checks the frames
# (tests/e2e/export, b.), and validate.py the nesting, in exact decimals.
"$BUILD/stackcap" export -q --chrome "$B/shares.trace.json" "$cap/cpu_shares.stackcap"
"$SF" -q --threads "$cap/cpu_shares.stackcap" > "$B/shares.trace.threads.txt"
set -- "$B/shares.trace.json"
for t in $(cut -d';' -f1 "$B/shares.trace.threads.txt" | sort -u -t- -k2,2n); do
	grep "^$t;" "$B/shares.trace.threads.txt" | sed 's/^[^;]*;//' > "$B/shares.trace.$t.txt"
	set -- "$@" "$B/shares.trace.$t.txt"
done
export SPEEDSCOPE_IMPORTER='Trace Event Format profile' SPEEDSCOPE_TOTALS_ONLY=1
speedscope "browser: speedscope opens stackcap export --chrome: a profile per thread, its folded CPU time" "$@"
unset SPEEDSCOPE_IMPORTER SPEEDSCOPE_TOTALS_ONLY
"$SF" -q --format speedscope "$cap/alloc_pattern.stackcap" > "$B/alloc.json"
set -- "$B/alloc.json"
for m in self_cpu_time_total samples alloc_bytes alloc_count; do
	"$SF" -q --metric $m "$cap/alloc_pattern.stackcap" > "$B/alloc.$m.txt"
	set -- "$@" "$B/alloc.$m.txt"
done
hz=$("$BUILD/stackcap" info "$cap/alloc_pattern.stackcap" | sed -n 's/^sampling: *\([0-9]*\) Hz.*/\1/p')
"$SF" -q --threads --metric samples "$cap/alloc_pattern.stackcap" | sed 's/^[^;]*;//' > "$B/alloc.thread.txt"
speedscope "browser: speedscope shows a capture's CPU time, samples, allocation bytes and counts" \
	"$@" "$B/alloc.thread.txt@$hz"
"$SF" -q --format speedscope "$cap/gpu.stackcap" > "$B/gpu.json"
"$SF" -q --metric self_cuda_time_total "$cap/gpu.stackcap" > "$B/gpu.cuda.txt"
"$SF" -q --metric gpu_alloc_bytes "$cap/gpu.stackcap" > "$B/gpu.bytes.txt"
speedscope "browser: speedscope shows a capture's GPU time and GPU bytes allocated" \
	"$B/gpu.json" "$B/gpu.cuda.txt" "$B/gpu.bytes.txt"
done_testing
