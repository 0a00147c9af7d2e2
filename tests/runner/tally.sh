# tally.sh - how tests/run.sh counts a suite, sourced by it and by the
# runner's own test (selftest.sh). A suite is any command printing TAP:
# its "ok" / "not ok" lines count one each, and the suite itself counts
# one failure when it bails out ("Bail out!"), exits non-zero without a
# failed case to show for it, or runs a number of cases other than its
# plan ("1..N", when it prints one). "# ... SKIPPED ..." lines count as
# skips. Totals go to the file $tally_log (one word a line).

# tally: counts TAP lines from stdin, echoing failures and comments.
tally() {
	while IFS= read -r line; do
		case "$line" in
		"ok "*) echo pass >> "$tally_log" ;;
		"not ok "*) echo fail >> "$tally_log"; echo "$line" ;;
		*SKIPPED*) echo skip >> "$tally_log"; echo "$line" ;;
		"# "*|"Bail out!"*) echo "$line" ;;
		esac
	done
}

# suite NAME CMD...: runs CMD as one suite and counts it.
suite() {
	suite_name=$1
	shift
	suite_out=$(mktemp)
	"$@" > "$suite_out" 2>&1
	suite_rc=$?
	tally < "$suite_out"
	suite_ran=$(grep -cE '^(not )?ok( |$)' "$suite_out")
	suite_failed=$(grep -c '^not ok' "$suite_out")
	suite_plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\).*/\1/p' "$suite_out" | tail -n 1)
	if grep -q '^Bail out!' "$suite_out"; then
		echo "not ok - $suite_name: $(grep -m 1 '^Bail out!' "$suite_out")" | tally
	elif [ "$suite_rc" -ne 0 ] && [ "$suite_failed" -eq 0 ]; then
		echo "not ok - $suite_name: exited $suite_rc with no failed case" | tally
	elif [ -n "$suite_plan" ] && [ "$suite_plan" -ne "$suite_ran" ]; then
		echo "not ok - $suite_name: planned $suite_plan cases, ran $suite_ran" | tally
	fi
	rm -f "$suite_out"
}

# tally_summary: the closing line, "N passed, N failed, N skipped"; false
# when any failed or none passed.
tally_summary() {
	tally_passed=$(grep -c pass "$tally_log")
	tally_failed=$(grep -c fail "$tally_log")
	tally_skipped=$(grep -c skip "$tally_log")
	echo "$tally_passed passed, $tally_failed failed, $tally_skipped skipped"
	[ "$tally_failed" -eq 0 ] && [ "$tally_passed" -gt 0 ]
}
