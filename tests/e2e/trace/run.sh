#!/bin/sh
# torch Chrome / Kineto traces (formats/CHROMETRACE.md) through stackfold:
# hand-made traces for each rule (nesting by time, ties, python frames above
# ops, clipping, GPU time by correlation, unmatched launches, legacy names,
# the bare array, decimal ns times, control characters, bad JSON), checked
# by hand; and real traces from HolisticTraceAnalysis (tests/e2e/data/kineto/)
# whose sums must equal sums.py's independent ones: self CPU time = the
# roots' durations, GPU time per stack = the kernels', copies' and sets'.
# HTA_DATA=/path/to/HolisticTraceAnalysis/tests/data adds every trace there.
# In the language of tests/e2e/lib.sh.
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../../.." && pwd)
here=$root/tests/e2e/trace
SF=$BUILD/stackfold
. "$root/tests/e2e/lib.sh"
cd "$root" || exit 1
kineto=tests/e2e/data/kineto

# nest.json, by hand: ProfilerStep#1 [0,100] holds python f [10,90] and a
# memcpy launch [95,97.5]; f holds aten::mm [20,50] (with its kernel launch
# [30,35]) and, at [60,80], <built-in function linear> and aten::linear
# starting and ending together (the Python frame outside), aten::linear
# holding aten::t of 1 ns (the step named ProfilerStep*, as torch merges steps). Thread 2: three ops, one named with ';', one
# with a raw tab. Self times: step 100-80-2.5, f 80-30-20, mm 30-5, ...
expect_stdout 0 "ProfilerStep* 17.5
ProfilerStep*;cudaMemcpyAsync 2.5
ProfilerStep*;t.py(3): f 30
ProfilerStep*;t.py(3): f;<built-in function linear>;aten::linear 19.999
ProfilerStep*;t.py(3): f;<built-in function linear>;aten::linear;aten::t 0.001
ProfilerStep*;t.py(3): f;aten::mm 25
ProfilerStep*;t.py(3): f;aten::mm;cudaLaunchKernel 5
aten::add 10
odd:name 1
tab name 1" "self CPU time per stack: nesting by time, ties, Python frames above ops, ns decimals" \
	-- "$SF" "$here/nest.json"
then_stderr_contains "nest.json: 1 control characters in names read as spaces" "a raw control character in a name: read as a space, said"

# GPU time: the kernel (correlation 1) under aten::mm (around its launch),
# the copy under the step, the kernel whose launch is not in the trace under
# its own root; gpu_user_annotation and cuda_sync are not GPU time.
expect_stdout 0 "ProfilerStep*;Memcpy HtoD (Pageable -> Device) 1.25
ProfilerStep*;t.py(3): f;aten::mm;gemm_kernel 7.5
[launch not in trace];orphan 3" "--metric self_cuda_time_total: GPU ops charged to their launching stack by correlation" \
	-- "$SF" --metric self_cuda_time_total "$here/nest.json"
expect_stdout 0 "ProfilerStep* 1.25
ProfilerStep*;t.py(3): f;aten::mm 7.5
[launch not in trace] 3" "--no-kernel-frames: GPU time without the kernel leaf" \
	-- "$SF" --metric self_cuda_time_total --no-kernel-frames "$here/nest.json"
expect_stdout_contains 0 "main-1;ProfilerStep*;t.py(3): f;aten::mm 25" "--threads: thread_name metadata at the root" \
	-- "$SF" --threads "$here/nest.json"
then_stdout_contains "thread-2;aten::add 10" "--threads: a thread without a name"

gzip -c "$here/nest.json" > "$T/nest.json.gz"
"$SF" "$here/nest.json" > "$T/plain" 2>/dev/null
expect_stdout 0 "$(cat "$T/plain")" "a gzipped trace on a pipe: the same stacks" -- pipe_in "$T/nest.json.gz" "$SF"

