#!/bin/sh
# The test driver behind `make test`: the runner's self-test, the unit tests
# (cmocka, TAP output), the end-to-end suites, the memtimeline reference
# comparison, the browser tests and the flamegraph.pl parity check (run when
# FLAMEGRAPH_PL is set). Every suite prints TAP with a plan; the bookkeeping
# is tests/runner/tally.sh: a suite that bails out, exits non-zero or runs
# another number of cases than it planned counts as a failure of its own.
# Ends with "N passed, N failed, N skipped"; exits non-zero when anything
# failed or nothing passed.
#
#   BUILD=build sh tests/run.sh       # what `make test` runs (build-san: SANITIZE=1)
#   ONLY=gelu sh tests/run.sh         # `make test ONLY=gelu`: only the cases
#                                     # that match (tests/runner/only.sh)
# Also read: UPDATE_GOLDEN (tests/e2e/run.sh), MEMREF_STREAMS (default
# 1000), STACKCOLLAPSE_PERF (tests/e2e/perf/*.sh), FLAMEGRAPH_PL.
set -u
BUILD=${BUILD:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
. tests/runner/only.sh
. tests/runner/tally.sh
trap 'rm -rf "$tally_dir"' EXIT
trap 'exit 130' INT TERM

tally_begin
if [ -n "${ONLY:-}" ]; then
	export ONLY
	echo "# ONLY=$ONLY: only the matching cases run (unit test programs: by name)"
fi

# suite FILE ARGS...: a shell suite, named by its path.
suite() { run_suite "$1" sh "$@"; }

suite tests/runner/selftest.sh

# Unit tests: cmocka has no filter of its own outside the code, so ONLY
# picks whole programs by name (test_xml). Their stderr (cmocka's "# "
# messages on a failure) goes with their TAP.
unit() { CMOCKA_MESSAGE_OUTPUT=TAP "$1" 2>&1; }
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	only_match "$t" || continue
	run_suite "$t" unit "$t"
done

# The one-way arrows between stages (DESIGN.md).
suite tests/layers/check.sh
suite tests/e2e/run.sh "$BUILD"
suite tests/e2e/mem/run.sh "$BUILD"
suite tests/e2e/mem_parallel.sh "$BUILD"
suite tests/e2e/capture/run.sh "$BUILD"
suite tests/e2e/capture/pynames.sh "$BUILD"
suite tests/e2e/export/run.sh "$BUILD"
suite tests/e2e/python/run.sh "$BUILD"
suite tests/e2e/cuda/run.sh "$BUILD"
suite tests/e2e/gpu/run.sh "$BUILD"
suite tests/e2e/windows/run.sh "$BUILD"
# STACKCOLLAPSE_PERF=/path/to/stackcollapse-perf.pl adds the full parity run.
suite tests/e2e/perf/run.sh "$BUILD"
suite tests/e2e/perf/inline.sh "$BUILD"
suite tests/e2e/table.sh "$BUILD"
suite tests/e2e/viewers.sh "$BUILD"
suite tests/e2e/trace/run.sh "$BUILD"
suite tests/e2e/deps/run.sh
suite tests/e2e/readme.sh "$BUILD"

# memtimeline against an independent Python reference of torch's coalescing
# and raw writer, on random valid timelines (MEMREF_STREAMS, default 1000).
# Damaged captures: identical output or a reported loss, never silent.
suite tests/mutate/run.sh "$BUILD"
suite tests/memref/compare.sh "$BUILD" "${MEMREF_STREAMS:-1000}"

# A flame graph and a memory timeline page in headless Chromium (skipped
# without a browser), and FLAMEGRAPH_PL's parity check (skipped without it).
suite tests/browser/suite.sh "$BUILD"
suite tests/parity/suite.sh "$BUILD"

tally_end
