#!/bin/sh
# `stackcap export --chrome`: captures as Chrome / Perfetto traces. In the
# language of tests/e2e/lib.sh.
#
# The captures: tests/bench/gencap.c --cuda (a CUDA program's capture as the
# shim writes one with a GPU: threads, API calls with stacks, kernels,
# copies and sets on two devices, NVTX ranges, host and GPU memory, names
# that need escaping), real runs of samples/capture/alloc_pattern and of a
# small Python loop.
#   a. the trace is what the viewers need: validate.py (strict JSON, every
#      slice complete, slices and B/E ranges nesting on each track, flows
#      paired and bound to slices, Kineto's args), Kineto's shapes
#   b. round trip: stackfold reads the trace back with the GPU-time stacks
#      of the capture, its CPU stacks within 1 us, and each thread's slices
#      adding up to its sampled CPU time exactly (compare.py); the same with
#      naming options (--lines, a Python program's --python-only);
#      memtimeline reads its memory back as the capture's
#   c. outputs: .gz, stdout, several captures in one trace
#   d. errors and losses: unreadable capture, bad output path, a full disk,
#      damaged and cut captures (loss on stderr in one line and in the
#      trace's metadata; --strict refuses), every chunk damaged in turn,
#      usage errors
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/tests/e2e/lib.sh"
HERE=$root/tests/e2e/export
SC=$BUILD/stackcap
SF=$BUILD/stackfold
[ -x "$BUILD/bench-gencap" ] || bail_out "$BUILD/bench-gencap is not built (make $BUILD/bench-gencap)"
validate() { python3 "$HERE/validate.py" "$@"; }
compare() { python3 "$HERE/compare.py" "$@"; }
capfile() { python3 "$root/tests/e2e/capture/capfile.py" "$@"; }

"$BUILD/bench-gencap" --cuda 3000 > "$T/g.sc" || bail_out "gencap --cuda failed"
"$SC" info "$T/g.sc" > "$T/g.info"
ops=$(sed -n 's/^gpu work: *\([0-9]*\) kernels.*, \([0-9]*\) copies.*, \([0-9]*\) memsets.*/\1 \2 \3/p' "$T/g.info" |
	awk '{ print $1 + $2 + $3 }')
[ -n "$ops" ] || bail_out "stackcap info says no GPU work: $(cat "$T/g.info")"

# ---- a. what the viewers need ----

expect_exit 0 "a. export --chrome of a CUDA capture" -- "$SC" export --chrome "$T/g.json" "$T/g.sc"
then_stderr_contains "CUDA synchronizations not drawn" "a. what is not drawn is said (CUDA synchronizations)"
begin "a. the trace is valid: strict JSON, slices complete and nested, B/E balanced, flows paired"
run validate "$T/g.json"
want_rc 0
[ "$rc" -eq 0 ] || problem "$(head -5 "$T/out")"
finish "a. the trace is valid: strict JSON, slices complete and nested, B/E balanced, flows paired"

if begin "a. Kineto's shapes: every GPU op on its device and stream, flows from launches, NVTX, memory, names"; then
	python3 - "$T/g.json" "$ops" > "$T/shapes" 2>&1 <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
ev, ops = doc["traceEvents"], int(sys.argv[2])
c = collections.Counter((e["ph"], e.get("cat")) for e in ev)
gpu = c[("X", "kernel")] + c[("X", "gpu_memcpy")] + c[("X", "gpu_memset")]
bad = []
def want(what, ok):
    if not ok:
        bad.append(what)
