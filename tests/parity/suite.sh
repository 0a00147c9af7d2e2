#!/bin/sh
# The parity check against the real flamegraph.pl (tests/parity/
# flamegraph_pl.sh) as a suite of tests/run.sh, in the language of
# tests/e2e/lib.sh, and stackcollapse.pl's DTrace folding of FlameGraph's
# example beside it: skipped unless FLAMEGRAPH_PL names the script.
#   FLAMEGRAPH_PL=/path/flamegraph.pl sh tests/parity/suite.sh BUILD_DIR
set -u
if [ $# -ne 1 ]; then
	echo "usage: sh tests/parity/suite.sh BUILD_DIR" >&2
	exit 2
fi
BUILD=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
. "$root/tests/e2e/lib.sh"

d="parity with flamegraph.pl (frames and SVG size, tests/e2e/data/*.txt and samples/torch/*.txt)"
pl=${FLAMEGRAPH_PL:-}
if [ -z "$pl" ]; then
	skip "$d" "FLAMEGRAPH_PL is not set"
elif [ ! -f "$pl" ]; then
	skip "$d" "FLAMEGRAPH_PL=$pl is not a file"
elif wanted "$d"; then
	sh tests/parity/flamegraph_pl.sh "$BUILD/flamegraph" tests/e2e/data/*.txt samples/torch/*.txt > "$T/parity" 2>&1
	st=$?
	sed 's/^/# /' "$T/parity" # its DIFFERS lines and its count
	check "$d" $st
fi
# stackcollapse.pl (beside flamegraph.pl) on FlameGraph's own DTrace
# example: stackfold reads it as DTrace by its look, with the same output.
d="parity with stackcollapse.pl on example-dtrace-stacks.txt (beside FLAMEGRAPH_PL)"
fg=$(dirname "$pl")
if [ -z "$pl" ]; then
	skip "$d" "FLAMEGRAPH_PL is not set"
elif [ ! -f "$fg/stackcollapse.pl" ] || [ ! -f "$fg/example-dtrace-stacks.txt" ]; then
	skip "$d" "no stackcollapse.pl and example-dtrace-stacks.txt in $fg"
elif wanted "$d"; then
	perl "$fg/stackcollapse.pl" "$fg/example-dtrace-stacks.txt" > "$T/want"
	"$BUILD/stackfold" "$fg/example-dtrace-stacks.txt" > "$T/got"
	cmp -s "$T/want" "$T/got" && [ -s "$T/got" ]
	check "$d ($(wc -l < "$T/got") stacks)" $?
fi
# difffolded.pl (beside flamegraph.pl) on two folded files made from
# FlameGraph's examples, with each of its options: the same lines (the
# script prints them in Perl's hash order: both sorted).
d="parity with difffolded.pl, plain, -n, -s, -n -s (FlameGraph's dtrace and perf examples)"
if [ -z "$pl" ]; then
	skip "$d" "FLAMEGRAPH_PL is not set"
elif [ ! -f "$fg/difffolded.pl" ] || [ ! -f "$fg/example-perf-stacks.txt.gz" ]; then
	skip "$d" "no difffolded.pl and example-perf-stacks.txt.gz in $fg"
elif wanted "$d"; then
	perl "$fg/stackcollapse.pl" "$fg/example-dtrace-stacks.txt" > "$T/one"
	gzip -dc "$fg/example-perf-stacks.txt.gz" | perl "$fg/stackcollapse-perf.pl" > "$T/two"
	st=0
	for flags in "" "-n" "-s" "-n -s"; do
		long=$(printf '%s' "$flags" | sed 's/-n/--normalize/; s/-s/--strip-hex/')
		# shellcheck disable=SC2086 # the flags are words
		perl "$fg/difffolded.pl" $flags "$T/one" "$T/two" | LC_ALL=C sort > "$T/want"
		# shellcheck disable=SC2086
		"$BUILD/stackfold" --diff $long "$T/one" "$T/two" | LC_ALL=C sort > "$T/got"
		cmp -s "$T/want" "$T/got" && [ -s "$T/got" ] || { echo "# differs with '$flags'"; st=1; }
	done
	check "$d" $st
fi
done_testing
