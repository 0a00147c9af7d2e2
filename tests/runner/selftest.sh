#!/bin/sh
# The runner's self-test: small fake suites (tests/runner/fake/) go through
# the runner's own bookkeeping (tests/runner/tally.sh, as tests/run.sh uses
# it), and each way a suite can fail must be counted: a bail-out, a non-zero
# exit after all its cases passed, a crash, fewer cases than planned, no
# plan, two plans, a suite that is not there; while a fine suite passes and
# a skip is a skip. Then the ONLY filter of tests/e2e/lib.sh on a fake
# suite in that language. In the language of tests/e2e/lib.sh itself;
# tests/run.sh runs it first.
#   sh tests/runner/selftest.sh
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
. "$root/tests/e2e/lib.sh"
F=tests/runner/fake
MARK=$T/mark MARK2=$T/mark2
export MARK MARK2

# tally SUITE...: the fake suites through tally.sh, with ONLY=$fake_only
# (none by default); the output in $T/tally, the status in $trc.
fake_only=
tally() {
	(
		ONLY=$fake_only
		export ONLY
		. tests/runner/tally.sh
		tally_begin
		for s; do run_suite "$F/$s" sh "$F/$s"; done
		tally_end
	) > "$T/tally" 2> "$T/tally.err"
	trc=$?
}
# has LINE: a line of the tally's output is LINE.
has() { grep -qxF -- "$1" "$T/tally"; }
# ends LINE: the tally's last line is LINE.
ends() { [ "$(tail -n 1 "$T/tally")" = "$1" ]; }
# lacks TEXT: no line of the tally's output has TEXT.
lacks() { ! grep -qF -- "$1" "$T/tally"; }
# verdict DESC STATUS: check DESC STATUS, and on a failure the tally's
# output as "# " lines.
verdict() {
	check "$1" "$2"
	[ "$2" = 0 ] || { selected "$1" && sed 's/^/#   | /' "$T/tally"; }
}

# ------------------------------------------------- the runner's counts --

tally good.sh
ends "3 passed, 0 failed, 0 skipped" && [ $trc = 0 ] && has "# $F/good.sh: 3 passed" && has "# a note"
verdict "a fine suite (plan first): its cases pass, exit 0" $?

tally good_trailing.sh
ends "1 passed, 1 failed, 0 skipped" && [ $trc != 0 ] && has "not ok 2 - $F/good_trailing.sh: two" &&
	has "# two: why it failed" && lacks "not ok - suite"
verdict "a failed case is named after its suite; exit 1 after it adds nothing" $?

tally bail.sh
ends "1 passed, 1 failed, 0 skipped" && [ $trc != 0 ] &&
	has "not ok - suite $F/bail.sh: exited 2 (Bail out! the database is gone)"
verdict "a suite that bails out and exits 2 is one failure" $?

tally bail_exit0.sh
ends "0 passed, 1 failed, 0 skipped" && [ $trc != 0 ] &&
	has "not ok - suite $F/bail_exit0.sh: Bail out! cannot build the helper"
verdict "a suite that bails out and exits 0 is one failure" $?

tally exit2.sh
ends "2 passed, 1 failed, 0 skipped" && [ $trc != 0 ] && has "not ok - suite $F/exit2.sh: exited 2"
verdict "a suite that exits 2 after all its cases passed is one failure" $?

tally short.sh
ends "3 passed, 1 failed, 0 skipped" && [ $trc != 0 ] &&
	has "not ok - suite $F/short.sh: planned 5 cases, ran 3"
verdict "a suite that plans 5 cases and runs 3 is one failure" $?

tally noplan.sh
ends "2 passed, 1 failed, 0 skipped" && [ $trc != 0 ] &&
	has "not ok - suite $F/noplan.sh: no plan (1..N) after 2 cases"
verdict "a suite without a plan is one failure" $?

tally twoplans.sh
ends "1 passed, 1 failed, 0 skipped" && [ $trc != 0 ] && has "not ok - suite $F/twoplans.sh: 2 plans"
verdict "a suite with two plans is one failure" $?

tally crash.sh
ends "1 passed, 1 failed, 0 skipped" && [ $trc != 0 ] &&
	has "not ok - suite $F/crash.sh: exited 139 (signal 11); planned 2 cases, ran 1"
verdict "a suite killed by a signal (a crashing unit test program) is one failure" $?

tally fail_crash.sh
ends "0 passed, 2 failed, 0 skipped" && has "not ok - suite $F/fail_crash.sh: exited 139 (signal 11)"
verdict "a crash after a failed case is a failure too" $?

tally nosuch.sh
ends "0 passed, 1 failed, 0 skipped" && [ $trc != 0 ] &&
	grep -q "^not ok - suite $F/nosuch.sh: exited 2" "$T/tally"
verdict "a suite that is not there is one failure" $?

tally skip.sh
ends "2 passed, 0 failed, 2 skipped" && [ $trc = 0 ] &&
	has "# skipped: $F/skip.sh: the widget test (no widget here)" &&
	has "# skipped: $F/skip.sh: case 3 (test_needs_cupti)" && has "# $F/skip.sh: 2 passed, 2 skipped"
