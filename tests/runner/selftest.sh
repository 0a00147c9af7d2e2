#!/bin/sh
# selftest.sh - the runner's counting (tally.sh) on fake suites, each
# failing one way: every way must be counted as a failure, and a good
# suite must pass. TAP output, one case per way.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/tally.sh"
T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT
n=0 failed=0

# counts WHAT EXPECT_PASS EXPECT_FAIL EXPECT_SKIP CMD...: the totals of one suite.
counts() {
	what=$1 p=$2 f=$3 s=$4
	shift 4
	tally_log=$T/log
	: > "$tally_log"
	suite "fake" "$@" > /dev/null
	got="$(grep -c pass "$tally_log") $(grep -c fail "$tally_log") $(grep -c skip "$tally_log")"
	n=$((n + 1))
	if [ "$got" = "$p $f $s" ]; then
		echo "ok $n - runner: $what"
	else
		failed=$((failed + 1))
		echo "not ok $n - runner: $what (passed, failed, skipped: $got; expected $p $f $s)"
	fi
}

counts "a good suite passes" 2 0 0 sh -c 'echo "ok 1 - a"; echo "ok 2 - b"; echo 1..2'
counts "a failed case fails" 1 1 0 sh -c 'echo "ok 1 - a"; echo "not ok 2 - b"; exit 1'
counts "a bail-out fails the suite" 1 1 0 sh -c 'echo "ok 1 - a"; echo "Bail out! no build"; exit 2'
counts "a non-zero exit fails the suite" 2 1 0 sh -c 'echo "ok 1 - a"; echo "ok 2 - b"; exit 2'
counts "a suite that dies early fails" 3 1 0 sh -c 'echo 1..5; echo "ok 1"; echo "ok 2"; echo "ok 3"'
counts "a crash fails the suite" 0 1 0 sh -c 'kill -SEGV $$'
counts "skips are counted, named" 1 0 1 sh -c 'echo "ok 1 - a"; echo "# browser test: SKIPPED (no chromium)"'
counts "a plan at the end is checked" 2 0 0 sh -c 'echo "ok 1"; echo "ok 2"; echo 1..2'

tally_log=$T/log
: > "$tally_log"
echo fail >> "$tally_log"
echo pass >> "$tally_log"
n=$((n + 1))
if out=$(tally_summary); then
	failed=$((failed + 1))
	echo "not ok $n - runner: a failure makes the summary false ($out)"
else
	echo "ok $n - runner: a failure makes the summary false ($out)"
fi
echo "1..$n"
[ "$failed" -eq 0 ]
