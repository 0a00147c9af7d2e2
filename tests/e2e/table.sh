#!/bin/sh
# stackfold --table: torch's key_averages().table for stack files, perf
# script and captures. Goldens (tests/e2e/table/) were checked by hand: the
# per-op sums, calls and shares of the GELU sample against an awk sum of the
# raw file (done again below on every run, from the CSV output). Also:
# recursion counted once per stack, empty and bad input, usage errors, and
# tables of real captures (CPU shares, allocation bytes and counts). In the
# language of tests/e2e/lib.sh.
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/e2e/table
SF=$BUILD/stackfold
. "$root/tests/e2e/lib.sh"
cd "$root" || exit 1
manual=samples/torch/stacks_gelu_manual.txt fused=samples/torch/stacks_gelu_fused.txt

"$SF" --table --by leaf --metric self_cpu_time_total --strip-addresses "$manual" > "$T/out"
cmp -s "$T/out" "$here/gelu_manual.leaf.txt"
check "GELU manual, --by leaf: the golden table (4 ops, 514 calls)" $?
"$SF" --table --tag-files --strip-addresses --metric self_cpu_time_total --sort total --limit 8 \
	"$manual" "$fused" > "$T/out"
cmp -s "$T/out" "$here/gelu_both.total.txt"
check "GELU manual and fused, tagged, --sort total --limit 8: the golden table" $?

# The CSV against an awk sum of the raw lines: per leaf op, exact sums and
# line counts.
"$SF" --table --by leaf --metric self_cpu_time_total --format csv --strip-addresses "$manual" |
	awk -F, 'NR > 1 { print $1, $2, $7 }' | sort > "$T/csv"
awk '{ v = $NF; s = $0; sub(/ [0-9]+$/, "", s); k = split(s, f, ";"); leaf = f[k]
       gsub(/_at_0x[0-9a-f]+/, "", leaf); sum[leaf] += v; cnt[leaf]++ }
     END { for (l in sum) print l, sum[l], cnt[l] }' "$manual" | sort > "$T/awk"
cmp -s "$T/csv" "$T/awk"
check "the CSV's self times and calls are the raw file's sums and line counts" $?

"$SF" --table --format json --metric self_cpu_time_total "$manual" "$fused" > "$T/json"
python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["metrics"][0]["key"] == "cpu_time_us" and d["metrics"][0]["total"] == 2028460
assert d["calls"] == 534 and len(d["rows"]) == d["rows_total"]
r = {x["name"]: x for x in d["rows"]}
assert r["<built-in_function_gelu>"]["calls"] == 20
assert r["<built-in_function_gelu>"]["self_cpu_time_us"] == 476407
' "$T/json"
check "JSON: parses, totals and a row's fields as documented" $?

# Recursion: a frame counts once per stack in its total.
printf 'a;b;a 5\na 1\nb;c 2\n' > "$T/rec.txt"
"$SF" --table --format csv "$T/rec.txt" > "$T/out"
grep -qx 'a,6,75.00,6,75.00' "$T/out" && grep -qx 'b,0,0.00,7,87.50' "$T/out" &&
	grep -qx 'c,2,25.00,2,25.00' "$T/out"
check "recursion: a's total is 6 (not 11), b's 7, shares of 8" $?
"$SF" --table --by leaf --sort name --format csv "$T/rec.txt" | cut -d, -f1 | tr '\n' ' ' > "$T/out"
[ "$(cat "$T/out")" = "name a c " ]
check "--by leaf keeps the frames stacks end in; --sort name" $?

# perf script: the periods as plain numbers.
"$SF" --table --limit 3 samples/perf/cpu_shares.perf.txt > "$T/out"
sed -n 2p "$T/out" | grep -q 'Name        Self %          Self       Total %         Total' &&
	sed -n 4p "$T/out" | grep -q '^ *burn ' && grep -q '^Total: ' "$T/out"
check "perf script input: a table of periods, burn on top" $?

