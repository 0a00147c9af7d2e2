#!/bin/sh
# stackfold on perf script output: the output stackcollapse-perf.pl gives,
# line for line. Goldens: FlameGraph's stackcollapse-perf.pl run on a real
# perf script of samples/capture/cpu_shares (samples/perf/) and on a
# hand-made file of edge cases (edge.perf.txt: pid/tid, [unknown] frames
# with and without a module, Java names, JIT maps, kernel frames, inlined
# "a->b" frames, C++ argument lists and anonymous namespaces, quotes, a
# period of 0, a second event type, an unrecognized line, a last sample
# without its blank line); each was checked by hand against the script's
# rules. With STACKCOLLAPSE_PERF set, also compares with the script itself
# on every perf-*.txt of FlameGraph's tests (skipped without it). In the
# language of tests/e2e/lib.sh.
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../../.." && pwd)
here=$root/tests/e2e/perf
SF=$BUILD/stackfold
. "$root/tests/e2e/lib.sh"

golden() { # NAME INPUT OPTION...
	name=$1 in=$2; shift 2
	selected "perf script $name ($*): stackcollapse-perf.pl's output" || return 0
	"$SF" -q "$@" "$in" > "$T/out" 2> /dev/null
	cmp -s "$T/out" "$here/golden/$name.folded"
	check "perf script $name ($*): stackcollapse-perf.pl's output" $?
}
for o in default pid tid kernel all addrs; do
	if [ $o = default ]; then golden cpu_shares.$o "$root/samples/perf/cpu_shares.perf.txt"
	else golden cpu_shares.$o "$root/samples/perf/cpu_shares.perf.txt" --$o; fi
done
for o in default tid kernel jit all addrs event-filter=instructions; do
	if [ $o = default ]; then golden edge.$o "$here/edge.perf.txt"
	else golden edge.$o "$here/edge.perf.txt" --$o; fi
done

# --srcline: a source line after each name, none after an unknown one
# (checked by hand: "a" gets src.c:1, "[unknown]" and the name after it none).
golden srcline.srcline "$here/srcline.perf.txt" --srcline

# Found by its look, on a pipe and gzipped as in a file (formats/detect.c).
cat "$root/samples/perf/cpu_shares.perf.txt" | "$SF" -q > "$T/out"
cmp -s "$T/out" "$here/golden/cpu_shares.default.folded"
check "perf script on a pipe, found by its look" $?
gzip -c "$root/samples/perf/cpu_shares.perf.txt" > "$T/p.gz"
cat "$T/p.gz" | "$SF" -q > "$T/out"
cmp -s "$T/out" "$here/golden/cpu_shares.default.folded"
check "gzipped perf script on a pipe, found by its look" $?
"$SF" -q "$T/p.gz" > "$T/out"
cmp -s "$T/out" "$here/golden/cpu_shares.default.folded"
check "gzipped perf script file, found by its look" $?
"$SF" -q --input=perf - < "$root/samples/perf/cpu_shares.perf.txt" > "$T/out"
cmp -s "$T/out" "$here/golden/cpu_shares.default.folded"
check "perf script on a pipe with --input=perf" $?
gzip -c "$root/samples/perf/cpu_shares.perf.txt" > "$T/p.gz"
"$SF" -q --input=perf "$T/p.gz" > "$T/out"
cmp -s "$T/out" "$here/golden/cpu_shares.default.folded"
check "gzipped perf script with --input=perf" $?

# Two-byte searches in names (checked by hand against the script's rules,
# and with stackcollapse-perf.pl): "->" splits past lone '-' and "-->",
# drops a trailing empty name; ".(...)." keeps a Java lambda's parentheses
# (';' made ':'), others lose theirs.
printf 'prog 10 1.000001: 3 cycles: \n\t1000 a-b->c-->d (/bin/x)\n\t1001 Foo.lambda.(Ljava/Obj;).run(int) (/bin/x)\n\t1002 plain(int)+0x1f (/bin/x)\n\t1003 x-> (/bin/x)\n\n' > "$T/pairs.txt"
"$SF" -q --input=perf "$T/pairs.txt" > "$T/out"
[ "$(cat "$T/out")" = 'prog;x;plain;Foo.lambda.(Ljava/Obj:).run(int);a-b;c-_[i];d_[i] 3' ]
check "perf script: '->' and '.(...).' found in names as the script finds them" $?

# A name tidied to nothing (a lone quote) as a sample's first frame, and
# after another: an empty frame, as stackcollapse-perf.pl prints it (checked
# with the script). Found by fuzz_capture (pointer arithmetic on no frames).
printf 'proc 123 1.0: 1 cycles:\n\t1a2b \047 (mod)\n\nproc 123 2.0: 1 cycles:\n\t1a2b " (mod)\n\t1a2c main (mod)\n\n' > "$T/empty.txt"
"$SF" -q --input=perf "$T/empty.txt" > "$T/out"
[ "$(cat "$T/out")" = "$(printf 'proc; 1\nproc;main; 1')" ]
check "perf script: a frame whose name tidies to nothing, as the script folds it" $?

