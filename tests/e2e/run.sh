#!/bin/sh
# shellcheck disable=SC2317 # helpers are called through "$@"
# End-to-end tests of the stackfold and flamegraph commands, in the language
# of tests/e2e/lib.sh: one "ok N - ..." or "not ok N - ..." line per case
# (failures add "# " lines), the plan "1..N" at the end. Runs every case
# (never stops at the first failure); exits 1 if any failed.
#
# Usage (from anywhere; paths are resolved against the repo root):
#   sh tests/e2e/run.sh build            # or build-san (make SANITIZE=1)
#   UPDATE_GOLDEN=1 sh tests/e2e/run.sh build   # rewrite tests/e2e/golden/*
#   ONLY=gzip sh tests/e2e/run.sh build  # only the cases that match
#
# Inputs are in tests/e2e/data/ (*.txt are well-formed and also feed the
# flamegraph.pl parity check in tests/run.sh; *.in are not parity inputs).
# Expected outputs are in tests/e2e/golden/. SVG goldens are normalized: the
# embedded viewer JS and CSS (render/flamegraph.js, .css, edited on their own)
# are elided, everything else (header, options, frames) is compared byte for
# byte.
#
# The flamegraph goldens were checked by eye once, and their frames compared
# with the real flamegraph.pl (FlameGraph checkout, same options, same input)
# with `python3 tests/parity/svg_frames.py`: the frame lists and the <svg>
# size line are identical for flame_default, flame_inverted, flame_reverse,
# flame_java, flame_chart and flame_diff (as of writing this file). After
# UPDATE_GOLDEN=1, redo that check before committing new goldens.
#
set -u
LC_ALL=C
export LC_ALL

if [ $# -ne 1 ]; then
	echo "usage: sh tests/e2e/run.sh BUILD_DIR" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
cd "$root" || exit 2
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "run.sh: no build directory '$1'" >&2; exit 2; }
SF=$BUILD/stackfold
FG=$BUILD/flamegraph
D=$root/tests/e2e/data
G=$root/tests/e2e/golden
for b in "$SF" "$FG"; do
	[ -x "$b" ] || { echo "Bail out! $b is missing (run make first)"; exit 2; }
done
command -v python3 >/dev/null 2>&1 || { echo "Bail out! python3 is needed"; exit 2; }

. "$root/tests/e2e/lib.sh"
want_xml() {
	python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$T/out" 2> "$T/xmlerr" ||
		problem "stdout is not well-formed XML: $(tail -n 1 "$T/xmlerr")"
}

# expect_svg DESC -- CMD...: exit 0, stdout is a well-formed SVG.
expect_svg() {
	skipped "$1" expect_svg "$@" && return 0
	d=$1; shift; sep "$1"; shift
	begin; run "$@"; want_rc 0; want_xml; want_out "</svg>"; finish "$d"
}
# expect_golden GOLDEN DESC -- CMD...: exit 0 and stdout equals
# tests/e2e/golden/GOLDEN (normalized when GOLDEN is an .svg).
expect_golden() {
	skipped "$2" expect_golden "$@" && return 0
	gname=$1 g=$G/$1 d=$2; shift 2; sep "$1"; shift
	begin; run "$@"; want_rc 0
	case "$g" in
	*.svg) want_xml; normalize_svg < "$T/out" > "$T/got" ;;
	*) cp "$T/out" "$T/got" ;;
	esac
	if [ -n "${UPDATE_GOLDEN:-}" ] && [ -z "$problems" ]; then
		if grep -qxF "$gname" "$T/updated" 2>/dev/null; then
			cmp -s "$g" "$T/got" || problem "cases sharing golden $gname disagree"
		else
			cp "$T/got" "$g"
			echo "$gname" >> "$T/updated"
			d="$d (golden updated)"
		fi
	elif [ ! -f "$g" ]; then
		problem "no golden file $g (UPDATE_GOLDEN=1 writes it)"
	elif ! cmp -s "$g" "$T/got"; then
		problem "output differs from golden $gname:"
		diff "$g" "$T/got" > "$T/diff"
		while IFS= read -r l; do problem "  $(printf '%s' "$l" | cut -c1-150)"; done <<EOF
$(head -n 6 "$T/diff")
EOF
	fi
	finish "$d"
}

# Follow-up checks on the output of the previous expect_* (lib.sh has the
# usual ones).
then_wellformed() { selected "$1" || return 0; begin; want_xml; finish "$1" nosan; }
fold_to_flame() { "$SF" "$@" | "$FG"; }             # stackfold ARGS | flamegraph (after "--")

# Drops the embedded viewer assets from an SVG (see the top of this file).
normalize_svg() {
	awk '
	/^<style type="text\/css">$/ { print; style = 1; k = 0; next }
	style && /^<\/style>$/ { print "[viewer CSS elided by tests/e2e/run.sh]"; print; style = 0; next }
	style { if (++k <= 2) print; next }
	/^<script type="text\/ecmascript">$/ { print; script = 1; buf = ""; next }
	script && /^<\/script>$/ {
		if (buf ~ /var fk_config/) printf "%s", buf; else print "[viewer JS elided by tests/e2e/run.sh]"
		print; script = 0; next
	}
	script { buf = buf $0 "\n"; next }
	{ print }'
}

# ------------------------------------------- 1. golden files: stackfold --

expect_golden fold_agg.txt "stackfold sums repeated stacks (decimals exactly), sorted by stack" -- "$SF" "$D/fold_agg.txt"
then_stdout_contains "main;run;io 3.75" "stackfold: 1.25 + 2.5 = 3.75 exactly"
expect_golden fold_sort_value.txt "stackfold --sort=value: largest first" -- "$SF" --sort=value "$D/fold_agg.txt"
expect_golden fold_include.txt "stackfold --include keeps stacks with a matching frame" -- "$SF" --include '_add_' "$D/fold_torch.txt"
expect_golden fold_include2.txt "stackfold --include twice: either pattern" -- "$SF" --include mul --include 'item_of' "$D/fold_torch.txt"
expect_golden fold_exclude.txt "stackfold --exclude twice drops stacks matching either" -- "$SF" --exclude Linear --exclude '^train\.py\(7\)' "$D/fold_torch.txt"
expect_golden fold_tag_files.txt "stackfold --tag-files over two files" -- in_dir "$D" "$SF" --tag-files fold_a.txt fold_b.txt
# Roots name each input by the fewest trailing path components that tell
# it from the others: the basename, else e.g. rank0/t.txt.
mkdir -p "$T/tag/rank0" "$T/tag/rank1" && cp "$D/fold_a.txt" "$T/tag/rank0/t.txt" &&
	cp "$D/fold_b.txt" "$T/tag/rank1/t.txt" && cp "$D/fold_b.txt" "$T/tag/b.txt"
