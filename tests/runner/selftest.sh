#!/bin/sh
# The runner's self-test: small fake suites (tests/runner/fake/) go through
# the runner's own bookkeeping (tests/runner/tally.sh, as tests/run.sh uses
# it), and each way a suite can fail must be counted: a bail-out, a non-zero
# exit after all its cases passed, a crash, fewer cases than planned, no
# plan, two plans; while a fine suite passes and a skip is a skip. Then the
# ONLY filter of tests/e2e/lib.sh on a fake suite in that language. In the
# language of tests/e2e/lib.sh itself; tests/run.sh runs it first.
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
# show: the tally's output, as "# " lines, when the last check failed.
show() { [ "$1" = 0 ] || sed 's/^/#   | /' "$T/tally"; }
# case DESC TEST...: a case that is the status of TEST (a command list).
case_() {
	selected "$1" || return 0
	d_=$1
	shift
	eval "$*"
	st_=$?
	check "$d_" "$st_"
	show "$st_"
}

# ------------------------------------------------- the runner's counts --

tally good.sh
case_ "a fine suite (plan first): its cases pass, exit 0" \
	'ends "3 passed, 0 failed, 0 skipped" && [ $trc = 0 ] && has "# $F/good.sh: 3 passed" && has "# a note"'
tally good_trailing.sh
case_ "a failed case is named after its suite; exit 1 after it adds nothing" \
	'ends "1 passed, 1 failed, 0 skipped" && [ $trc != 0 ] && has "not ok 2 - $F/good_trailing.sh: two" &&
	 has "# two: why it failed" && lacks "not ok - suite"'
tally bail.sh
case_ "a suite that bails out and exits 2 is one failure" \
	'ends "1 passed, 1 failed, 0 skipped" && [ $trc != 0 ] &&
	 has "not ok - suite $F/bail.sh: exited 2 (Bail out! the database is gone)"'
tally bail_exit0.sh
case_ "a suite that bails out and exits 0 is one failure" \
	'ends "0 passed, 1 failed, 0 skipped" && [ $trc != 0 ] &&
	 has "not ok - suite $F/bail_exit0.sh: Bail out! cannot build the helper"'
tally exit2.sh
case_ "a suite that exits 2 after all its cases passed is one failure" \
	'ends "2 passed, 1 failed, 0 skipped" && [ $trc != 0 ] && has "not ok - suite $F/exit2.sh: exited 2"'
tally short.sh
case_ "a suite that plans 5 cases and runs 3 is one failure" \
	'ends "3 passed, 1 failed, 0 skipped" && [ $trc != 0 ] && has "not ok - suite $F/short.sh: planned 5 cases, ran 3"'
tally noplan.sh
case_ "a suite without a plan is one failure" \
	'ends "2 passed, 1 failed, 0 skipped" && has "not ok - suite $F/noplan.sh: no plan (1..N) after 2 cases"'
tally twoplans.sh
case_ "a suite with two plans is one failure" \
	'ends "1 passed, 1 failed, 0 skipped" && has "not ok - suite $F/twoplans.sh: 2 plans"'
tally crash.sh
case_ "a suite killed by a signal (a crashing unit test program) is one failure" \
	'ends "1 passed, 1 failed, 0 skipped" && [ $trc != 0 ] &&
	 has "not ok - suite $F/crash.sh: exited 139 (signal 11); planned 2 cases, ran 1"'
tally fail_crash.sh
case_ "a crash after a failed case is a failure too" \
	'ends "0 passed, 2 failed, 0 skipped" && has "not ok - suite $F/fail_crash.sh: exited 139 (signal 11)"'
tally nosuch.sh
case_ "a suite that is not there is one failure" \
	'ends "0 passed, 1 failed, 0 skipped" && [ $trc != 0 ] && grep -q "^not ok - suite $F/nosuch.sh: exited 2" "$T/tally"'
tally skip.sh
case_ "a skipped case (ok or cmocka's not ok, with # SKIP) is counted as skipped and named, with its reason" \
	'ends "2 passed, 0 failed, 2 skipped" && [ $trc = 0 ] &&
	 has "# skipped: $F/skip.sh: the widget test (no widget here)" &&
	 has "# skipped: $F/skip.sh: case 3 (test_needs_cupti)" && has "# $F/skip.sh: 2 passed, 2 skipped"'
tally good.sh skip_all.sh
case_ "a suite skipped whole (plan 1..0 with a SKIP directive) is one skip" \
	'ends "3 passed, 0 failed, 1 skipped" && [ $trc = 0 ] &&
	 has "# skipped: $F/skip_all.sh: the whole suite (objdump is not installed)"'
tally skip_all.sh
case_ "nothing passed: the run fails" 'ends "0 passed, 0 failed, 1 skipped" && [ $trc != 0 ]'
tally good.sh bail.sh exit2.sh short.sh crash.sh skip.sh good_trailing.sh
case_ "all together: each broken suite counts once, the good ones pass" \
	'ends "13 passed, 5 failed, 2 skipped" && [ $trc != 0 ] && [ "$(grep -c "^not ok - suite " "$T/tally")" = 4 ]'

