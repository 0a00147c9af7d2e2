#!/bin/sh
# The test driver behind `make test`: unit tests (cmocka, TAP output),
# end-to-end CLI tests, the browser test and, when FLAMEGRAPH_PL is set, the
# parity check against flamegraph.pl. Ends with "N passed, N failed".
set -u
BUILD=${BUILD:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
log=$(mktemp); trap 'rm -f "$log"' EXIT

# Counts TAP lines from stdin into the totals, echoing failures.
tally() {
	while IFS= read -r line; do
		case "$line" in
		"ok "*) echo "pass" >> "$log" ;;
		"not ok "*) echo "fail" >> "$log"; echo "$line" ;;
		"# "*) echo "$line" ;;
		esac
	done
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	{ CMOCKA_MESSAGE_OUTPUT=TAP "$t" 2>&1 || true; } | sed "s|^\(not ok [0-9]* - \)|\1$(basename "$t"): |" | tally
	echo "# $(basename "$t") done"
done

# The one-way arrows between stages (DESIGN.md).
sh tests/layers/check.sh | tally
sh tests/e2e/run.sh "$BUILD" | tally
[ -f tests/e2e/mem/run.sh ] && sh tests/e2e/mem/run.sh "$BUILD" | tally
sh tests/e2e/mem_parallel.sh "$BUILD" | tally
sh tests/e2e/capture/run.sh "$BUILD" | tally
sh tests/e2e/cuda/run.sh "$BUILD" | tally
# STACKCOLLAPSE_PERF=/path/to/stackcollapse-perf.pl adds the full parity run.
sh tests/e2e/perf/run.sh "$BUILD" | tally
sh tests/e2e/perf/inline.sh "$BUILD" | tally
sh tests/e2e/table.sh "$BUILD" | tally

# memtimeline against an independent Python reference of torch's coalescing
# and raw writer, on random valid timelines (MEMREF_STREAMS, default 1000).
sh tests/memref/compare.sh "$BUILD" "${MEMREF_STREAMS:-1000}" | tally

# browser WHAT FILE MAKE...: renders FILE with MAKE, then opens it in
# headless Chromium (tests/browser/run.sh; SKIPPED without a browser).
browser() {
	what=$1 file=$2; shift 2
	if ! "$@" > "$file" 2>/dev/null; then
		echo "not ok - render the file for the $what" | tally
	elif out=$(sh tests/browser/run.sh "$file" 2>&1); then
		case "$out" in
		*SKIPPED*) echo "# $out" ;;
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

passed=$(grep -c pass "$log")
failed=$(grep -c fail "$log")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