verdict "a skipped case (ok, or cmocka's not ok, with a SKIP directive) is counted as skipped and named, with its reason" $?

tally good.sh skip_all.sh
ends "3 passed, 0 failed, 1 skipped" && [ $trc = 0 ] &&
	has "# skipped: $F/skip_all.sh: the whole suite (objdump is not installed)"
verdict "a suite skipped whole (plan 1..0 with a SKIP directive) is one skip" $?

tally skip_all.sh
ends "0 passed, 0 failed, 1 skipped" && [ $trc != 0 ]
verdict "nothing passed: the run fails" $?

tally good.sh bail.sh exit2.sh short.sh crash.sh skip.sh good_trailing.sh
ends "13 passed, 5 failed, 2 skipped" && [ $trc != 0 ] && [ "$(grep -c "^not ok - suite " "$T/tally")" = 4 ]
verdict "all together: each broken suite counts once, the good ones pass" $?

# ------------------------------------------- ONLY, in tests/e2e/lib.sh --

# lib_only PATTERN: runs the fake lib.sh suite with ONLY=PATTERN; its
# output in $T/tally, the status in $trc; MARK and MARK2 removed first.
lib_only() {
	rm -f "$MARK" "$MARK2"
	ONLY=$1 sh "$F/lib_suite.sh" > "$T/tally" 2>&1
	trc=$?
}
# is LINE...: the output is these lines.
is() { printf '%s\n' "$@" | cmp -s - "$T/tally"; }

lib_only ""
[ $trc = 0 ] && [ -e "$MARK2" ] && [ "$(grep -c "^ok " "$T/tally")" = 9 ] && ends "1..9" &&
	has "ok 9 - case zeta: cannot run here # SKIP no zeta"
verdict "without ONLY every case runs, the skip is a skip, the plan counts all" $?

lib_only beta
[ $trc = 0 ] && is "ok 1 - case beta, a follow-up: sees the output before it" "1..1"
verdict "ONLY=beta: only the follow-up runs, on the output of the case before it (run quietly)" $?

lib_only ALPHA
[ $trc = 0 ] && is "ok 1 - case alpha: prints alpha one" "1..1"
verdict "ONLY ignores case: ONLY=ALPHA runs case alpha" $?

lib_only 'side*mark'
[ $trc = 0 ] && is "ok 1 - case side effect: touches MARK" "1..1" && [ -e "$MARK" ] && [ ! -e "$MARK2" ]
verdict "ONLY is a glob: ONLY='side*mark' runs the side effect case" $?

lib_only gamma
[ $trc = 0 ] && is "ok 1 - case gamma: exit 3" "1..1" && [ ! -e "$MARK2" ]
verdict "a case ONLY leaves out does not run its command (no MARK2)" $?

lib_only epsilon
[ $trc = 0 ] && is "ok 1 - case epsilon: begin and finish, after the side effect" "1..1"
verdict "ONLY=epsilon: a begin ... finish case runs after the case before it, left out but run quietly" $?

lib_only delta
[ $trc = 0 ] && is "ok 1 - case delta: a check" "1..1"
verdict "ONLY=delta: a check case" $?

lib_only zeta
[ $trc = 0 ] && is "ok 1 - case zeta: cannot run here # SKIP no zeta" "1..1"
verdict "ONLY=zeta: a skip case" $?

lib_only theta
[ $trc = 0 ] && is 'ok 1 - case theta: a \# SKIP in a description is no directive' "1..1"
verdict "a hash sign in a description is escaped (TAP), so it is no directive" $?

lib_only nothing-matches-this
[ $trc = 0 ] && is "1..0"
verdict "ONLY that matches nothing: plan 1..0, exit 0" $?

lib_only "$F/lib_suite.sh"
[ $trc = 0 ] && [ "$(grep -c "^ok " "$T/tally")" = 9 ] && ends "1..9"
verdict "ONLY=the suite's path runs all of it" $?

fake_only=beta
tally lib_suite.sh
ends "1 passed, 0 failed, 0 skipped" && [ $trc = 0 ] && has "# $F/lib_suite.sh: 1 passed"
verdict "through the runner, ONLY=beta: 1 passed, the plan matches" $?

fake_only=theta
tally lib_suite.sh
ends "1 passed, 0 failed, 0 skipped" && [ $trc = 0 ]
verdict "through the runner, an escaped SKIP directive in a description is a pass" $?

fake_only=nothing-matches-this
tally good.sh lib_suite.sh
ends "3 passed, 0 failed, 0 skipped" && [ $trc = 0 ] && has "# $F/lib_suite.sh: no cases ran"
verdict "through the runner, a suite where ONLY matches nothing ran no cases, not a failure" $?
fake_only=

# The runner picks unit test programs by name with only_match.
only() { (ONLY=$1; . tests/runner/only.sh; only_match "$2"); }
only XML build/tests/test_xml && ! only xml build/tests/test_num && only "test_*m" build/tests/test_num &&
	only "" build/tests/test_num
verdict "only_match: unit test programs by name, any case, globs" $?

done_testing
