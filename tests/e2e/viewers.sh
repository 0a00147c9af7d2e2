#!/bin/sh
# stackfold --format speedscope and --format pprof against stackfold's own
# folded text: every stack and value, exact totals (tests/e2e/viewers/
# profiles.py checks both without the C writers' help). speedscope files
# by their schema's rules here (the browser suite opens them in speedscope
# itself); pprof files read by the real `go tool pprof` (-raw and -top),
# skipped with the reason when Go is not installed. Inputs: folded text,
# torch export_stacks, perf script, and captures with several metrics
# (CPU time, samples, allocations; GPU time and bytes). Also the errors: a
# value pprof cannot hold, differential input, --format combinations that
# make no sense. In the language of tests/e2e/lib.sh.
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
SF=$BUILD/stackfold
CHECK="python3 tests/e2e/viewers/profiles.py"
. "$root/tests/e2e/lib.sh"
cd "$root" || exit 1
cap=tests/fuzz/corpus/capture manual=samples/torch/stacks_gelu_manual.txt
agg=tests/e2e/data/fold_agg.txt perf=samples/perf/cpu_shares.perf.txt

# fold NAME ARGS...: stackfold's folded text into $T/NAME.txt (warnings of
# the captures' foreign binaries left out).
fold() { f=$1; shift; "$SF" -q "$@" > "$T/$f.txt"; }

printf 'main;parse;lex 7\nmain;run;compute 15\nmain 3\nidle 1\nmain;0x7f00deadbeef 2\n' > "$T/int.txt"

# ---- speedscope ----

expect_exit 0 "speedscope: a folded file with decimals as one sampled profile" -- \
	"$SF" --format speedscope "$agg"
then_stdout_contains '"unit":"none","startValue":0,"endValue":28.75,' \
	"speedscope: its endValue is the exact folded total 28.75"
keep "$T/agg.json"
$CHECK speedscope "$T/agg.json" "$agg"
check "speedscope: the folded file's stacks and values, frames shared (schema rules)" $?

"$SF" --format speedscope "$manual" > "$T/gelu.json" && grep -q '"unit":"microseconds"' "$T/gelu.json" &&
	grep -q '"name":"stacks_gelu_manual.txt"' "$T/gelu.json" && $CHECK speedscope "$T/gelu.json" "$manual"
check "speedscope: a torch export_stacks file in microseconds, named after the file" $?