begin
run "$SF" --tag-files "$D/fold_a.txt" "$T/tag/b.txt"
want_rc 0
[ "$(cut -d';' -f1 "$T/out" | sort -u | tr '\n' ' ')" = "b.txt fold_a.txt " ] || problem "roots: $(cut -d';' -f1 "$T/out" | sort -u | tr '\n' ' ')"
run "$SF" --tag-files "$T/tag/rank0/t.txt" "$T/tag/rank1/t.txt"
[ "$(cut -d';' -f1 "$T/out" | sort -u | tr '\n' ' ')" = "rank0/t.txt rank1/t.txt " ] || problem "same basenames: $(cut -d';' -f1 "$T/out" | sort -u | tr '\n' ' ')"
run "$SF" --tag-files "$T/tag/b.txt" "$T/tag/b.txt"
[ "$(cut -d';' -f1 "$T/out" | sort -u)" = "$T/tag/b.txt" ] || problem "the same file twice: $(cut -d';' -f1 "$T/out" | sort -u)"
finish "stackfold --tag-files: basenames when unique, else the shortest telling tails"
expect_golden fold_two_files.txt "stackfold merges several files" -- "$SF" "$D/fold_a.txt" "$D/fold_b.txt"
expect_golden fold_strip.txt "stackfold --strip-addresses merges two torch runs" -- "$SF" --strip-addresses "$D/fold_torch.txt" "$D/fold_torch_run2.txt"
expect_golden fold_scale.txt "stackfold --scale 0.001 (exact decimals)" -- "$SF" --scale 0.001 "$D/fold_agg.txt"
expect_golden fold_min.txt "stackfold --min 3.75 keeps values >= 3.75" -- "$SF" --min 3.75 "$D/fold_agg.txt"
expect_golden fold_diff.txt "stackfold sums both columns of differential input" -- "$SF" "$D/fold_diff.in"
expect_golden fold_agg.txt "stackfold reads '-' (stdin, a file)" -- feed "$D/fold_agg.txt" "$SF" -
expect_golden fold_agg.txt "stackfold reads '-' (stdin, a pipe)" -- pipe_in "$D/fold_agg.txt" "$SF" -
expect_golden fold_agg.txt "stackfold reads standard input without FILE" -- pipe_in "$D/fold_agg.txt" "$SF"
gzip -c "$D/fold_agg.txt" > "$T/agg.gz"
expect_golden fold_agg.txt "stackfold reads a .gz file" -- "$SF" "$T/agg.gz"
expect_golden fold_agg.txt "stackfold reads gzip data from stdin" -- feed "$T/agg.gz" "$SF" -
expect_golden fold_agg.txt "stackfold reads gzip data from a pipe" -- pipe_in "$T/agg.gz" "$SF" -
gzip -c "$D/fold_a.txt" > "$T/ab.gz"; gzip -c "$D/fold_b.txt" >> "$T/ab.gz"
expect_golden fold_two_files.txt "stackfold reads a multi-member .gz (cat a.gz b.gz)" -- "$SF" "$T/ab.gz"
expect_golden fold_mixed.txt "stackfold mixes .gz and plain inputs" -- "$SF" "$T/agg.gz" "$D/fold_a.txt" --min 4 "$D/fold_b.txt"

# ------------------------------------------ 1. golden files: flamegraph --
# (frames compared with flamegraph.pl, see the top of this file)

expect_golden flame_default.svg "flamegraph default options" -- "$FG" "$D/flame_small.txt"
expect_golden flame_inverted.svg "flamegraph --inverted" -- "$FG" --inverted "$D/flame_small.txt"
expect_golden flame_reverse.svg "flamegraph --reverse" -- "$FG" --reverse "$D/flame_small.txt"
expect_golden flame_java.svg "flamegraph --colors java" -- "$FG" --colors java "$D/flame_java.txt"
expect_golden flame_diff.svg "flamegraph differential input" -- "$FG" "$D/flame_diff.txt"
expect_golden flame_chart.svg "flamegraph --flamechart" -- "$FG" --flamechart "$D/flame_chart.txt"

# ------------------------------------------------------- 2. bad input --