# Empty input: nothing (text, as torch), a header (CSV), no rows (JSON).
: > "$T/empty.txt"
"$SF" --table "$T/empty.txt" > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 0 ] && [ ! -s "$T/out" ] && grep -q 'no stacks found' "$T/err"
check "empty input: no table, a note, exit 0" $?
[ "$("$SF" -q --table --format csv "$T/empty.txt")" = "name,self_value,self_value_pct,total_value,total_value_pct" ]
check "empty input, CSV: the header line" $?
"$SF" -q --table --format json "$T/empty.txt" | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d["rows"] == [] and d["rows_total"] == 0'
check "empty input, JSON: no rows" $?

# Bad lines are skipped and reported; --strict stops.
printf 'a;b 1\nnot a stack line\na;c 2\n' > "$T/bad.txt"
"$SF" --table --format csv "$T/bad.txt" > "$T/out" 2> "$T/err"
[ $? = 0 ] && grep -q 'bad.txt:2:' "$T/err" && grep -qx 'c,2,66.67,2,66.67' "$T/out"
check "a bad line: FILE:LINE reported, the rest tabled" $?
"$SF" --strict --table "$T/bad.txt" > /dev/null 2>&1
[ $? = 1 ]
check "a bad line with --strict: exit 1" $?

# Usage errors: exit 2.
for args in "--table --by nothing" "--table --format xml" "--table --limit -1" "--by leaf" \
	    "--limit 3" "--table --sort stack" "--table --sort cuda_time_total" \
	    "--table --by kernel" "--table --metric self_cpu_time_total --sort cuda_time" \
	    "--table --info"; do
	selected "usage error: stackfold $args (exit 2, a message)" || continue
	"$SF" $args "$T/rec.txt" > /dev/null 2> "$T/err"
	rc=$?
	[ $rc = 2 ] && [ -s "$T/err" ]
	check "usage error: stackfold $args (exit 2, a message)" $?
done

# -o: the table goes to the file.
"$SF" --table -o "$T/t.txt" "$T/rec.txt" && grep -q '^Total: 8$' "$T/t.txt"
check "-o FILE" $?

# A capture's metrics on stack text would relabel its values (us as bytes).
for m in alloc_bytes alloc_count samples gpu_alloc_bytes; do
	expect_stderr_contains 1 "--metric $m reads stackcap captures" \
		"--metric $m on a torch stack file: refused, its microseconds are not $m" \
		-- "$SF" --table --metric $m "$root/samples/torch/stacks_gelu_manual.txt"
done

# Captures: CPU time per function (cpu_shares: 60/30/10), allocations
# (alloc_pattern: grow() 100 x 1 MiB, leak() 10 x 64 KiB). A capture that
# stackcap fails to write fails its cases.
cs=$BUILD/samples/cpu_shares ap=$BUILD/samples/alloc_pattern
set -- "a CPU capture: CPU columns only, no CUDA, no calls" \
	"a CPU capture: burn holds the self time, alpha none (--by leaf)" \
	"a CPU capture: alpha/beta/gamma_ totals near 60/30/10 %" \
	"a CPU capture: torch's footer" \
	"a CPU capture, --metric self_cuda_time_total: an error naming what it lacks, not an empty fold" \
	"a CPU capture, --table --metric self_cuda_time_total: an error, not the CPU table" \
	"a CPU capture, --metric alloc_bytes and gpu_alloc_bytes: errors, not empty folds" \
	"a cut capture: every reader says it is incomplete, in one line; memtimeline's summary and page too" \
	"a cut capture under --strict: an error in stackfold and memtimeline"
if [ ! -x "$cs" ] || [ ! -x "$BUILD/stackcap" ]; then
	for c; do skip "$c" "$BUILD/stackcap or $cs is not built"; done