want("%d GPU ops, capture has %d" % (gpu, ops), gpu == ops)
# Two ops in the capture name no API call (their launch was lost): no flow.
want("%d flow ends for %d ops with launches" % (c[("f", "ac2g")], ops - 2), c[("f", "ac2g")] == ops - 2)
want("flow starts %d" % c[("s", "ac2g")], c[("s", "ac2g")] == ops - 2)
want("%d CUDA calls" % c[("X", "cuda_runtime")], c[("X", "cuda_runtime")] == ops)
want("B %d E %d" % (c[("B", "nvtx")], c[("E", "nvtx")]), c[("B", "nvtx")] == c[("E", "nvtx")] > 0)
want("async NVTX range", c[("b", "nvtx")] == c[("e", "nvtx")] == 1)
want("NVTX mark", c[("i", "nvtx")] == 1)
mem = [e for e in ev if e.get("name") == "[memory]"]
want("[memory] events on both devices", {e["args"]["Device Type"] for e in mem} == {0, 1})
want("counters", c[("C", None)] == len(mem))
meta = {(e["name"], e["pid"], e["tid"]): e["args"] for e in ev if e["ph"] == "M"}
want("GPU 0 named", meta.get(("process_name", 0, 0)) == {"name": "GPU 0"})
want("stream 8 of GPU 1 named", meta.get(("thread_name", 1, 8)) == {"name": "stream 8"})
want("thread names", meta.get(("thread_name", 4242, 3)) == {"name": 'loader "3"'})
want("deviceProperties", [d["id"] for d in doc.get("deviceProperties", [])] == [0, 1])
want("displayTimeUnit ns", doc.get("displayTimeUnit") == "ns")
names = {e["name"] for e in ev if e["ph"] == "X"}
want("the kernel name with quotes, backslash, ';' and bytes that are not UTF-8",
     'odd "quoted" \\ name:with semicolon \ufffd\ufffd end' in names or
     'odd "quoted" \\ name;with semicolon \ufffd\ufffd end' in names)
cap = doc["flamekit"]["captures"][0]
want("metadata: no loss", cap["loss"] is None and cap["ended"].startswith("clean"))
print("\n".join(bad) if bad else "ok")
PY
	[ "$(cat "$T/shapes")" = ok ] || problem "$(head -5 "$T/shapes" | tr '\n' '|')"
	finish "a. Kineto's shapes: every GPU op on its device and stream, flows from launches, NVTX, memory, names"
fi
# Times are exact ns: at most three decimals (validate.py checks each).
grep -q '"ts":[0-9]*\.[0-9][0-9][0-9][0-9]' "$T/g.json"
check "a. no time has more than three decimals" $((1 - $?))

# ---- b. round trip through stackfold's trace reader ----

if begin "b. GPU-time stacks read back from the trace equal the capture's (--metric self_cuda_time_total)"; then
	"$SF" --metric self_cuda_time_total "$T/g.sc" > "$T/gpu.cap" 2> "$T/err"
	"$SF" --metric self_cuda_time_total "$T/g.json" > "$T/gpu.trace" 2>> "$T/err"
	compare gpu "$T/gpu.cap" "$T/gpu.trace" > "$T/cmp" 2>&1 || problem "$(head -4 "$T/cmp" | tr '\n' '|')"
	finish "b. GPU-time stacks read back from the trace equal the capture's (--metric self_cuda_time_total): $(head -1 "$T/cmp")"
fi
if begin "b. CPU stacks read back from the trace: the capture's, within 1 us each"; then
	"$SF" "$T/g.sc" > "$T/cpu.cap" 2> "$T/err"
	"$SF" "$T/g.json" > "$T/cpu.trace" 2>> "$T/err"
	compare cpu "$T/cpu.cap" "$T/cpu.trace" > "$T/cmp" 2>&1 || problem "$(head -4 "$T/cmp" | tr '\n' '|')"
	finish "b. CPU stacks read back from the trace: the capture's, within 1 us each: $(head -1 "$T/cmp")"
fi
if begin "b. each thread's outermost slices add up to its sampled CPU time exactly (+1 ns per CUDA call)"; then
	"$SF" --threads --metric samples "$T/g.sc" > "$T/samples" 2> "$T/err"
	compare threads "$T/samples" "$T/g.json" 999 > "$T/cmp" 2>&1 || problem "$(head -4 "$T/cmp" | tr '\n' '|')"
	[ "$(wc -l < "$T/cmp")" -eq 3 ] || problem "not 3 threads: $(cat "$T/cmp" | tr '\n' '|')"
	finish "b. each thread's outermost slices add up to its sampled CPU time exactly (+1 ns per CUDA call)"
