# tally.sh - the runner's bookkeeping: it runs each suite and reads its TAP.
# Sourced by tests/run.sh (the real run) and tests/runner/selftest.sh (which
# feeds it small fake suites), so the self-test tests this very code.
#
#   tally_begin                   zero the totals
#   run_suite NAME CMD...         run CMD (stdout kept in a file, its exit
#                                 status too), then tally_suite NAME
#   tally_suite NAME FILE STATUS  count the TAP in FILE of a suite that
#                                 exited with STATUS
#   tally_end                     print "N passed, N failed, N skipped";
#                                 false if any failed or none passed
#
# A suite prints a plan "1..N" (first, or last) and N lines "ok ..." or
# "not ok ..."; "ok ... # SKIP why" is a skipped case (so is cmocka's
# "not ok N # SKIP name") and "1..0 # SKIP why" a suite skipped whole. Besides its own "not ok" lines, a suite counts one
# failure, named after it ("not ok - suite NAME: ..."), when it
#   - exits non-zero, except with 1 to 127 after reporting failed cases
#     (that is how a suite says some failed: cmocka exits with their count);
#   - prints "Bail out!";
#   - prints no plan, more than one, or a plan that is not the number of
#     cases it ran.
# Printed: each failed case (named "NAME: ..."), each skipped case, the
# suite's "# " lines, and a "# NAME: N passed[, N failed][, N skipped]" line.

tally_begin() {
	tally_passed=0 tally_failed=0 tally_skipped=0
	tally_dir=$(mktemp -d) || { echo "Bail out! mktemp failed"; exit 2; }
}

# run_suite NAME CMD...: runs CMD with stdin /dev/null (its stderr is not
# touched), then counts its output.
run_suite() {
	rs_name=$1
	shift
	"$@" < /dev/null > "$tally_dir/out"
	rs_status=$?
	tally_suite "$rs_name" "$tally_dir/out" "$rs_status"
}

# tally_case LINE: LINE ("ok 3 - desc # SKIP why", "not ok 4 - desc") split
# into $tc_num (maybe empty) and $tc_desc (after "N - ").
tally_case() {
	tc_r=${1#not ok}
	tc_r=${tc_r#ok}
	tc_r=${tc_r# }
	tc_num=${tc_r%%[!0-9]*}
	tc_r=${tc_r#"$tc_num"}
	tc_r=${tc_r# }
	tc_desc=${tc_r#- }
}

tally_suite() {
	ts_name=$1 ts_file=$2 ts_status=$3
	ts_plans=0 ts_plan='' ts_ran=0 ts_pass=0 ts_fail=0 ts_skip=0 ts_bail='' ts_skip_all=
	while IFS= read -r ts_line || [ -n "$ts_line" ]; do
		case $ts_line in
		"ok" | "ok "* | "not ok" | "not ok "*)
			ts_ran=$((ts_ran + 1))
			tally_case "$ts_line"
			case $ts_line in
			*" # "[Ss][Kk][Ii][Pp]*) # a skip, "ok" or (cmocka) "not ok"
				ts_skip=$((ts_skip + 1))
				tc_desc=" $tc_desc" # (cmocka's has no description before "# SKIP")
				tc_why=${tc_desc#*" # "[Ss][Kk][Ii][Pp]}
				tc_why=${tc_why#[Pp][Ee][Dd]}
				tc_why=${tc_why#:}
				tc_why=${tc_why# }
				tc_desc=${tc_desc%%" # "[Ss][Kk][Ii][Pp]*}
				tc_desc=${tc_desc# }
				printf '%s\n' "# skipped: $ts_name: ${tc_desc:-case ${tc_num:-?}}${tc_why:+ ($tc_why)}"
				;;
			"not ok"*)
				ts_fail=$((ts_fail + 1))
				printf '%s\n' "not ok${tc_num:+ $tc_num} - $ts_name: $tc_desc"
				;;
			*) ts_pass=$((ts_pass + 1)) ;;
			esac
			;;
		1..*)
			ts_plans=$((ts_plans + 1))
			if [ "$ts_plans" -eq 1 ]; then
				ts_plan=${ts_line#1..}
				ts_plan=${ts_plan%%[!0-9]*}
				case $ts_plan:$ts_line in
				0:*"#"*)
					ts_skip_all=${ts_line#*#}
					ts_skip_all=${ts_skip_all# }
					ts_skip_all=${ts_skip_all#[Ss][Kk][Ii][Pp]}
					ts_skip_all=${ts_skip_all#[Pp][Ee][Dd]}
					ts_skip_all=${ts_skip_all#:}
					ts_skip_all=${ts_skip_all# }
					ts_skip_all=${ts_skip_all:-no reason given}
					;;
				esac
			fi
			;;
		"Bail out!"*)
			[ -n "$ts_bail" ] || ts_bail=$ts_line
			;;
		"# ok - "* | "# ok") ;; # cmocka's "all of this group passed"
		"#"*) printf '%s\n' "$ts_line" ;;
		esac
	done < "$ts_file"

	# Why the suite itself failed, if it did.
	ts_why=
	if [ "$ts_status" -ne 0 ] && ! { [ "$ts_fail" -gt 0 ] && [ "$ts_status" -lt 128 ]; }; then
		ts_why="exited $ts_status"
		[ "$ts_status" -gt 128 ] && ts_why="$ts_why (signal $((ts_status - 128)))"
	fi
	if [ -n "$ts_bail" ]; then
		if [ -n "$ts_why" ]; then ts_why="$ts_why ($ts_bail)"; else ts_why=$ts_bail; fi
	elif [ "$ts_plans" -eq 0 ]; then
		ts_why="${ts_why:+$ts_why; }no plan (1..N) after $ts_ran cases"
	elif [ "$ts_plans" -gt 1 ]; then
		ts_why="${ts_why:+$ts_why; }$ts_plans plans"
	elif [ "$ts_plan" != "$ts_ran" ]; then
		ts_why="${ts_why:+$ts_why; }planned ${ts_plan:-?} cases, ran $ts_ran"
	fi
	if [ -n "$ts_why" ]; then
		printf '%s\n' "not ok - suite $ts_name: $ts_why"
		ts_fail=$((ts_fail + 1))
	elif [ -n "$ts_skip_all" ]; then
		printf '%s\n' "# skipped: $ts_name: the whole suite ($ts_skip_all)"
		ts_skip=$((ts_skip + 1))
	fi
	tally_passed=$((tally_passed + ts_pass))
	tally_failed=$((tally_failed + ts_fail))
	tally_skipped=$((tally_skipped + ts_skip))

	if [ "$ts_ran" -eq 0 ] && [ "$ts_fail" -eq 0 ] && [ "$ts_skip" -eq 0 ]; then
		echo "# $ts_name: no cases ran"
	elif [ -z "$ts_skip_all" ] || [ -n "$ts_why" ]; then
		ts_sum="# $ts_name: $ts_pass passed"
		[ "$ts_fail" -gt 0 ] && ts_sum="$ts_sum, $ts_fail failed"
		[ "$ts_skip" -gt 0 ] && ts_sum="$ts_sum, $ts_skip skipped"
		printf '%s\n' "$ts_sum"
	fi
}

tally_end() {
	rm -rf "$tally_dir"
	echo "$tally_passed passed, $tally_failed failed, $tally_skipped skipped"
	[ "$tally_failed" -eq 0 ] && [ "$tally_passed" -gt 0 ]
}