expect_stdout 0 "after 1
outer 5
outer;late 5" "an event ending after its parent is cut at the parent's end" -- "$SF" "$here/clip.json"
then_stderr_contains "clip.json: 1 events ended after the event around them: cut at its end" "clipping is counted and said"
expect_stderr_contains 1 "clip.json: --metric self_cuda_time_total: this trace has no GPU kernels" \
	"--metric self_cuda_time_total on a CPU-only trace: an error, not an empty result" \
	-- "$SF" --metric self_cuda_time_total "$here/clip.json"

expect_stdout 0 "aten::mm 3
aten::mm;cudaLaunchKernel 1
cudaMemsetAsync 1" "a legacy bare array (Operator, Runtime): CPU stacks" -- "$SF" "$here/legacy.json"
expect_stdout 0 "aten::mm;k 2
cudaMemsetAsync;Memset (Device) 1" "legacy Kernel and Memset charged by correlation; a launch outside any op is its own root" \
	-- "$SF" --metric self_cuda_time_total "$here/legacy.json"

printf '{"traceEvents": [{"name": "a", "ph": "X",, }]}' > "$T/bad.json"
expect_stderr_contains 1 "bad.json: byte 42: malformed JSON (parse error: invalid object key" "bad JSON: file: byte N: what, exit 1" \
	-- "$SF" "$T/bad.json"
then_stdout_empty "bad JSON: nothing on stdout"
printf '{"traceEvents": [{"name": "a", "ph": "X", "cat": "cpu_op", "pid": 1, "tid": 1, "ts": 1, "dur": 2}' | gzip > "$T/cut.json.gz"
expect_stderr_contains 1 "cut.json.gz: byte 97: malformed JSON (parse error: premature EOF)" "a trace cut short (gzipped): the byte it ends at" \
	-- "$SF" "$T/cut.json.gz"

# An event without its duration: skipped and counted like a bad line.
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1}, {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 1, "dur": 2}]}' > "$T/skip.json"
expect_stdout 0 "b 2" "an X event without dur: skipped, the others read" -- "$SF" "$T/skip.json"
then_stderr_contains "skip.json: 1 events without the times their kind needs skipped" "an X event without dur: counted and said"
expect_stderr_contains 1 "skip.json: 1 events without the times" "--strict: an event without its times is an error" -- "$SF" --strict "$T/skip.json"

# Decimal ns times against integer us: the same trace both ways.
printf '{"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1712195495519689.0, "dur": 3.000},
 {"ph": "X", "cat": "cpu_op", "name": "b", "pid": 1, "tid": 1, "ts": 1712195495519690.001, "dur": 1.998}]}' > "$T/ns.json"
expect_stdout 0 "a 1.002
a;b 1.998" "decimal ns times far from zero are exact (no double)" -- "$SF" "$T/ns.json"

# ProfilerStep#N: merged as torch's key_averages merges them
# ("ProfilerStep*"); --nvtx keeps each step apart (grouping by step).
expect_stdout 0 "ProfilerStep#x 1
ProfilerStep* 10
ProfilerStep*;aten::mm 10" "ProfilerStep#N ranges merge into ProfilerStep* (key_averages' name)" -- "$SF" "$here/steps.json"
expect_stdout 0 "ProfilerStep#7 6
ProfilerStep#7;aten::mm 4
ProfilerStep#8 4
ProfilerStep#8;aten::mm 6
ProfilerStep#x 1" "--nvtx: one root per ProfilerStep#N range" -- "$SF" --nvtx "$here/steps.json"

# --table: torch's key_averages columns; a frame's calls are its own
# events (aten::mm twice), CPU total its inclusive time, CUDA total the GPU
# time launched below it, kernels their own rows.
expect_stdout_contains 0 "aten::mm,10,47.62,10,47.62,5.000,2" "--table on a trace: calls are a frame's own events" \
	-- "$SF" --table --format csv "$here/steps.json"