printf 'main;ok 1\nmain;novalue\n' > "$T/noval.txt"
expect_stderr_contains 0 "noval.txt:2: no value at the end of the line" "line without a value: reported, skipped" -- "$SF" "$T/noval.txt"
then_stdout_contains "main;ok 1" "line without a value: the good line is kept"
then_stderr_lacks "noval.txt:1:" "line without a value: good lines are not reported"
expect_stderr_contains 0 "1 bad line skipped" "line without a value: summary line" -- "$SF" "$T/noval.txt"
printf 'main;neg -5\nmain;ok 2\n' > "$T/neg.txt"
expect_stderr_contains 0 "neg.txt:1: negative value" "negative value: reported, skipped" -- "$SF" "$T/neg.txt"
expect_stdout 0 "main;ok 2" "negative value: only the good line is written" -- "$SF" -q "$T/neg.txt"
printf 'a 1.25\na 2.5\nb 0.1\nb 0.2\n' > "$T/dec.txt"
expect_stdout 0 "a 3.75
b 0.3" "decimal values accepted and summed exactly (0.1 + 0.2 = 0.3)" -- "$SF" "$T/dec.txt"
expect_svg "decimal values: flamegraph accepts them" -- "$FG" "$T/dec.txt"
printf 'big 18446744073709551616\nmax 18446744073709551615\n' > "$T/over.txt"
expect_stderr_contains 0 "over.txt:1: value does not fit in 64 bits" "2^64 value: reported, skipped" -- "$SF" "$T/over.txt"
expect_stdout 0 "max 18446744073709551615" "2^64-1 value: accepted exactly" -- "$SF" -q "$T/over.txt"
# Sums are exact in 128 bits: past 2^64-1 they grow, never wrap, never fail.
printf 'a;b 18446744073709551615\na;b 1\n' > "$T/sum.txt"
expect_stdout 0 "a;b 18446744073709551616" "sum past 2^64-1: stackfold prints it exactly" -- "$SF" "$T/sum.txt"
then_stderr_empty "sum past 2^64-1: nothing reported"
expect_stdout_contains 0 "<title>b (18,446,744,073,709,551,616 samples, 100.00%)</title>" "sum past 2^64-1: exact in flamegraph's title" -- "$FG" "$T/sum.txt"
printf 'a 18446744073709551615\n' > "$T/max.txt"
printf 'a 1\n' > "$T/one.txt"
expect_stdout 0 "a 18446744073709551616" "sum past 2^64-1 over two files: exact" -- "$SF" "$T/max.txt" "$T/one.txt"
printf 'a 18446744073709551615\nb 1\n' > "$T/total.txt"
expect_stdout 0 "a 18446744073709551615
b 1" "two stacks whose total passes 2^64-1: both lines printed" -- "$SF" "$T/total.txt"
expect_stdout_contains 0 "<title>all (18,446,744,073,709,551,616 samples, 100%)</title>" "two stacks whose total passes 2^64-1: exact total in flamegraph" -- "$FG" "$T/total.txt"
printf 'a 18446744073709551615\na 18446744073709551615\na 18446744073709551615\n' > "$T/three.txt"
expect_stdout 0 "a 55340232221128654845" "three 2^64-1 values on one stack: exact sum" -- "$SF" "$T/three.txt"
expect_stdout_contains 0 "Total: 55340232221128654845" "--table: a total past 2^64-1 is exact" -- "$SF" --table "$T/three.txt"
then_stdout_contains "  55340232221128654845  " "--table: a row past 2^64-1 is exact"
expect_stdout_contains 0 '"total_value":55340232221128654845,' "--table --format json: exact digits past 2^64-1" -- "$SF" --table --format json "$T/three.txt"
then_stdout_contains '"total":55340232221128654845}' "--table --format json: exact metric total past 2^64-1"
expect_stdout_contains 0 "a,55340232221128654845,100.00,55340232221128654845," "--table --format csv: exact digits past 2^64-1" -- "$SF" --table --format csv "$T/three.txt"
expect_stdout 0 "a 36893488147419103230" "--scale 2 past 2^64-1: exact" -- "$SF" --scale 2 "$T/max.txt"
expect_stdout 0 "a 340282366920938463426481119284349108225" "--scale 2^64-1 of 2^64-1: exact, near 2^128" -- "$SF" --scale 18446744073709551615 "$T/max.txt"
expect_stderr_contains 1 "scaled or merged value passes 128 bits" "--scale past 2^128-1: exits 1" -- "$SF" --scale 18446744073709551615 "$T/three.txt"
then_stdout_empty "--scale past 2^128-1: nothing written"
expect_stdout 0 "a 9223372036854775807.5" "--scale 0.5 of 2^64-1: exact decimal" -- "$SF" --scale 0.5 "$T/max.txt"
printf 'a 18446744073709551615 1\na 1 1\n' > "$T/diff64.txt"
expect_stdout 0 "a 18446744073709551616 2" "differential: a before sum past 2^64-1 is exact" -- "$SF" "$T/diff64.txt"
printf 'a;b 18446744073709551615\nc 1\na;b 18446744073709551615\n' > "$T/chart64.txt"
expect_stdout_contains 0 "<title>all (36,893,488,147,419,103,231 samples, 100%)</title>" "--flamechart: a total past 2^64-1 is exact" -- "$FG" --flamechart "$T/chart64.txt"
then_stdout_contains "<title>b (18,446,744,073,709,551,615 samples, 50.00%)</title>" "--flamechart: a count of 2^64-1 is exact"
# Decimals count in the 128 bits: 19 values of about 2^64 with 18 decimals pass them.
for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19; do
	echo "d 18446744073709551615.999999999999999999"