fi

# A real run: native stacks, allocations, [unsampled] time.
"$SC" --alloc -o "$T/a.sc" "$BUILD/samples/alloc_pattern" > /dev/null 2>&1 || bail_out "stackcap alloc_pattern failed"
if begin "b. a real capture (alloc_pattern --alloc): valid, CPU stacks and thread totals read back"; then
	run "$SC" export --chrome "$T/a.json" "$T/a.sc"
	want_rc 0
	validate "$T/a.json" > "$T/v" 2>&1 || problem "$(head -3 "$T/v" | tr '\n' '|')"
	"$SF" "$T/a.sc" > "$T/a.cap"
	"$SF" "$T/a.json" > "$T/a.trace"
	compare cpu "$T/a.cap" "$T/a.trace" > "$T/cmp" 2>&1 || problem "$(head -3 "$T/cmp" | tr '\n' '|')"
	"$SF" --threads --metric samples "$T/a.sc" > "$T/samples"
	compare threads "$T/samples" "$T/a.json" 999 > "$T/cmp" 2>&1 || problem "$(head -3 "$T/cmp" | tr '\n' '|')"
	grep -q '"name":"\[memory\]"' "$T/a.json" || problem "no [memory] events"
	finish "b. a real capture (alloc_pattern --alloc): valid, CPU stacks and thread totals read back"
fi

if begin "b. naming options as stackfold's: export --lines reads back as stackfold --lines"; then
	run "$SC" export -q --lines --chrome "$T/lines.json" "$T/a.sc"
	want_rc 0
	"$SF" --lines "$T/a.sc" > "$T/a.cap"
	"$SF" "$T/lines.json" > "$T/a.trace"
	compare cpu "$T/a.cap" "$T/a.trace" > "$T/cmp" 2>&1 || problem "$(head -3 "$T/cmp" | tr '\n' '|')"
	grep -q '\.c:[0-9]*)' "$T/a.trace" || problem "no (file.c:N) frames"
	finish "b. naming options as stackfold's: export --lines reads back as stackfold --lines"
fi
expect_usage "--python-names is line or torch" "b. a bad naming option is a usage error" -- \
	"$SC" export --python-names=bogus --chrome "$T/x.json" "$T/a.sc"

if begin "b. memtimeline reads the trace's [memory] events back as the capture's (cpu, cuda:0, cuda:1)"; then
	for dev in cpu cuda:0 cuda:1; do
		"$BUILD/memtimeline" --device $dev --summary "$T/g.sc" 2> /dev/null | grep -v '^warnings' > "$T/m.cap"
		"$BUILD/memtimeline" --device $dev --summary "$T/g.json" 2> /dev/null | grep -v '^warnings' > "$T/m.trace"
		grep -q '^events: *[1-9][0-9]* (.* [1-9][0-9]* DESTROY)' "$T/m.cap" || problem "$dev: no frees: $(head -1 "$T/m.cap")"
		cmp -s "$T/m.cap" "$T/m.trace" || problem "$dev: $(diff "$T/m.cap" "$T/m.trace" | head -3 | tr '\n' '|')"
	done
	finish "b. memtimeline reads the trace's [memory] events back as the capture's (cpu, cuda:0, cuda:1)"
fi