then_stdout_contains "ProfilerStep*,10,47.62,20,95.24,10.000,2" "--table: ProfilerStep* once per step, CPU-only: no CUDA columns"
expect_stdout_contains 0 "aten::mm,25,22.32,30,26.79,30.000,0,0.00,7.5,63.83,7.500,1" "--table: self and total CPU, CUDA total launched below an op" \
	-- "$SF" -q --table --format csv "$here/nest.json"
then_stdout_contains "gemm_kernel,0,0.00,0,0.00,0.000,7.5,63.83,7.5,63.83,7.500,1" "--table: a kernel's own row with its self CUDA time"
then_stdout_contains "t.py(3): f,30,26.79,80,71.43,80.000,0,0.00,7.5,63.83,7.500,1" "--table: a Python frame's inclusive CPU and CUDA time"
expect_stdout_contains 0 "Self CUDA time total: 11.750us" "--table text: torch's footer with CPU and CUDA totals" \
	-- "$SF" -q --table "$here/nest.json"
then_stdout_contains "Self CPU time total: 112.000us" "--table text: Self CPU time total = the roots' time"
then_stdout_contains "Name    Self CPU %      Self CPU   CPU total %     CPU total  CPU time avg     Self CUDA   Self CUDA %    CUDA total  CUDA time avg    # of Calls" "--table text: key_averages' header"

# Calls on a real trace against a count of its events by name.
begin
"$SF" -q --table --limit 0 --format csv "$kineto/simple_add_a100.json.gz" |
	awk -F, 'NR > 1 && $NF > 0 { print $1 "," $NF }' | sort > "$T/calls"
python3 -c '
import gzip, json, sys, collections
cats = {"cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver",
        "kernel", "gpu_memcpy", "gpu_memset"}
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
n = collections.Counter(e["name"].replace(";", ":") for e in ev if e.get("ph") == "X" and e.get("cat") in cats)
for k, v in n.items():
    if "," not in k and "\"" not in k:
        print("%s,%d" % (k, v))
' "$kineto/simple_add_a100.json.gz" | sort > "$T/want"
grep -v '"' "$T/calls" | grep -v '^[^,]*,[^,]*,' > "$T/got"
cmp -s "$T/got" "$T/want" || problem "calls differ: $(diff "$T/want" "$T/got" | head -5 | tr '\n' '|')"
[ -s "$T/want" ] || problem "no events counted"
finish "simple_add (A100) --table: # of Calls per name = its events in the trace"

# --tag-files: a trace's rank (distributedInfo) names its stacks; a trace
# without one, its file.
expect_stdout_contains 0 "rank 1;ProfilerStep*;t.py(3): f;aten::mm 25" "--tag-files: a trace with a rank is tagged \"rank N\"" \
	-- "$SF" -q --tag-files "$here/nest.json" "$here/legacy.json" "$kineto/simple_add_a100.json.gz"
then_stdout_contains "legacy.json;aten::mm 3" "--tag-files: a trace without distributedInfo is tagged by its file name"
then_stdout_contains "rank 0;[param|cuda] 134157" "--tag-files: the A100 trace is rank 0"

# memtimeline: [memory] events, by address and device, in time order
# (mem.json is written out of order), times from baseTimeNanoseconds; a
# free of an address never allocated in the trace was live before it.
# By hand: C (30) pre-existing; A 100 at 1 us, B 50 at 2 us, A freed at
# 3.5 us, C freed at 4 us; 8 bytes on the host beside.
expect_stdout_contains 0 "[[1001, 1001, 1002, 1003, 1004], [[0, 0, 0, 0, 0, 0, 0, 0, 30], [0, 0, 0, 0, 0, 0, 0, 0, 130], [0, 0, 0, 0, 0, 0, 0, 0, 180], [0, 0, 0, 0, 0, 0, 0, 0, 80], [0, 0, 0, 0, 0, 0, 0, 0, 50]]]" \
	"memtimeline TRACE: the GPU's timeline by Addr, in time order, base time added" -- "$BUILD/memtimeline" "$here/mem.json"