done > "$T/dec128.txt"
expect_stderr_contains 1 "dec128.txt:19: sum of values passes 128 bits" "decimal sum past 128 bits: exits 1, names the line" -- "$SF" "$T/dec128.txt"
then_stdout_empty "decimal sum past 128 bits: nothing written"
head -n 18 "$T/dec128.txt" > "$T/dec18.txt"
expect_stdout 0 "d 332041393326771929087.999999999999999982" "decimal sum past 2^64-1: exact" -- "$SF" "$T/dec18.txt"
# One value past 2^64-1 (a stackfold output line can carry one) is still
# refused by the readers, reported and skipped, never wrapped.
printf 'main;x 36893488147419103230\nmain;y 5\n' > "$T/bigline.txt"
expect_stderr_contains 0 "bigline.txt:1: value does not fit in 64 bits" "value past 2^64-1: flamegraph reports and skips it" -- "$FG" "$T/bigline.txt"
then_stdout_lacks "18,446,744,073,709,551,614" "value past 2^64-1: flamegraph shows no wrapped count"
then_stdout_contains "<title>all (5 samples, 100%)</title>" "value past 2^64-1: flamegraph draws the rest"
# Big integer counts: flamegraph.pl sums integers exactly (Perl IV/UV), so a
# frame's count keeps its last digit below 2^53 (no 15-digit round trip).
printf 'main;c 1000000000000001\n' > "$T/bigint.txt"
expect_stdout_contains 0 "<title>c (1,000,000,000,000,001 samples, 100.00%)</title>" "count of 1e15+1: exact in c's title, as flamegraph.pl" -- "$FG" "$T/bigint.txt"
expect_stdout_contains 0 "<title>main (1,000,000,000,000,001 samples, 100.00%)</title>" "count of 1e15+1: exact in main's title, as flamegraph.pl" -- "$FG" "$T/bigint.txt"
# Above 2^53 flamegraph.pl's %.0f rounds (2^64-1 shows as ...616); integer
# counts are printed exactly instead.
printf 'main;c 18446744073709551615\n' > "$T/bigmax.txt"
expect_stdout_contains 0 "<title>main (18,446,744,073,709,551,615 samples, 100.00%)</title>" "count of 2^64-1: exact in main's title" -- "$FG" "$T/bigmax.txt"
expect_stdout_contains 0 "<title>all (55,340,232,221,128,654,845 samples, 100%)</title>" "count of 3 x (2^64-1): exact in the root's title" -- "$FG" "$T/three.txt"
expect_stdout_contains 0 "<title>main (36,893,488,147,419,103,230 samples, 100.00%)</title>" "count of 2^64-1, --factor 2: exact" -- "$FG" --factor 2 "$T/bigmax.txt"
expect_stdout_contains 0 "<title>main (9,223,372,036,854,775,808 samples, 100.00%)</title>" "count of 2^64-1, --factor 0.5: flamegraph.pl's %.0f of a double" -- "$FG" --factor 0.5 "$T/bigmax.txt"
printf 'a 1.0000000000000000001\nb 1\n' > "$T/prec.txt"
expect_stderr_contains 0 "prec.txt:1: value has more than 18 decimals" "value with 19 decimals: reported, skipped" -- "$SF" "$T/prec.txt"
printf 'main;a 1\nmain;b\000c 2\nmain;d 3\n' > "$T/nul.txt"
expect_stderr_contains 0 "nul.txt:2: NUL byte in line" "NUL byte in a line: reported, skipped" -- "$SF" "$T/nul.txt"
then_stdout_contains "main;d 3" "NUL byte in a line: the next line is kept"
expect_svg "NUL byte in a line: flamegraph draws the rest" -- "$FG" -q "$T/nul.txt"
expect_stderr_contains 1 "nul.txt:2: NUL byte in line" "NUL byte in a line, --strict: exit 1" -- "$SF" --strict "$T/nul.txt"
# 4 KiB of binary junk, always the same bytes (fixed seed).
python3 -c 'import random,sys; random.seed(20240601); sys.stdout.buffer.write(random.randbytes(4096))' > "$T/junk.bin"
expect_stderr_contains 0 "junk.bin:1: " "binary junk: stackfold reports bad lines, exit 0" -- "$SF" "$T/junk.bin"
then_stdout_empty "binary junk: no stacks written"
then_count err "bad lines skipped (" 1 "binary junk: summary with a hidden count"
then_count err "no stacks found" 1 "binary junk: 'no stacks found' note"
expect_stderr_contains 1 "No stack counts found" "binary junk: flamegraph exit 1" -- "$FG" "$T/junk.bin"
then_wellformed "binary junk: flamegraph's error SVG is well-formed"
expect_exit 1 "binary junk with --strict: exit 1" -- "$SF" --strict "$T/junk.bin"
python3 -c 'import sys; sys.stdout.write("main;other 1\nmain;" + "x" * (1 << 20) + ";leaf 5\n")' > "$T/longname.txt"
expect_exit 0 "1 MiB frame name: stackfold accepts it" -- "$SF" "$T/longname.txt"
then_stdout_same "$T/longname.txt" "1 MiB frame name: stackfold writes it unchanged"
expect_svg "1 MiB frame name: flamegraph SVG well-formed" -- "$FG" "$T/longname.txt"
then_count out "xxxxxxxxxxxxxxxx..</text>" 1 "1 MiB frame name: label cut with '..'"
expect_exit 0 "1 MiB frame name through a pipe (line split across reads)" -- pipe_in "$T/longname.txt" "$SF"
then_stdout_same "$T/longname.txt" "1 MiB frame name through a pipe: written unchanged"
gzip -c "$T/longname.txt" > "$T/longname.gz"
expect_exit 0 "1 MiB frame name in a .gz (line split across inflate chunks)" -- "$SF" "$T/longname.gz"
then_stdout_same "$T/longname.txt" "1 MiB frame name in a .gz: written unchanged"
expect_svg "1 MiB frame name in a .gz through a pipe: flamegraph" -- pipe_in "$T/longname.gz" "$FG"
python3 -c 'import sys; sys.stdout.write(";".join("f%d" % i for i in range(10000)) + " 7\n")' > "$T/deep.txt"
expect_exit 0 "10,000-frame stack: stackfold accepts it" -- "$SF" "$T/deep.txt"
then_stdout_same "$T/deep.txt" "10,000-frame stack: stackfold writes it unchanged"
expect_exit 0 "10,000-frame stack: stackfold --tag-files --strip-addresses --include" -- "$SF" --tag-files --strip-addresses --include 'f9999$' "$T/deep.txt"
expect_svg "10,000-frame stack: flamegraph SVG well-formed" -- "$FG" "$T/deep.txt"
then_count out "<g >" 10001 "10,000-frame stack: 10,001 frames drawn (with the root)"
expect_svg "10,000-frame stack: flamegraph --reverse --inverted" -- "$FG" --reverse --inverted "$T/deep.txt"
size=$(wc -c < "$T/agg.gz")
head -c 30 "$T/agg.gz" > "$T/cut.gz"
head -c $((size - 4)) "$T/agg.gz" > "$T/notrailer.gz"
expect_stderr_contains 1 "cut.gz: truncated gzip data" "truncated .gz: stackfold exit 1" -- "$SF" "$T/cut.gz"
then_stdout_empty "truncated .gz: stackfold writes nothing"
expect_stderr_contains 1 "notrailer.gz: truncated gzip data" "truncated .gz (trailer cut): stackfold exit 1" -- "$SF" "$T/notrailer.gz"
expect_stderr_contains 1 "<stdin>: truncated gzip data" "truncated .gz on stdin: exit 1" -- feed "$T/cut.gz" "$SF"
expect_stderr_contains 1 "cut.gz: truncated gzip data" "truncated .gz: flamegraph exit 1" -- "$FG" "$T/cut.gz"
{ cat "$T/agg.gz"; echo garbage; } > "$T/trailing.gz"
expect_stderr_contains 1 "trailing garbage after gzip data" ".gz with trailing garbage: exit 1" -- "$SF" "$T/trailing.gz"
: > "$T/empty.txt"
expect_stderr_contains 0 "empty.txt: no stacks found" "empty file: stackfold exit 0 with a note" -- "$SF" "$T/empty.txt"
then_stdout_empty "empty file: stackfold writes nothing"
expect_stderr_contains 0 "<stdin>: no stacks found" "empty stdin: stackfold exit 0 with a note" -- "$SF"
expect_stderr_contains 1 "No stack counts found" "empty file: flamegraph exit 1" -- "$FG" "$T/empty.txt"
then_wellformed "empty file: flamegraph's error SVG is well-formed"
then_stdout_contains "ERROR: No valid input provided to flamegraph." "empty file: flamegraph's error SVG says why"
printf 'main;a 1\nmain;bad\nmain;worse -1\nmain;c 2\n' > "$T/strict.txt"
expect_stderr_contains 1 "strict.txt:2: no value at the end of the line" "--strict: first bad line exits 1" -- "$SF" --strict "$T/strict.txt"
then_stderr_lacks "strict.txt:3:" "--strict: stops at the first bad line"
then_stdout_empty "--strict: stackfold writes nothing"
expect_stderr_contains 1 "strict.txt:2: no value at the end of the line" "--strict: flamegraph exits 1 too" -- "$FG" --strict "$T/strict.txt"
then_stdout_empty "--strict: flamegraph writes nothing"
printf 'main;bad%s\n' 1 2 3 4 5 6 7 8 > "$T/many.txt"
echo "main;good 1" >> "$T/many.txt"
expect_stderr_contains 0 "stackfold: 8 bad lines skipped (3 not shown)" "summary counts the bad lines beyond the first 5" -- "$SF" "$T/many.txt"
then_lines err '^.*many\.txt:[0-9]+: ' 5 "only the first 5 bad lines are shown"
expect_stderr_contains 0 "flamegraph: 8 bad lines skipped (3 not shown)" "flamegraph: same summary" -- "$FG" "$T/many.txt"
expect_stderr_contains 0 "18 bad lines skipped (13 not shown)" "summary counts bad lines over several files" -- "$SF" "$T/many.txt" "$T/many.txt" "$T/strict.txt"
expect_stdout 0 "main;good 1" "-q: bad lines not reported" -- "$SF" -q "$T/many.txt"
then_lines err '.' 0 "-q: stderr is empty"
printf 'main;a;b 1\r\nmain;a;c 2\r\nmain;a;b 3\r\n' > "$T/crlf.txt"
tr -d '\r' < "$T/crlf.txt" > "$T/lf.txt"
expect_exit 0 "LF input renders (reference for CRLF)" -- "$FG" "$T/lf.txt"; keep "$T/lf.svg"
expect_stdout 0 "main;a;b 4
main;a;c 2" "CRLF input: stackfold accepts it, no CR in output" -- "$SF" "$T/crlf.txt"
expect_svg "CRLF input: flamegraph accepts it (flamegraph.pl does not)" -- "$FG" "$T/crlf.txt"
then_stdout_same "$T/lf.svg" "CRLF input: same SVG as the LF input"
# invalid UTF-8 (\377, a cut 2-byte sequence, a surrogate, an overlong '/'),
# control characters (\001 \033 \177 \013) and valid UTF-8 (e acute).
printf 'main;bad\377utf;cut\303 3\nmain;sur\355\240\200;over\300\257 2\nmain;ctl\001\033[31m\177\013x;caf\303\251 4\n' > "$T/utf.txt"
expect_svg "invalid UTF-8 and control characters: well-formed SVG" -- "$FG" "$T/utf.txt"
then_stdout_contains "bad$(printf '\357\277\275')utf" "invalid UTF-8 becomes U+FFFD"
then_stdout_contains "caf$(printf '\303\251')" "valid UTF-8 is kept"
expect_svg "invalid UTF-8 in titles/options: well-formed SVG" -- "$FG" --title "$(printf 't\377\001')" --countname "$(printf 'c\300')" --nametype "$(printf 'n\355\240\200')" "$T/utf.txt"
expect_exit 0 "invalid UTF-8: stackfold passes the bytes through" -- "$SF" "$T/utf.txt"
then_stdout_contains "$(printf 'main;bad\377utf;cut\303 3')" "invalid UTF-8: stackfold output byte-exact"
expect_stderr_contains 1 "nosuch.txt: No such file or directory" "missing input file: exit 1" -- "$SF" "$T/nosuch.txt"
expect_stderr_contains 1 "is a directory" "directory as input: exit 1" -- "$FG" "$T"
expect_stderr_contains 1 "write error" "stackfold: write error (/dev/full) exits 1" -- to_full "$SF" "$D/fold_agg.txt"
expect_stderr_contains 1 "write error" "flamegraph: write error (/dev/full) exits 1" -- to_full "$FG" "$D/fold_agg.txt"