elif wanted "$@"; then
	"$BUILD/stackcap" -o "$T/c.sc" "$cs" 0.5 > /dev/null 2>&1
	"$SF" --table --by leaf --format csv "$T/c.sc" > "$T/c.csv"
	head -1 "$T/c.csv" | grep -qx 'name,self_cpu_time_us,self_cpu_time_us_pct,total_cpu_time_us,total_cpu_time_us_pct'
	check "a CPU capture: CPU columns only, no CUDA, no calls" $?
	awk -F, '$1 == "burn" { b = $2 } { self[$1] = $2 }
		END { exit !(b > 0 && self["alpha"] == 0) }' "$T/c.csv"
	check "a CPU capture: burn holds the self time, alpha none (--by leaf)" $?
	"$SF" --table --format csv "$T/c.sc" |
		awk -F, '$1 == "alpha" { a = $5 } $1 == "beta" { b = $5 } $1 == "gamma_" { g = $5 }
			 END { exit !(a > 50 && a < 70 && b > 20 && b < 40 && g > 5 && g < 15) }'
	check "a CPU capture: alpha/beta/gamma_ totals near 60/30/10 %" $?
	"$SF" --table "$T/c.sc" | tail -1 | grep -q '^Self CPU time total: '
	check "a CPU capture: torch's footer" $?
	expect_stderr_contains 1 "--metric self_cuda_time_total: this capture has no GPU kernels" \
		"a CPU capture, --metric self_cuda_time_total: an error naming what it lacks, not an empty fold" \
		-- "$SF" --metric self_cuda_time_total "$T/c.sc"
	begin
	run "$SF" --table --metric self_cuda_time_total "$T/c.sc"
	want_rc 1; want_err "this capture has no GPU kernels"
	[ -s "$T/out" ] && problem "a table was written: $(head -c 200 "$T/out")"
	finish "a CPU capture, --table --metric self_cuda_time_total: an error, not the CPU table"
	begin
	run "$SF" --metric alloc_bytes "$T/c.sc"
	want_rc 1; want_err "no allocations (record them with stackcap --alloc)"
	run "$SF" --metric gpu_alloc_bytes "$T/c.sc"
	want_rc 1; want_err "this capture has no GPU allocations"
	finish "a CPU capture, --metric alloc_bytes and gpu_alloc_bytes: errors, not empty folds"
	size=$(wc -c < "$T/c.sc")
	head -c $((size - 40)) "$T/c.sc" > "$T/cut.sc"
	begin
	run "$SF" "$T/cut.sc"
	want_rc 0; want_err "cut.sc: incomplete capture: no END chunk"
	[ "$(grep -c 'incomplete capture' "$T/err")" = 1 ] || problem "not one line: $(stderr_head)"
	run "$SF" --table "$T/cut.sc"
	want_rc 0; want_err "cut.sc: incomplete capture: no END chunk"
	run "$BUILD/memtimeline" --summary "$T/cut.sc"
	want_err "cut.sc: incomplete capture: no END chunk"
	want_out "lost:      $T/cut.sc: no END chunk"
	"$BUILD/memtimeline" -q --html -o "$T/cut.html" "$T/cut.sc" 2> /dev/null
	grep -q '<b>Incomplete input:</b> .*cut.sc: no END chunk' "$T/cut.html" ||
		problem "the HTML report does not say the capture is incomplete"
	run "$SF" "$T/c.sc"
	grep -q "incomplete" "$T/err" && problem "a whole capture was called incomplete"
	finish "a cut capture: every reader says it is incomplete, in one line; memtimeline's summary and page too"
	begin
	run "$SF" --strict "$T/cut.sc"
	want_rc 1; want_err "incomplete capture (--strict)"
	[ -s "$T/out" ] && problem "stackfold wrote output"
	run "$BUILD/memtimeline" --strict --summary "$T/cut.sc"
	want_rc 1; want_err "incomplete capture (--strict)"
	finish "a cut capture under --strict: an error in stackfold and memtimeline"
fi
set -- "an allocation capture: grow 104857600 bytes in 100 calls, leak 655360 in 10" \
	"an allocation capture, text: torch's memory format (100.00 Mb)"
if [ ! -x "$ap" ] || [ ! -x "$BUILD/stackcap" ]; then
	for c; do skip "$c" "$BUILD/stackcap or $ap is not built"; done