then_stderr_empty "memtimeline TRACE: no warning for a trace written out of time order"
expect_stdout_contains 0 "peak:      180 B (180 bytes) at 0.001 ms" "memtimeline TRACE --summary: the peak" \
	-- "$BUILD/memtimeline" --summary "$here/mem.json"
then_stdout_contains "events:    5 (1 PREEXISTING, 2 CREATE, 0 INCREMENT_VERSION, 2 DESTROY)" "memtimeline TRACE: a free never allocated in the trace is PREEXISTING"
expect_stdout_contains 0 "[[1002], [[0, 0, 0, 0, 0, 0, 0, 0, 8]]]" "memtimeline --device cpu TRACE: the host's events (Device Type 0)" \
	-- "$BUILD/memtimeline" --device cpu "$here/mem.json"
expect_stderr_contains 1 "nest.json: this trace has no [memory] events (torch.profiler.profile(profile_memory=True) records them)" \
	"memtimeline on a trace without memory events: said plainly, exit 1" -- "$BUILD/memtimeline" "$here/nest.json"
if [ -n "${HTA_DATA:-}" ] && [ -f "$HTA_DATA/df_index_resolver/df_index_resolver.json.gz" ]; then
	expect_stdout_contains 0 "peak:      2.36 GiB (2532893696 bytes)" "HTA_DATA df_index_resolver: the peak = max Total Allocated less what was live before" \
		-- "$BUILD/memtimeline" --summary "$HTA_DATA/df_index_resolver/df_index_resolver.json.gz"
fi

# --join-backward: MmBackward0 (thread 2) is aten::mm's backward (a fwdbwd
# flow, id 7): under the forward op's stack, with what it calls and the GPU
# time it launched; the autograd engine's own time stays where it was.
expect_stdout 0 "autograd::engine::evaluate_function: MmBackward0 1.5
t.py(5): step 2
t.py(5): step;aten::mm 4
t.py(5): step;aten::mm;MmBackward0 2
t.py(5): step;aten::mm;MmBackward0;aten::mm 1
t.py(5): step;aten::mm;MmBackward0;aten::mm;cudaLaunchKernel 1" "--join-backward: a backward op under its forward op's stack (fwdbwd flow)" \
	-- "$SF" --join-backward "$here/bwd.json"
expect_stdout 0 "t.py(5): step;aten::mm;MmBackward0;aten::mm;gemm_bwd 2" "--join-backward: GPU time of a backward op under the forward stack" \
	-- "$SF" --join-backward --metric self_cuda_time_total "$here/bwd.json"
expect_stdout_contains 0 "autograd::engine::evaluate_function: MmBackward0;MmBackward0;aten::mm 1" "without --join-backward: backward ops under the autograd engine" \
	-- "$SF" "$here/bwd.json"
expect_stdout_contains 0 "ProfilerStep*;aten::linear;aten::addmm;AddmmBackward0;aten::mm 58.21" "--join-backward on the MI250 trace: AddmmBackward0 under aten::addmm" \
	-- "$SF" --join-backward "$kineto/mi250_minitoy.json.gz"
begin
a=$("$SF" -q "$kineto/mi250_minitoy.json.gz" | awk '{ s += $NF * 1000 } END { printf "%.0f", s }')
b=$("$SF" -q --join-backward "$kineto/mi250_minitoy.json.gz" | awk '{ s += $NF * 1000 } END { printf "%.0f", s }')
[ "$a" = "$b" ] || problem "--join-backward changes the total: $a ns, then $b ns"
finish "--join-backward moves time between stacks, never changes the total"