# -------------------------------------------------------- 3. escaping --

expect_svg "hostile frame names: well-formed SVG" -- "$FG" "$D/escape.txt"
then_count out "<script" 2 "hostile frame names: exactly our two <script elements"
then_stdout_lacks "<script>alert" "hostile frame names: no raw <script>alert"
then_count out "]]>" 2 "hostile frame names: ']]>' only ends our two CDATA sections"
then_stdout_contains "<title>&lt;script&gt;alert(1)&lt;/script&gt; (5 samples" "hostile frame names: <script> escaped in the tooltip"
then_stdout_contains "<title>&quot;double&quot; 'single' (3 samples" "hostile frame names: quotes escaped in the tooltip"
then_stdout_contains "<title>a&amp;b (3 samples" "hostile frame names: & escaped"
then_stdout_contains "<title>&lt;!-- comment --&gt; (1 samples" "hostile frame names: '<!--' escaped"
expect_svg "hostile frame names, --inverted --reverse --colors java" -- "$FG" --inverted --reverse --colors java "$D/escape.txt"
then_count out "<script" 2 "hostile frame names, other options: still two <script"
expect_svg "hostile frame names via stackfold | flamegraph" -- fold_to_flame "$D/escape.txt"
then_count out "<script" 2 "hostile frame names via stackfold: still two <script"
hostile='<script>alert(1)</script> & "q" ]]> --'
expect_svg "title/subtitle/countname/nametype/fonttype with < & \": well-formed" -- "$FG" --title "T$hostile" --subtitle "S$hostile" --countname "C$hostile" --nametype "N$hostile" --fonttype "F$hostile" "$D/flame_small.txt"
then_count out "<script" 2 "options with markup: still exactly two <script"
then_stdout_contains '<text id="title" x="600.00" y="24" >T&lt;script&gt;alert(1)&lt;/script&gt; &amp; "q" ]]&gt; --</text>' "--title escaped"
then_stdout_contains '>S&lt;script&gt;alert(1)&lt;/script&gt; &amp; "q" ]]&gt; --</text>' "--subtitle escaped"
then_stdout_contains '(86 C&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; ]]&gt; --, 100%)' "--countname escaped in tooltips"
then_stdout_contains '"nametype":"N\u003cscript\u003ealert(1)\u003c/script\u003e \u0026 \"q\" ]]\u003e --"' "--nametype escaped in the script's JSON"
then_stdout_contains 'font-family:F&lt;script&gt;alert(1)&lt;/script&gt; &amp; "q" ]]&gt; --;' "--fonttype escaped"
expect_svg "--notes with & and \": well-formed" -- "$FG" --notes 'a & "b"' "$D/flame_small.txt"
then_stdout_contains '<!-- NOTES: a &amp; "b" -->' "--notes escaped"
expect_svg "--encoding ISO-8859-1 declared" -- "$FG" --encoding ISO-8859-1 "$D/flame_small.txt"
then_stdout_contains '<?xml version="1.0" encoding="ISO-8859-1" standalone="no"?>' "--encoding written in the XML declaration"
begin; run "$FG" --encoding 'UTF-8"x' "$D/flame_small.txt"
[ "$rc" -eq 2 ] || want_xml; finish "--encoding with '\"': usage error or well-formed SVG"
expect_usage "--notes cannot contain" "--notes with '--' is refused (it would end the comment)" -- "$FG" --notes 'a -- b' "$D/flame_small.txt"
expect_usage "--notes cannot contain" "--notes with '<' is refused" -- "$FG" --notes '<x>' "$D/flame_small.txt"