# hz CAPTURE: its sampling rate, as stackcap info says it.
hz() { "$BUILD/stackcap" info "$1" | sed -n 's/^sampling: *\([0-9]*\) Hz.*/\1/p'; }
# threads NAME ARGS...: the folded text of stackfold --threads ARGS, one
# file per thread (root frame cut): their names in $threads.
threads() {
	f=$1; shift; fold "$f" --threads "$@"; threads=
	for t in $(cut -d';' -f1 "$T/$f.txt" | LC_ALL=C sort -u); do
		grep "^$t;" "$T/$f.txt" | sed 's/^[^;]*;//' > "$T/$f.$t.txt"
		threads="$threads $T/$f.$t.txt"
	done
}
shares=$cap/cpu_shares.stackcap
hz=$(hz "$shares")
fold cpu --metric self_cpu_time_total "$shares"
fold samples --metric samples "$shares"
threads ths --metric samples "$shares"
set -- "$T/cpu.txt" "$T/samples.txt"
for t in $threads; do set -- "$@" "$t@$hz"; done
"$SF" -q --format speedscope "$shares" > "$T/shares.json" &&
	$CHECK speedscope "$T/shares.json" "$@" && [ $# -eq 4 ] && [ "$hz" = 999 ]
check "speedscope: a two-thread capture gives CPU time, samples and each thread in time order (evented)" $?

fold scpu --strip-addresses --metric self_cpu_time_total "$shares"
fold ssamples --strip-addresses --metric samples "$shares"
threads sths --strip-addresses "$shares"
"$SF" -q --format speedscope --strip-addresses "$shares" > "$T/strip.json" &&
	$CHECK speedscope "$T/strip.json" "$T/scpu.txt" "$T/ssamples.txt" $threads
check "speedscope: after --strip-addresses each thread is a sampled profile of its sums" $?

fold alloc_bytes --metric alloc_bytes "$cap/alloc_pattern.stackcap"
threads aths --metric samples "$cap/alloc_pattern.stackcap"
"$SF" -q --format speedscope --metric alloc_bytes "$cap/alloc_pattern.stackcap" > "$T/ab.json" &&
	grep -q '"unit":"bytes"' "$T/ab.json" &&
	$CHECK speedscope "$T/ab.json" "$T/alloc_bytes.txt" $threads@$(hz "$cap/alloc_pattern.stackcap")
check "speedscope: --metric alloc_bytes: one profile in bytes (and the thread in time order)" $?

"$SF" -q --format speedscope "$shares" "$cap/alloc_pattern.stackcap" > "$T/two.json" && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
kinds = [(p["type"], p["name"].split(" (", 1)[1]) for p in d["profiles"]]
assert d["name"] == "cpu_shares.stackcap", d["name"]
assert [k for k in kinds if k[0] == "sampled"] == [("sampled", n + ")") for n in
	("cpu", "samples", "alloc_space", "alloc_objects")], kinds
assert len([k for k in kinds if k[0] == "evented"]) == 3, kinds
' "$T/two.json"
check "speedscope: two captures: their metrics side by side, their three threads in time order" $?
"$SF" -q --format speedscope --tag-files "$shares" "$cap/alloc_pattern.stackcap" |
	python3 -c 'import json, sys; assert len(json.load(sys.stdin)["profiles"]) == 4'
check "speedscope: --tag-files: the inputs at the root, no per-thread profiles" $?

"$SF" -q --format speedscope --threads "$shares" > "$T/th.json" && fold thcpu --threads "$shares" &&
	fold thsamples --threads --metric samples "$shares" &&
	$CHECK speedscope "$T/th.json" "$T/thcpu.txt" "$T/thsamples.txt"
check "speedscope: --threads puts the threads at the root of each profile instead" $?

printf 'a "q";b\\c 1\nx\001y;\303\251t\303\251 2\nbad\377byte 3\n' > "$T/esc.txt"
"$SF" --format speedscope "$T/esc.txt" > "$T/esc.json" && python3 -c '
import json, sys
d = json.load(open(sys.argv[1], encoding="utf-8"))
names = {f["name"] for f in d["shared"]["frames"]}
assert {"a \"q\"", "b\\c", "x\x01y", "\u00e9t\u00e9", "bad\ufffdbyte"} <= names, names
' "$T/esc.json"
check "speedscope: quotes, backslashes, control bytes, UTF-8 and bad bytes escaped as JSON" $?

printf ' 5\na;;b 3\n' | "$SF" --format speedscope > "$T/empty.json" && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] for f in d["shared"]["frames"]]
assert names == ["a", "", "b"], names
assert d["profiles"][0]["samples"] == [[], [0, 1, 2]], d["profiles"][0]["samples"]
' "$T/empty.json"
check "speedscope: an empty stack has no frames and adds none to the table (frames in order of use)" $?

# ---- pprof, read by go tool pprof ----

# A recursive stack is deeper than there are names: its sample still has a
# location per frame (under SANITIZE=1, a write past them is a finding).
printf 'a;a;a;a;a;a;a;a;a;a 1\nb;a 2\n' > "$T/rec.txt"
"$SF" --format pprof -o "$T/rec.pb.gz" "$T/rec.txt" && gzip -t "$T/rec.pb.gz" &&
	{ ! command -v go > /dev/null 2>&1 ||
	  { go tool pprof -raw "$T/rec.pb.gz" > "$T/rec.raw" 2> "$T/rec.err" &&
	    $CHECK pprof "$T/rec.raw" "value:count:1=$T/rec.txt"; }; }