# Real traces: the sums, exactly.
sum_check() { # FILE: self CPU and GPU time against sums.py
	want=$(python3 "$here/sums.py" "$1") || { problem "sums.py failed on $1"; return; }
	cpu=$("$SF" -q "$1" | awk '{ s += $NF * 1000 } END { printf "%.0f", s }')
	gpu=$("$SF" -q --metric self_cuda_time_total "$1" 2>/dev/null | awk '{ s += $NF * 1000 } END { printf "%.0f", s }')
	[ "${want% *}" = "$cpu" ] || problem "$1: self CPU time sums to $cpu ns, the roots to ${want% *}"
	[ "${want#* }" = "${gpu:-0}" ] || problem "$1: GPU time per stack sums to $gpu ns, the GPU ops to ${want#* }"
}
for f in "$kineto"/*.json.gz; do
	begin; sum_check "$f"; finish "$(basename "$f"): CPU self time = roots' durations, GPU time per stack = GPU ops' time"
done
if [ -n "${HTA_DATA:-}" ]; then
	for f in $(find "$HTA_DATA" -name '*.json*' | sort); do
		begin; sum_check "$f"; finish "HTA_DATA $f: sums"
	done
fi
# The issue's "done when": a GPU-time flame graph whose total is the
# trace's GPU time (sums.py: 49816000 ns).
gpu_svg() { "$SF" -q --metric self_cuda_time_total "$1" | "$BUILD/flamegraph" --countname us; }
expect_stdout_contains 0 "<title>all (49,816 us, 100%)</title>" "simple_add: stackfold --metric self_cuda_time_total | flamegraph: the total is the trace's GPU time" \
	-- gpu_svg "$kineto/simple_add_a100.json.gz"
expect_stdout_contains 0 "aten::linear;aten::t;aten::transpose;aten::as_strided" "simple_add (A100): op stacks" \
	-- "$SF" "$kineto/simple_add_a100.json.gz"
expect_stdout_contains 0 "[launch not in trace];void at::native::vectorized_elementwise_kernel" "trace_compare_base: kernels whose launch the window cut" \
	-- "$SF" --metric self_cuda_time_total "$kineto/trace_compare_base.json.gz"

# flamegraph folds a trace itself, as it folds a capture: the same SVG as
# through stackfold.
begin
"$SF" -q --metric self_cuda_time_total "$kineto/simple_add_a100.json.gz" | "$BUILD/flamegraph" --countname us > "$T/piped.svg"
"$BUILD/flamegraph" -q --metric self_cuda_time_total --countname us "$kineto/simple_add_a100.json.gz" > "$T/direct.svg" 2> "$T/err"
cmp -s "$T/piped.svg" "$T/direct.svg" || problem "flamegraph TRACE differs from stackfold TRACE | flamegraph"
grep -q '<title>all (49,816 us, 100%)</title>' "$T/direct.svg" || problem "total is not the trace's GPU time"
finish "flamegraph TRACE --metric self_cuda_time_total: the same SVG as through stackfold"

# A trace torch itself wrote here (Debian's 1.13, no Kineto: events with no
# category) against the key_averages table torch printed for the same run:
# each op's self CPU time and calls, and its CPU total, as torch has them.
begin
"$SF" -q --table --by leaf --limit 8 "$kineto/mlp_torch113_legacy.json.gz" > "$T/ours" 2> "$T/err"
rc=$?; want_rc 0
for op in aten::mm aten::addmm aten::gelu aten::uniform_ aten::copy_ aten::add_ aten::normal_; do
	want=$(awk -v op="$op" '$1 == op { print $3, $5, $7 }' "$kineto/mlp_torch113_legacy.key_averages.txt")
	got=$(awk -v op="$op" '$1 == op { print $3, $5, $7 }' "$T/ours")
	[ -n "$want" ] && [ "$want" = "$got" ] || problem "$op: torch '$want', stackfold '$got'"
done
finish "torch 1.13's own trace (legacy, no categories): --table's self CPU, CPU total and calls are key_averages'"

done_testing