# --------------------------------------------------- 4. usage errors --

expect_usage "stackfold: unknown option '--nosuch'" "stackfold: unknown option" -- "$SF" --nosuch "$D/fold_a.txt"
then_stderr_lacks "unrecognized" "stackfold: an unknown option is said once (not getopt's line too)"
expect_usage "flamegraph: unknown option '--nosuch'" "flamegraph: unknown option" -- "$FG" --nosuch "$D/fold_a.txt"
then_stderr_lacks "unrecognized" "flamegraph: an unknown option is said once"
expect_usage "stackfold: unknown option '-x'" "stackfold: unknown short option" -- "$SF" -x "$D/fold_a.txt"
expect_usage "ambiguous option '--ta' (--tag-files, --table)" "stackfold: an ambiguous prefix names its candidates" -- "$SF" --ta "$D/fold_a.txt"
expect_usage "option '--metric' needs a value" "stackfold: a value missing at the end" -- "$SF" --metric
expect_usage "option '-o' needs a value" "stackfold: a short option's value missing" -- "$SF" -o
expect_usage "option '--inverted' takes no value" "flamegraph: a flag given a value" -- "$FG" --inverted=3 "$D/fold_a.txt"
expect_usage "--width needs an integer" "flamegraph --width 1200.5" -- "$FG" --width 1200.5 "$D/fold_a.txt"
expect_usage "unknown palette 'nosuch'" "flamegraph --colors nosuch" -- "$FG" --colors nosuch "$D/fold_a.txt"
expect_usage "--bgcolors must be" "flamegraph --bgcolors nosuch" -- "$FG" --bgcolors nosuch "$D/fold_a.txt"
expect_usage "--minwidth needs a number" "flamegraph --minwidth abc" -- "$FG" --minwidth abc "$D/fold_a.txt"
expect_usage "--height needs an integer" "flamegraph --height 0" -- "$FG" --height 0 "$D/fold_a.txt"
expect_usage "ambiguous option '--c' (--countname, --colors, --cp)" "flamegraph --c (ambiguous prefix)" -- "$FG" --c java "$D/fold_a.txt"
expect_usage "--sort must be 'stack' or 'value', not 'bogus'" "stackfold --sort=bogus" -- "$SF" --sort=bogus "$D/fold_a.txt"
expect_usage "--include: bad regex" "stackfold bad --include regex '('" -- "$SF" --include '(' "$D/fold_a.txt"
expect_usage "--exclude: bad regex" "stackfold bad --exclude regex '['" -- "$SF" --exclude '[' "$D/fold_a.txt"
expect_usage "--scale needs a non-negative decimal" "stackfold --scale -1" -- "$SF" --scale -1 "$D/fold_a.txt"
expect_usage "--min needs a non-negative decimal" "stackfold --min abc" -- "$SF" --min abc "$D/fold_a.txt"
expect_usage "stackfold" "stackfold --output without its argument" -- "$SF" --output
expect_stdout_contains 0 "Usage: stackfold" "stackfold --help: exit 0, Usage on stdout" -- "$SF" --help
expect_stdout_contains 0 "Usage: flamegraph" "flamegraph --help: exit 0, Usage on stdout" -- "$FG" --help
expect_stdout_contains 0 "Usage: flamegraph" "flamegraph -help (single dash)" -- "$FG" -help
expect_exit 0 "flamegraph --colors java (reference)" -- "$FG" --colors java "$D/flame_java.txt"; keep "$T/java.svg"
expect_exit 0 "flamegraph --color=java (unique prefix, '=')" -- "$FG" --color=java "$D/flame_java.txt"
then_stdout_same "$T/java.svg" "--color=java: same SVG as --colors java"
expect_exit 0 "flamegraph -colors java (single dash)" -- "$FG" -colors java "$D/flame_java.txt"
then_stdout_same "$T/java.svg" "-colors java: same SVG as --colors java"
expect_stdout_contains 0 '<text id="title" x="600.00" y="24" >X</text>' "flamegraph -title=X (single dash)" -- "$FG" -title=X "$D/flame_small.txt"
expect_stdout_contains 0 '>Icicle Graph</text>' "flamegraph --inv (prefix of --inverted)" -- "$FG" --inv "$D/flame_small.txt"
then_stdout_matches '<title>all \(86 samples, 100%\)</title><rect x="10.0" y="36"' "--inv: root drawn at the top"

# ------------------------------------------------ 5. drop-in behaviour --