# Bad input: the unrecognized line is reported where it is, and skipped.
"$SF" "$here/edge.perf.txt" > /dev/null 2> "$T/err"
rc=$?
[ $rc = 0 ] && grep -q 'edge.perf.txt:23: Unrecognized line:    this line is not perf output' "$T/err"
check "an unrecognized line: FILE:LINE reported, skipped, exit 0" $?
"$SF" --strict "$here/edge.perf.txt" > /dev/null 2>&1
[ $? = 1 ]
check "an unrecognized line with --strict: exit 1" $?
"$SF" --input=nonsense "$here/edge.perf.txt" > /dev/null 2>&1
[ $? = 2 ]
check "--input=nonsense: usage error" $?

# A large file is read in parts by several threads, split after blank
# lines (analysis/stackfold/perf.c): output, messages and their line
# numbers, the filter note and --strict's stop are the same for any thread
# count. Two files past the 32 MB that parts need, each with the edge cases
# at its start, middle and end: in "late" the first event (cpu-clock) is
# another than the middle's, so the filter note comes from a later part.
{ cat "$here/edge.perf.txt"; echo; i=0; while [ $i -lt 100 ]; do cat "$root/samples/perf/cpu_shares.perf.txt"; i=$((i + 1)); done
  cat "$here/edge.perf.txt"; echo; i=0; while [ $i -lt 100 ]; do cat "$root/samples/perf/cpu_shares.perf.txt"; i=$((i + 1)); done
  cat "$here/edge.perf.txt"; } > "$T/early.perf.txt"
{ i=0; while [ $i -lt 120 ]; do cat "$root/samples/perf/cpu_shares.perf.txt"; i=$((i + 1)); done
  cat "$here/edge.perf.txt"; echo; i=0; while [ $i -lt 80 ]; do cat "$root/samples/perf/cpu_shares.perf.txt"; i=$((i + 1)); done
  cat "$here/edge.perf.txt"; } > "$T/late.perf.txt"
for f in early late; do
	for opts in "" "--strict" "--event-filter=cycles" "--tid --all"; do
		FLAMEKIT_THREADS=1 "$SF" --input=perf $opts "$T/$f.perf.txt" > "$T/one.out" 2> "$T/one.err"
		rc1=$?
		same=yes
		for t in 2 3 5; do
			FLAMEKIT_THREADS=$t "$SF" --input=perf $opts "$T/$f.perf.txt" > "$T/par.out" 2> "$T/par.err"
			rc=$?
			{ [ $rc = $rc1 ] && cmp -s "$T/one.out" "$T/par.out" && cmp -s "$T/one.err" "$T/par.err"; } || same="no (FLAMEKIT_THREADS=$t)"
		done
		[ "$same" = yes ] && [ -s "$T/one.err" ]
		check "perf script in parts ($f ${opts:-default}): output, messages and exit status as one thread's; $same" $?
	done
done
# What those messages are: bad lines in the middle and last parts with their
# line numbers in the whole file, and the note (naming, as the script does,
# the event of the first sample it skips) once.
FLAMEKIT_THREADS=2 "$SF" --input=perf "$T/late.perf.txt" > /dev/null 2> "$T/err"
n_before=$(( $(wc -l < "$root/samples/perf/cpu_shares.perf.txt") * 120 ))
grep -q "late.perf.txt:$((n_before + 23)): Unrecognized line:    this line is not perf output" "$T/err" &&
	[ "$(grep -c 'Unrecognized line' "$T/err")" = 2 ] &&
	[ "$(grep -c "^Filtering for events of type: cycles$" "$T/err")" = 1 ]
check "perf script in parts: a later part's bad lines numbered in the whole file, the note once" $?

pl=${STACKCOLLAPSE_PERF:-}
if [ -z "$pl" ]; then
	skip "identical to stackcollapse-perf.pl on FlameGraph's perf tests" "STACKCOLLAPSE_PERF is not set"
elif [ ! -f "$pl" ]; then
	skip "identical to stackcollapse-perf.pl on FlameGraph's perf tests" "STACKCOLLAPSE_PERF=$pl is not a file"
elif wanted "identical to stackcollapse-perf.pl on FlameGraph's perf tests"; then
	dir=$(dirname "$pl")/test
	same=0 total=0
	for f in "$dir"/perf-*.txt; do
		for o in "" --pid --tid --kernel --jit --all --addrs; do
			total=$((total + 1))
			perl "$pl" $o "$f" > "$T/pl" 2> /dev/null
			"$SF" -q --input=perf $o "$f" > "$T/c" 2> /dev/null
			cmp -s "$T/pl" "$T/c" && same=$((same + 1))
		done
	done
	[ "$same" = "$total" ]
	check "identical to stackcollapse-perf.pl on FlameGraph's perf tests ($same of $total)" $?
fi
done_testing
