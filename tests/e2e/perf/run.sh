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