expect_exit 0 "flamegraph on raw input (reference)" -- "$FG" "$D/fold_agg.txt"; keep "$T/agg.svg"
expect_svg "stackfold FILE | flamegraph" -- fold_to_flame "$D/fold_agg.txt"
then_stdout_same "$T/agg.svg" "stackfold | flamegraph: same SVG as flamegraph on the raw input"
expect_svg "stackfold --strip-addresses two runs | flamegraph" -- fold_to_flame --strip-addresses "$D/fold_torch.txt" "$D/fold_torch_run2.txt"
then_stdout_contains "<title>&lt;built-in_method_add_of_type_object&gt; (80 samples" "stripped addresses merge in the graph"
expect_svg "stackfold differential | flamegraph" -- fold_to_flame "$D/fold_diff.in"
then_stdout_matches '<title>grow \(11 samples, [0-9.]+%; \+[0-9.]+%\)</title><rect [^>]*fill="rgb\(255,' "differential through stackfold: growth stays red"
expect_svg "differential input" -- "$FG" "$D/flame_diff.txt"
then_stdout_matches '<title>inner \(10 samples, [0-9.]+%; \+[0-9.]+%\)</title><rect [^>]*fill="rgb\(255,0,0\)"' "differential: largest growth is red"
then_stdout_matches '<title>shrink \(5 samples, [0-9.]+%; -[0-9.]+%\)</title><rect [^>]*fill="rgb\(0,0,255\)"' "differential: largest shrink is blue"
then_stdout_matches '<title>same \(3 samples, [0-9.]+%; 0.00%\)</title><rect [^>]*fill="rgb\(255,255,255\)"' "differential: no change is white"
expect_svg "differential input, --negate" -- "$FG" --negate "$D/flame_diff.txt"
then_stdout_matches '<title>inner \(10 samples, [0-9.]+%; -[0-9.]+%\)</title><rect [^>]*fill="rgb\(0,0,255\)"' "--negate: growth is blue"
then_stdout_matches '<title>shrink \(5 samples, [0-9.]+%; \+[0-9.]+%\)</title><rect [^>]*fill="rgb\(255,0,0\)"' "--negate: shrink is red"
then_stdout_lacks "; -0.00%)" "--negate: a zero delta reads 0.00%, not -0.00%"
mkdir "$T/cp"
expect_svg "--cp in an empty directory" -- in_dir "$T/cp" "$FG" --cp "$D/flame_small.txt"
begin; grep -qx 'matmul->rgb([0-9]*,[0-9]*,[0-9]*)' "$T/cp/palette.map" 2>/dev/null || problem "no 'matmul->rgb(..)' line in ./palette.map"; finish "--cp writes palette.map in the current directory" nosan
sed 's/^matmul->.*/matmul->rgb(1,2,3)/' "$T/cp/palette.map" > "$T/cp/pm" && mv "$T/cp/pm" "$T/cp/palette.map"
expect_svg "--cp with an edited palette.map" -- in_dir "$T/cp" "$FG" --cp "$D/flame_small.txt"
then_stdout_matches '<title>matmul \(40 samples, 46.51%\)</title><rect [^>]*fill="rgb\(1,2,3\)"' "--cp uses the colours in palette.map"
expect_svg "--cp adds new names to palette.map" -- in_dir "$T/cp" "$FG" --cp "$D/flame_java.txt"
begin; grep -q '^matmul->rgb(1,2,3)$' "$T/cp/palette.map" || problem "palette.map lost the edited matmul entry"
grep -q '^libjvm.so->rgb(' "$T/cp/palette.map" || problem "palette.map lacks the new libjvm.so entry"; finish "--cp keeps old entries and adds new ones" nosan
expect_svg "every frame narrower than --minwidth: frameless SVG" -- "$FG" --minwidth 2000 "$D/flame_small.txt"
then_count out "<g >" 0 "every frame narrower than --minwidth: no frames drawn"
expect_svg "--flamechart" -- "$FG" --flamechart "$D/flame_chart.txt"
then_stdout_matches '<title>b \(1 samples, 25.00%\)</title><rect x="10.0" y="53"' "--flamechart: first input line first"
then_stdout_matches '<title>a \(1 samples, 25.00%\)</title><rect x="305.0" y="53"' "--flamechart: second input line second"
then_stdout_matches '<title>b \(2 samples, 50.00%\)</title><rect x="600.0" y="53"' "--flamechart: consecutive repeats merge, after the rest"
then_stdout_contains '>Flame Chart</text>' "--flamechart: title 'Flame Chart'"
expect_stdout_contains 0 '<title>a (1 samples, 25.00%)</title><rect x="10.0" y="53"' "without --flamechart, stacks are sorted" -- "$FG" "$D/flame_chart.txt"
expect_exit 0 "flamegraph -o FILE" -- "$FG" -o "$T/o.svg" "$D/flame_small.txt"
begin; [ -s "$T/out" ] && problem "stdout not empty with -o"; python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' "$T/o.svg" 2>/dev/null || problem "$T/o.svg missing or not well-formed"; finish "flamegraph -o writes the SVG to FILE" nosan
expect_exit 0 "stackfold -o FILE" -- "$SF" -o "$T/o.txt" "$D/fold_agg.txt"
begin; cmp -s "$T/o.txt" "$G/fold_agg.txt" || problem "-o file differs from golden fold_agg.txt"; finish "stackfold -o writes the folded text to FILE" nosan

# ------------------------------------------- 6. found in code review --

python3 -c "print('a;--;' + 'x;' * 3000 + 'x 1')" > "$T/chain_long.txt"
expect_svg "--colors chain on a long waker stack (no buffer overflow)" -- "$FG" --colors chain "$T/chain_long.txt"
python3 -c "print('x;' + 'a' * 60 + 'b 5')" > "$T/regex_limit.txt"
expect_stderr_contains 1 "could not be matched" "a filter that hits PCRE2's match limit is an error, not a silent drop" -- "$SF" --include '^(a|a?)+$' --include b "$T/regex_limit.txt"
expect_stderr_contains 0 "were removed by --include/--exclude" "filters that remove every stack say so" -- "$SF" --include nomatch "$D/fold_a.txt"
"$FG" --hash --random "$D/flame_small.txt" > "$T/hr1.svg" 2>/dev/null
"$FG" --random --hash "$D/flame_small.txt" > "$T/hr2.svg" 2>/dev/null
begin; cmp -s "$T/hr1.svg" "$T/hr2.svg" || problem "two runs differ"; finish "--hash wins over --random (same colours every run)" nosan
printf 'skip;me 100\nkeep;me 1\n' > "$T/offset.txt"
begin; out=$({ read -r _; "$SF"; } < "$T/offset.txt"); [ "$out" = "keep;me 1" ] || problem "got '$out'"; finish "stdin already partly read: only the rest is folded" nosan
mkfifo "$T/fifo"
(printf 'a;b 1\n' > "$T/fifo" &)
begin; out=$(timeout 10 "$SF" "$T/fifo"); [ "$out" = "a;b 1" ] || problem "got '$out' (rc $?)"; finish "a named pipe is read once, without hanging" nosan
expect_stdout_contains 0 '<title>d (3 samples, 15.15%)</title>' "decimal frame ends round like flamegraph.pl" -- "$FG" "$D/flame_decimal_ends.txt"
expect_stdout_contains 0 '<title>all (49 bytes, 100%)</title>' "decimal totals are summed in doubles like flamegraph.pl" -- "$FG" --factor 2.5 --countname bytes "$D/flame_decimal_ends.txt"

# Inputs are told by their first bytes, on pipes and gzipped as in files
# (formats/detect.c): other kinds are refused by name, never folded as text.
expect_stderr_contains 1 "this is perf script output: fold it first (stackfold" "flamegraph on perf script: refused, pointing at stackfold" -- "$FG" "$root/samples/perf/cpu_shares.perf.txt"
expect_stderr_contains 1 "read it with memtimeline" "stackfold on a torch memory timeline: refused, pointing at memtimeline" -- "$SF" "$root/samples/torch/memory_mlp_train.raw.json.gz"
printf '{"schemaVersion": 1, "traceEvents": []}' > "$T/trace.json"
expect_stderr_contains 0 "trace.json: no stacks found" "stackfold on an empty Chrome trace: read as a trace (tests/e2e/trace/), not folded as text" -- "$SF" "$T/trace.json"
expect_stderr_contains 1 "this is perf script output, not a torch memory timeline" "memtimeline on perf script: refused by its kind" -- "$BUILD/memtimeline" "$root/samples/perf/cpu_shares.perf.txt"
gzip -c "$D/fold_a.txt" > "$T/fold_a.txt.gz"
begin; out=$(cat "$T/fold_a.txt.gz" | "$SF"); [ "$out" = "$("$SF" "$D/fold_a.txt")" ] || problem "gzip on a pipe folds differently"; finish "gzipped stack text on a pipe: the same as the file" nosan
expect_stdout_contains 0 "main;alpha 4" "--input=stacks: no guess, read as stack text" -- "$SF" -q --input=stacks "$D/fold_a.txt"