check "pprof: a recursive stack deeper than the names there are keeps every frame" $?

if ! command -v go > /dev/null 2>&1; then
	for d in "folded integers" "a torch export_stacks file" "perf script" \
		 "a capture: CPU time, samples, allocation bytes and counts" \
		 "a capture: GPU time and GPU bytes" "-top totals"; do
		skip "pprof: go tool pprof reads $d" "go not found (Debian package golang-go)"
	done
else
	# raw NAME FILE.pb.gz: go tool pprof -raw into $T/NAME.raw.
	raw() { go tool pprof -raw "$2" > "$T/$1.raw" 2> "$T/$1.err"; }

	"$SF" --format pprof -o "$T/int.pb.gz" "$T/int.txt" && raw int "$T/int.pb.gz" &&
		$CHECK pprof "$T/int.raw" "value:count:1=$T/int.txt" &&
		grep -q '0x7f00deadbeef M=1 0x7f00deadbeef' "$T/int.raw"
	check "pprof: go tool pprof reads folded integers: same stacks and values; an address frame keeps its address" $?

	"$SF" --format pprof -o "$T/gelu.pb.gz" "$manual" && raw gelu "$T/gelu.pb.gz" &&
		$CHECK pprof "$T/gelu.raw" "cpu:nanoseconds:1000=$manual"
	check "pprof: go tool pprof reads a torch export_stacks file (us as ns, names unchanged)" $?

	fold perf "$perf"
	"$SF" -q --format pprof -o "$T/perf.pb.gz" "$perf" && raw perf "$T/perf.pb.gz" &&
		$CHECK pprof "$T/perf.raw" "samples:count:1=$T/perf.txt"
	check "pprof: go tool pprof reads perf script: samples per stack" $?

	fold acpu --metric self_cpu_time_total "$cap/alloc_pattern.stackcap"
	fold asamples --metric samples "$cap/alloc_pattern.stackcap"
	fold acount --metric alloc_count "$cap/alloc_pattern.stackcap"
	"$SF" -q --format pprof -o "$T/alloc.pb.gz" "$cap/alloc_pattern.stackcap" &&
		raw alloc "$T/alloc.pb.gz" &&
		$CHECK pprof "$T/alloc.raw" "cpu:nanoseconds:1000=$T/acpu.txt" \
			"samples:count:1=$T/asamples.txt" "alloc_space:bytes:1=$T/alloc_bytes.txt" \
			"alloc_objects:count:1=$T/acount.txt" &&
		grep -q '^PeriodType: cpu nanoseconds$' "$T/alloc.raw" &&
		grep -q '^Period: 1001001$' "$T/alloc.raw" && grep -q '^Time: ' "$T/alloc.raw"
	check "pprof: go tool pprof reads a capture: CPU time, samples, allocation bytes and counts; period 1/999 Hz, time" $?

	fold cuda --metric self_cuda_time_total "$cap/gpu.stackcap"
	fold gbytes --metric gpu_alloc_bytes "$cap/gpu.stackcap"
	"$SF" -q --format pprof -o "$T/gpu.pb.gz" "$cap/gpu.stackcap" && raw gpu "$T/gpu.pb.gz" &&
		$CHECK pprof "$T/gpu.raw" "cuda:nanoseconds:1000=$T/cuda.txt" \
			"gpu_alloc_space:bytes:1=$T/gbytes.txt"
	check "pprof: go tool pprof reads a capture: GPU time and GPU bytes" $?

	# -top's totals, per sample type, against the folded sums.
	begin
	for spec in cpu:ns:1000:acpu samples:ns:1:asamples alloc_space:B:1:alloc_bytes \
		    alloc_objects:B:1:acount; do
		IFS=: read -r type unit factor f <<EOF