# ------------------------------------------- ONLY, in tests/e2e/lib.sh --

# lib_only PATTERN: runs the fake lib.sh suite with ONLY=PATTERN; its
# output in $T/lib, the status in $lrc; MARK and MARK2 removed first.
lib_only() {
	rm -f "$MARK" "$MARK2"
	ONLY=$1 sh "$F/lib_suite.sh" > "$T/lib" 2>&1
	lrc=$?
}
# lib_is LINE...: the output is these lines.
lib_is() { printf '%s\n' "$@" | cmp -s - "$T/lib"; }
show_lib() { [ "$1" = 0 ] || sed 's/^/#   | /' "$T/lib"; }
lib_case() {
	selected "$1" || return 0
	d_=$1
	shift
	eval "$*"
	st_=$?
	check "$d_" "$st_"
	show_lib "$st_"
}

lib_only ""
lib_case "without ONLY every case runs, the skip is a skip, the plan counts all" \
	'[ $lrc = 0 ] && [ -e "$MARK2" ] && [ "$(grep -c "^ok " "$T/lib")" = 9 ] && tail -n 1 "$T/lib" | grep -qx "1..9" &&
	 grep -qx "ok 9 - case zeta: cannot run here # SKIP no zeta" "$T/lib"'
lib_only beta
lib_case "ONLY=beta: only the follow-up runs, on the output of the case before it (run quietly)" \
	'[ $lrc = 0 ] && lib_is "ok 1 - case beta, a follow-up: sees the output before it" "1..1"'
lib_only ALPHA
lib_case "ONLY ignores case: ONLY=ALPHA runs case alpha" \
	'[ $lrc = 0 ] && lib_is "ok 1 - case alpha: prints alpha one" "1..1"'
lib_only 'side*mark'
lib_case "ONLY is a glob: ONLY='side*mark' runs the side effect case" \
	'[ $lrc = 0 ] && lib_is "ok 1 - case side effect: touches MARK" "1..1" && [ -e "$MARK" ] && [ ! -e "$MARK2" ]'
lib_only gamma
lib_case "a case ONLY leaves out does not run its command (no MARK2)" \
	'[ $lrc = 0 ] && lib_is "ok 1 - case gamma: exit 3" "1..1" && [ ! -e "$MARK2" ]'
lib_only epsilon
lib_case "ONLY=epsilon: a begin ... finish case runs after the case before it, left out but run quietly" \
	'[ $lrc = 0 ] && lib_is "ok 1 - case epsilon: begin and finish, after the side effect" "1..1"'
lib_only "delta"
lib_case "ONLY=delta: a check case" '[ $lrc = 0 ] && lib_is "ok 1 - case delta: a check" "1..1"'
lib_only zeta
lib_case "ONLY=zeta: a skip case" \
	'[ $lrc = 0 ] && lib_is "ok 1 - case zeta: cannot run here # SKIP no zeta" "1..1"'
lib_only theta
lib_case "a # in a description is written \\# (TAP), so it is no directive" \
	'[ $lrc = 0 ] && lib_is "ok 1 - case theta: a \\# SKIP in a description is no directive" "1..1"'
lib_only nothing-matches-this
lib_case "ONLY that matches nothing: plan 1..0, exit 0" '[ $lrc = 0 ] && lib_is "1..0"'
lib_only "$F/lib_suite.sh"
lib_case "ONLY=the suite's path runs all of it" \
	'[ $lrc = 0 ] && [ "$(grep -c "^ok " "$T/lib")" = 9 ] && tail -n 1 "$T/lib" | grep -qx "1..9"'

fake_only=beta
tally lib_suite.sh
case_ "through the runner, ONLY=beta: 1 passed, the plan matches" \
	'ends "1 passed, 0 failed, 0 skipped" && [ $trc = 0 ] && has "# $F/lib_suite.sh: 1 passed"'
fake_only=theta
tally lib_suite.sh
case_ "through the runner, an escaped # SKIP in a description is a pass" \
	'ends "1 passed, 0 failed, 0 skipped" && [ $trc = 0 ]'
fake_only=nothing-matches-this
tally good.sh lib_suite.sh
case_ "through the runner, a suite where ONLY matches nothing ran no cases, not a failure" \
	'ends "3 passed, 0 failed, 0 skipped" && has "# $F/lib_suite.sh: no cases ran"'
fake_only=

# The runner picks unit test programs by name with only_match.
only() { (ONLY=$1; . tests/runner/only.sh; only_match "$2"); }
case_ "only_match: unit test programs by name, any case, globs" \
	'only XML build/tests/test_xml && ! only xml build/tests/test_num && only "test_*m" build/tests/test_num &&
	 only "" build/tests/test_num'

done_testing