# --------------------------------------------------------- DTrace input --
# stackcollapse.pl's input, recognized by its header or its look. The golden
# was checked against the real script: identical but for the count past
# 2^64-1 on line 30, which the script prints as 1e+23 and stackfold reports.
DT=tests/e2e/dtrace
begin
run "$SF" "$DT/odd.stacks"
want_rc 0
cmp -s "$T/out" "$DT/odd.folded" || problem "differs from the golden: $(diff "$T/out" "$DT/odd.folded" | head -3)"
want_err "odd.stacks:30: a count past 2^64-1"
finish "dtrace: offsets, C++ arguments, inline chains, ';', leading L, empty frames: the golden"
tail -n +4 "$DT/odd.stacks" > "$T/headless"
begin
run "$SF" "$T/headless"
cmp -s "$T/out" "$DT/odd.folded" || problem "headless differs: $(diff "$T/out" "$DT/odd.folded" | head -3)"
sed 's/$/\r/' "$DT/odd.stacks" > "$T/crlf"
run "$SF" "$T/crlf"
cmp -s "$T/out" "$DT/odd.folded" || problem "CRLF differs: $(diff "$T/out" "$DT/odd.folded" | head -3)"
gzip -c "$DT/odd.stacks" > "$T/odd.gz"
"$SF" - < "$T/odd.gz" > "$T/out" 2> "$T/err"
cmp -s "$T/out" "$DT/odd.folded" || problem "gzip on a pipe differs"
finish "dtrace: without its header, with CRLF, gzipped on a pipe: the same stacks"
begin
printf '  a`f+0x1\n  1\n' > "$T/plain"
run "$SF" "$T/plain"
[ "$(cat "$T/out")" = "a\`f 1" ] || problem "detected without header: $(cat "$T/out")"
printf 'x;y 3\n' | "$SF" --input=dtrace > "$T/out" 2> "$T/err"
[ -s "$T/out" ] && problem "folded text read as dtrace made stacks: $(cat "$T/out")"
want_err "<stdin>:1: the input ends inside a stack (no count line)"
finish "dtrace: detected by its look; --input=dtrace on folded text: nothing, and says why"
begin
printf '  a`f+0x1\n  18446744073709551615\n\n  a`f+0x2\n  1\n' > "$T/big"
run "$SF" "$T/big"
want_rc 0
[ "$(cat "$T/out")" = "a\`f 18446744073709551616" ] || problem "got $(cat "$T/out")"
finish "dtrace: counts summing past 2^64-1 stay exact (the script prints 1.84467440737096e+19)"
begin
printf 'CPU     ID                    FUNCTION:NAME\n  0  64091          :tick-1s\n\n              42\n' > "$T/nostack"
run "$SF" "$T/nostack"
want_rc 0
[ "$(cat "$T/out")" = " 42" ] || problem "got '$(cat "$T/out")'"
finish "dtrace: a count before any frame is an empty stack, as stackcollapse.pl prints it (was pointer arithmetic on NULL: found by fuzz_capture)"
expect_usage "stackfold --help" "--input: a kind stackfold cannot force is refused" -- "$SF" --input=json "$DT/odd.stacks"
begin
run "$FG" "$DT/odd.stacks"
want_rc 1
want_err "fold it first"
finish "flamegraph on DTrace stacks: fold it first"

# ------------------------------------------------------------ --diff --
# difffolded.pl's output (checked by hand against the script: the same
# lines, which it prints in hash order and stackfold sorted by stack).
DF=tests/e2e/diff
begin
run "$SF" --diff "$DF/before.txt" "$DF/after.txt"
want_rc 0
[ "$(cat "$T/out")" = "$(printf '0x1f;d 3 0\n0xAB;d 0 1\na;b 10 4\na;c 5 0\na;e 0 9')" ] || problem "got: $(tr '\n' '|' < "$T/out")"
run "$SF" --diff --normalize "$DF/before.txt" "$DF/after.txt"
[ "$(cat "$T/out")" = "$(printf '0x1f;d 2 0\n0xAB;d 0 1\na;b 7 4\na;c 3 0\na;e 0 9')" ] || problem "--normalize: $(tr '\n' '|' < "$T/out")"
run "$SF" --diff --strip-hex "$DF/before.txt" "$DF/after.txt"
[ "$(cat "$T/out")" = "$(printf '0x...;d 3 1\na;b 10 4\na;c 5 0\na;e 0 9')" ] || problem "--strip-hex: $(tr '\n' '|' < "$T/out")"
finish "stackfold --diff, --normalize, --strip-hex: difffolded.pl's lines (plain, -n, -s)"
begin
"$SF" --diff --strip-addresses samples/torch/stacks_gelu_manual.txt samples/torch/stacks_gelu_fused.txt > "$T/gelu.diff" 2> "$T/err"
rc=$?; want_rc 0
awk '{ b += $(NF-1); a += $NF } END { print b, a }' "$T/gelu.diff" > "$T/sums"
[ "$(cat "$T/sums")" = "1552053 476407" ] || problem "before/after sums: $(cat "$T/sums")"
"$FG" "$T/gelu.diff" > "$T/gelu.svg" 2>> "$T/err" || problem "flamegraph failed on the diff"
grep -q 'rgb(0,0,255)\|rgb(255,0,0)\|rgb([0-9]*,[0-9]*,255)' "$T/gelu.svg" || problem "no red/blue frames in the differential graph"
finish "stackfold --diff of two torch export_stacks (GELU manual, fused): sums kept, a differential flame graph"
expect_usage "--diff compares two inputs" "--diff with one input" -- "$SF" --diff "$DF/before.txt"
expect_usage "--diff writes folded text" "--diff with --table" -- "$SF" --diff --table "$DF/before.txt" "$DF/after.txt"
expect_usage "--normalize scales --diff" "--normalize without --diff" -- "$SF" --normalize "$DF/before.txt"

done_testing