$spec
EOF
		got=$(go tool pprof -top -unit="$unit" -sample_index="$type" "$T/alloc.pb.gz" 2>/dev/null |
		      sed -n 's/.* of \([0-9]*\)[a-zA-Z]* total$/\1/p')
		want=$(awk -v k="$factor" '{ s += $NF } END { printf "%.0f", s * k }' "$T/$f.txt")
		[ -n "$got" ] && [ "$got" = "$want" ] || problem "-top -sample_index=$type: total '$got', folded $want"
	done
	finish "pprof: go tool pprof -top totals of a capture's four sample types equal the folded totals"
fi

# ---- errors ----

printf 'a;b 9223372036854775807\na;c 9223372036854775808\n' > "$T/big.txt"
expect_stderr_contains 1 '"a;c": 9223372036854775808 (value) passes' \
	"pprof: a value past INT64_MAX is an error naming the stack (never wrapped)" -- \
	"$SF" --format pprof -o "$T/big.pb.gz" "$T/big.txt"
[ ! -e "$T/big.pb.gz" ]
check "pprof: after that error no output file is left" $?
printf 'a 9223372036854776\n' > "$T/bigus.txt"
expect_stderr_contains 1 '9223372036854776 us (cpu) passes' \
	"pprof: microseconds past INT64_MAX once made nanoseconds are an error" -- \
	"$SF" --format pprof --metric self_cpu_time_total -o "$T/x.pb.gz" "$T/bigus.txt"
expect_stderr_contains 1 '"main;run;io": 3.75 (value) is not a whole number' \
	"pprof: a fraction is an error (not rounded)" -- \
	"$SF" --format pprof -o "$T/x.pb.gz" "$agg"
expect_exit 0 "pprof: --scale makes decimals whole" -- \
	"$SF" --format pprof --scale 100 -o "$T/x.pb.gz" "$agg"
expect_stderr_contains 1 'differential stacks' \
	"pprof: differential input is refused (one value per stack)" -- \
	"$SF" --format pprof -o "$T/x.pb.gz" tests/e2e/data/fold_diff.in
expect_stderr_contains 1 'differential stacks' \
	"speedscope: differential input is refused" -- \
	"$SF" --format speedscope tests/e2e/data/fold_diff.in
expect_usage "not with --table" "usage: --format speedscope with --table" -- \
	"$SF" --format speedscope --table "$agg"
expect_usage "not with --table, --info or --diff" "usage: --format pprof with --diff" -- \
	"$SF" --format pprof --diff "$agg" "$agg"
expect_usage "--sort and --min shape folded text" "usage: --format speedscope with --sort value" -- \
	"$SF" --format speedscope --sort value "$agg"
expect_usage "--sort and --min shape folded text" "usage: --format pprof with --min" -- \
	"$SF" --format pprof --min 2 "$agg"
expect_usage "'xml' is not folded, speedscope or pprof" "usage: an unknown --format" -- \
	"$SF" --format xml "$agg"
expect_usage "--format text|csv|json shape a --table" "usage: --format csv without --table" -- \
	"$SF" --format csv "$agg"
"$SF" --format folded "$T/int.txt" > "$T/f1" && "$SF" "$T/int.txt" > "$T/f2" && cmp -s "$T/f1" "$T/f2"
check "--format folded is the default folded text" $?

# ---- loss is said in the files too ----

python3 -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[len(d) // 2] ^= 0x40
open(sys.argv[2], "wb").write(d)' "$shares" "$T/damaged.stackcap"
"$SF" -q --format speedscope "$T/damaged.stackcap" > "$T/damaged.json" 2> /dev/null && python3 -c '
import json, sys
name = json.load(open(sys.argv[1]))["name"]
assert name.startswith("damaged.stackcap (incomplete: ") and "damaged chunk" in name, name' "$T/damaged.json"
check "speedscope: a damaged capture's loss is in the document's name" $?
"$SF" -q --format pprof -o "$T/damaged.pb.gz" "$T/damaged.stackcap" 2> /dev/null &&
	gzip -dc "$T/damaged.pb.gz" | grep -aq "incomplete input: .*damaged chunk"
check "pprof: a damaged capture's loss is one of the profile's comments" $?
done_testing