elif wanted "$@"; then
	"$BUILD/stackcap" --alloc -o "$T/a.sc" "$ap" > /dev/null 2>&1
	"$SF" --table --metric alloc_bytes --by leaf --format csv "$T/a.sc" > "$T/a.csv"
	grep -q '^grow,104857600,104857600,100$' "$T/a.csv" && grep -q '^leak,655360,655360,10$' "$T/a.csv"
	check "an allocation capture: grow 104857600 bytes in 100 calls, leak 655360 in 10" $?
	"$SF" --table --metric alloc_bytes --by leaf "$T/a.sc" | grep -Eq '^ +grow +100\.00 Mb +100\.00 Mb +100  $'
	check "an allocation capture, text: torch's memory format (100.00 Mb)" $?
fi
# A capture with GPU records (the one the record-layer test builds: two
# gelu_kernel launches of 0.25 us, a 0.4 us copy, a 0.01 us memset, a graph
# kernel and one kernel with no host stack): --by kernel, worked by hand.
# test_gpurec is built only with the CUDA toolkit.
gpurec=$BUILD/tests/test_gpurec
set -- "a GPU capture, --by kernel: launches, shares of 1.06 us, averages, by hand" \
	"a GPU capture, text: the host frame holds 0.960 us over 5 launches (CPU shares NaN: no samples)" \
	"a GPU capture, --metric gpu_alloc_bytes: the 1 MiB allocation, no GPU time columns"
if [ ! -x "$gpurec" ]; then
	for c; do skip "$c" "no $gpurec (built with the CUDA toolkit only)"; done
elif wanted "$@"; then
	"$gpurec" --write-capture "$T/g.sc" 2> /dev/null
	"$SF" --table --by kernel --sort self_cuda_time_total --format csv "$T/g.sc" > "$T/out" 2> "$T/err"
	cat > "$T/want" <<'EOF2'
name,self_cpu_time_us,self_cpu_time_us_pct,total_cpu_time_us,total_cpu_time_us_pct,self_cuda_time_us,self_cuda_time_us_pct,total_cuda_time_us,total_cuda_time_us_pct,avg_cuda_time_us,calls
gelu_kernel,0,,0,,0.5,47.17,0.5,47.17,0.250,2
[memcpy HtoD],0,,0,,0.4,37.74,0.4,37.74,0.400,1
lonely,0,,0,,0.1,9.43,0.1,9.43,0.100,1
graph_kernel,0,,0,,0.05,4.72,0.05,4.72,0.050,1
[memset],0,,0,,0.01,0.94,0.01,0.94,0.010,1
EOF2
	cmp -s "$T/out" "$T/want" && [ ! -s "$T/err" ]
	check "a GPU capture, --by kernel: launches, shares of 1.06 us, averages, by hand" $?
	"$SF" --table "$T/g.sc" | grep -Eq '^ +\[unknown\] +NaN +0\.000us +NaN +0\.000us +0\.000us +0\.00% +0\.960us +0\.192us +5  $'
	check "a GPU capture, text: the host frame holds 0.960 us over 5 launches (CPU shares NaN: no samples)" $?
	"$SF" --table --metric gpu_alloc_bytes --format csv "$T/g.sc" > "$T/out"
	[ "$(cat "$T/out")" = "name,self_cuda_mem_bytes,total_cuda_mem_bytes,calls
[unknown],1048576,1048576,1" ]
	check "a GPU capture, --metric gpu_alloc_bytes: the 1 MiB allocation, no GPU time columns" $?
fi
# torch export_stacks without --metric: torch's default, self_cpu_time_total
# (the file's values are its microseconds); other stack text stays plain.
"$SF" --table "$manual" > "$T/default" 2> "$T/err"
"$SF" --table --metric self_cpu_time_total "$manual" > "$T/cpu"
begin
cmp -s "$T/default" "$T/cpu" || problem "differs from --metric self_cpu_time_total: $(diff "$T/default" "$T/cpu" | head -3)"
grep -q 'Self CPU' "$T/default" || problem "no Self CPU column"
printf 'main;work 30\nmain;idle 10\n' | "$SF" --table > "$T/plain"
grep -q 'Self CPU' "$T/plain" && problem "plain folded text got CPU columns"
grep -q ' Self ' "$T/plain" || problem "plain folded text: no Self column"
finish "torch export_stacks: --table defaults to torch's metric (CPU us); plain folded text stays unitless"

done_testing
