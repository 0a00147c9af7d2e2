#!/bin/sh
# The test driver behind `make test`: unit tests (cmocka, TAP output),
# end-to-end CLI tests, the browser test and, when FLAMEGRAPH_PL is set, the
# parity check against flamegraph.pl. Ends with "N passed, N failed".
set -u
BUILD=${BUILD:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
tally_log=$(mktemp); trap 'rm -f "$tally_log"' EXIT
# tally, suite, tally_summary: how a suite is counted (a bail-out, a
# non-zero exit or a short run fails it; tests/runner/selftest.sh tests it).
. tests/runner/tally.sh
# ONLY=pattern (make test ONLY=...): only the unit programs whose name
# matches, and in the e2e suites only the cases whose description matches.
ONLY=${ONLY:-}
export ONLY

suite tests/runner/selftest.sh sh tests/runner/selftest.sh
# A unit program's failures carry its name.
unit() {
	CMOCKA_MESSAGE_OUTPUT=TAP "$1" > "$tally_log.unit" 2>&1
	rc=$?
	sed "s|^\(not ok [0-9]* - \)|\1$(basename "$1"): |" "$tally_log.unit"
	rm -f "$tally_log.unit"
	return $rc
}
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	[ -z "$ONLY" ] || basename "$t" | grep -qi -- "$ONLY" || continue
	suite "$(basename "$t")" unit "$t"
done

# The one-way arrows between stages (DESIGN.md).
suite tests/layers/check.sh sh tests/layers/check.sh 
suite tests/e2e/run.sh sh tests/e2e/run.sh "$BUILD"
suite tests/e2e/mem/run.sh sh tests/e2e/mem/run.sh "$BUILD"
suite tests/e2e/mem_parallel.sh sh tests/e2e/mem_parallel.sh "$BUILD"
suite tests/e2e/capture/run.sh sh tests/e2e/capture/run.sh "$BUILD"
suite tests/e2e/cuda/run.sh sh tests/e2e/cuda/run.sh "$BUILD"
# STACKCOLLAPSE_PERF=/path/to/stackcollapse-perf.pl adds the full parity run.
suite tests/e2e/perf/run.sh sh tests/e2e/perf/run.sh "$BUILD"
suite tests/e2e/perf/inline.sh sh tests/e2e/perf/inline.sh "$BUILD"
suite tests/e2e/table.sh sh tests/e2e/table.sh "$BUILD"

# memtimeline against an independent Python reference of torch's coalescing
# and raw writer, on random valid timelines (MEMREF_STREAMS, default 1000).
suite tests/memref/compare.sh sh tests/memref/compare.sh "$BUILD" "${MEMREF_STREAMS:-1000}"

# browser WHAT FILE MAKE...: renders FILE with MAKE, then opens it in
# headless Chromium (tests/browser/run.sh; SKIPPED without a browser).
browser() {
	what=$1 file=$2; shift 2
	if ! "$@" > "$file" 2>/dev/null; then
		echo "not ok - render the file for the $what" | tally
	elif out=$(sh tests/browser/run.sh "$file" 2>&1); then
		case "$out" in
		*SKIPPED*) echo "# $what: SKIPPED${out#*SKIPPED}" | tally ;;
		*) echo "ok - $what" | tally ;;
		esac
	else
		printf '%s\n' "$out" | tail -20
		echo "not ok - $what" | tally
	fi
}
mkdir -p "$BUILD/browser"
# A real flame graph: zoom, search, URL state. The memory timeline page:
# plot shown, report there.
browser "browser test" "$BUILD/browser/gelu.svg" \
	"$BUILD/flamegraph" --countname us samples/torch/stacks_gelu_manual.txt
browser "browser test of the memory timeline page" "$BUILD/browser/memory.html" \
	"$BUILD/memtimeline" --html samples/torch/memory_mlp_train.raw.json.gz

if [ -n "${FLAMEGRAPH_PL:-}" ]; then
	if sh tests/parity/flamegraph_pl.sh "$BUILD/flamegraph" tests/e2e/data/*.txt samples/torch/*.txt; then
		echo "ok - parity with flamegraph.pl" | tally
	else
		echo "not ok - parity with flamegraph.pl" | tally
	fi
fi

tally_summary