# A Python program: its frames named as stackfold names them (--python-only).
cat > "$T/busy.py" <<'PY'
def inner(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


def outer():
    return sum(inner(20000) for _ in range(100))


outer()
PY
desc="b. a Python program's frames: export --python-only reads back as stackfold --python-only"
if ! wanted "$desc"; then
	:
elif "$SC" -o "$T/py.sc" /usr/bin/python3 "$T/busy.py" > /dev/null 2>&1 &&
     "$SC" info "$T/py.sc" | grep -q '^python: .*frames on'; then
	begin "$desc"
	run "$SC" export -q --python-only --chrome "$T/py.json" "$T/py.sc"
	want_rc 0
	"$SF" --python-only "$T/py.sc" > "$T/py.cap"
	"$SF" "$T/py.json" > "$T/py.trace"
	compare cpu "$T/py.cap" "$T/py.trace" > "$T/cmp" 2>&1 || problem "$(head -3 "$T/cmp" | tr '\n' '|')"
	grep -q 'busy.py([0-9]*):_inner' "$T/py.trace" || problem "no busy.py frames: $(head -c 300 "$T/py.trace")"
	finish "$desc"
else
	skip "$desc" "no Python frames in a capture of /usr/bin/python3 here (CPython 3.11-3.13 needed)"
fi

# ---- c. outputs ----

expect_exit 0 "c. --chrome FILE.json.gz writes gzip" -- "$SC" export -q --chrome "$T/g.json.gz" "$T/g.sc"
if begin "c. the .gz trace is the plain one, compressed"; then
	gzip -dc "$T/g.json.gz" > "$T/gz.json" 2> "$T/err" || problem "gzip -dc failed: $(cat "$T/err")"
	cmp -s "$T/gz.json" "$T/g.json" || problem "differs from the plain trace"
	finish "c. the .gz trace is the plain one, compressed"
fi
expect_exit 0 "c. --chrome - writes to stdout" -- "$SC" export -q --chrome - "$T/g.sc"
then_stdout_same "$T/g.json" "c. stdout is the same trace as the file"
if begin "c. a capture from a pipe (-) gives the same events"; then
	cat "$T/g.sc" | "$SC" export -q --chrome "$T/pipe.json" - 2> "$T/err"
	python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a["traceEvents"] == b["traceEvents"], "events differ"
assert b["flamekit"]["captures"][0]["file"] == "<stdin>"
' "$T/g.json" "$T/pipe.json" 2> "$T/py" || problem "$(tail -1 "$T/py")"
	finish "c. a capture from a pipe (-) gives the same events"
fi
if begin "c. two captures in one trace: both processes, valid, the second's correlation ids offset"; then
	run "$SC" export --chrome "$T/two.json" "$T/a.sc" "$T/g.sc"
	want_rc 0
	validate "$T/two.json" > "$T/v" 2>&1 || problem "$(head -3 "$T/v" | tr '\n' '|')"
	python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
c = d["flamekit"]["captures"]
assert [x["correlation_offset"] for x in c] == [0, 1 << 32], c
pids = {e["pid"] for e in d["traceEvents"] if e["ph"] == "M" and e["name"] == "process_name"}
assert {c[0]["pid"], c[1]["pid"]} <= pids, pids
ids = [e["id"] for e in d["traceEvents"] if e["ph"] in "sf" and e.get("cat") == "ac2g"]
assert ids and all(i > 1 << 32 for i in ids), ids[:3]
' "$T/two.json" 2> "$T/py" || problem "$(tail -1 "$T/py")"
	finish "c. two captures in one trace: both processes, valid, the second's correlation ids offset"
fi
expect_stderr_contains 0 "are both pid 4242: their threads share" "c. two captures of one pid: said" -- \
	"$SC" export --chrome "$T/same.json" "$T/g.sc" "$T/g.sc"

# ---- d. errors and losses ----

expect_stderr_contains 1 "$T/none.sc" "d. an unreadable capture: exit 1, named" -- \
	"$SC" export --chrome "$T/none.json" "$T/none.sc"
if begin "d. ... and no trace is left behind"; then
	[ -e "$T/none.json" ] && problem "$T/none.json exists"
	finish "d. ... and no trace is left behind"
fi
expect_stderr_contains 1 "$T/no/such/dir/t.json" "d. an output that cannot be created: exit 1, named" -- \
	"$SC" export --chrome "$T/no/such/dir/t.json" "$T/g.sc"
expect_stderr_contains 1 "write error" "d. a full disk: exit 1, write error" -- \
	"$SC" export -q --chrome /dev/full "$T/g.sc"
printf 'not a capture\n' > "$T/text.sc"
expect_exit 1 "d. a file that is not a capture: exit 1" -- "$SC" export --chrome "$T/t.json" "$T/text.sc"

mid=$(capfile middle "$T/g.sc")
capfile flip "$T/g.sc" "$T/flip.sc" "$mid" > /dev/null
expect_exit 0 "d. a damaged capture is exported" -- "$SC" export --chrome "$T/flip.json" "$T/flip.sc"
then_lines err "incomplete capture: .*damaged chunk" 1 "d. ... its loss reported on stderr in one line"
if begin "d. ... and written into the trace's metadata"; then
	python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["flamekit"]["captures"][0]
assert "damaged chunk" in (c["loss"] or ""), c
' "$T/flip.json" 2> "$T/py" || problem "$(tail -1 "$T/py")"
	validate "$T/flip.json" > "$T/v" 2>&1 || problem "$(head -3 "$T/v" | tr '\n' '|')"
	finish "d. ... and written into the trace's metadata"
fi
expect_stderr_contains 1 "incomplete capture (--strict)" "d. --strict: a damaged capture is an error" -- \
	"$SC" export --strict --chrome "$T/strict.json" "$T/flip.sc"
if begin "d. ... and no trace is written"; then
	[ -e "$T/strict.json" ] && problem "$T/strict.json exists"
	finish "d. ... and no trace is written"
fi
size=$(wc -c < "$T/g.sc")
capfile cut "$T/g.sc" "$T/cut.sc" $((size * 2 / 3))
expect_stderr_contains 0 "no END chunk" "d. a cut capture: what is left, the loss said" -- \
	"$SC" export --chrome "$T/cut.json" "$T/cut.sc"
if begin "d. ... the cut trace is valid, its loss in the metadata"; then
	validate "$T/cut.json" > "$T/v" 2>&1 || problem "$(head -3 "$T/v" | tr '\n' '|')"
	grep -q '"loss":"no END chunk' "$T/cut.json" || problem "no loss in the metadata"
	finish "d. ... the cut trace is valid, its loss in the metadata"
fi

if begin "d. each chunk of the CUDA capture damaged in turn: a valid trace with the loss said, never a crash"; then
	k=0
	for i in $(capfile chunks "$T/g.sc" | awk '{ print $1 }'); do
		k=$((k + 1))
		capfile flip "$T/g.sc" "$T/m.sc" "$i" > /dev/null
		"$SC" export --chrome "$T/m.json" "$T/m.sc" > /dev/null 2> "$T/err"
		rc=$?
		if [ $rc -ne 0 ]; then
			problem "chunk $i: exit $rc: $(stderr_head)"
		elif ! grep -q 'incomplete capture' "$T/err"; then
			problem "chunk $i: no loss reported"
		elif ! validate "$T/m.json" > "$T/v" 2>&1; then
			problem "chunk $i: $(head -2 "$T/v" | tr '\n' '|')"
		fi
		grep -q '"loss":null' "$T/m.json" && problem "chunk $i: no loss in the metadata"
	done
	[ $k -ge 10 ] || problem "only $k chunks"
	finish "d. each chunk of the CUDA capture damaged in turn: a valid trace with the loss said, never a crash ($k chunks)"
fi

expect_usage "say what to write" "d. usage: no --chrome" -- "$SC" export "$T/g.sc"
expect_usage "no capture to export" "d. usage: no capture" -- "$SC" export --chrome "$T/x.json"
expect_usage "--bogus" "d. usage: an unknown option" -- "$SC" export --bogus --chrome "$T/x.json" "$T/g.sc"
expect_stdout_contains 0 "ui.perfetto.dev" "d. --help says how to open the trace" -- "$SC" export --help

done_testing
