# lib.sh - the one language of the end-to-end suites: sanitizer settings, a
# scratch directory ($T), the helpers that run a case and print its TAP line,
# the ONLY filter and the end of a suite. Sourced, after setting $root (the
# repository), by every suite tests/run.sh runs: tests/e2e/run.sh,
# mem/run.sh, mem_parallel.sh, capture/run.sh, export/run.sh, cuda/run.sh, gpu/run.sh, perf/run.sh,
# perf/inline.sh, table.sh, tests/memref/compare.sh, tests/browser/suite.sh,
# tests/parity/suite.sh and tests/runner/selftest.sh.
#
# A case is one of:
#   expect_* CODE ... DESC -- CMD...   runs CMD, checks it (the usual case)
#   then_* ... DESC                    a further check of the last command
#   begin [NAME]; ...; problem TEXT; ...; finish DESC   checks written out
#   CMD...; check DESC $?              a case that is one exit status
#   skip DESC REASON                   a case that cannot run here
# and each prints one TAP line: "ok N - DESC", "not ok N - DESC" (with "# "
# lines saying why) or "ok N - DESC # SKIP REASON". A suite ends with
# done_testing: the plan "1..N" (N: the cases that ran), exit 1 if any
# failed. "Bail out! WHY" and exit 2 (bail_out WHY) when it cannot go on.
#
# ONLY=PATTERN (tests/runner/only.sh) runs only the cases whose
# "SUITE: DESC" matches: the others print nothing and are not counted.
# expect_* helpers decide before running their command; one that is left
# out is kept, and run quietly if a then_*, keep or begin needs its output.
# check, and finish after a plain begin, decide after the case ran (its
# commands come before them); `begin NAME` decides at once (and returns 1
# when the case is left out: `if begin NAME; then ...; fi`), NAME being
# DESC without the figures finish adds. A suite guards costly work that
# several cases share with `wanted DESC...`.

# shellcheck disable=SC2119,SC2120 # begin's NAME is optional
: "${root:?lib.sh: set root (the repository) before sourcing it}"
. "$root/tests/runner/only.sh"

# Sanitizer builds: a sanitizer report must never pass for an expected
# "exit 1"; give it its own status, and also look for its report on stderr.
ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=86:abort_on_error=0}
UBSAN_OPTIONS=${UBSAN_OPTIONS:-exitcode=86:print_stacktrace=1}
export ASAN_OPTIONS UBSAN_OPTIONS

T=$(mktemp -d) || exit 2
trap 'rm -rf "$T"' EXIT
trap 'exit 130' INT TERM
n=0
failed=0
problems=
suite=${0#"$root"/} # this suite, as ONLY sees it: tests/e2e/run.sh
deferred_n=0        # the arguments of the expect_* case ONLY left out last
replaying=          # set while that case runs quietly
case_on=            # 1 or 0 when `begin NAME` chose; empty: finish chooses

# ------------------------------------------------------------ ONLY, plan --

# selected DESC: true when the case DESC is to run (ONLY matches it).
selected() { [ -n "$replaying" ] || only_match "$suite: $1"; }
# wanted DESC...: true when any of the cases DESC... is to run: a guard for
# costly work that only those cases need.
wanted() {
	for wanted_d; do selected "$wanted_d" && return 0; done
	return 1
}
# skipped DESC HELPER ARGS...: the first line of every expect_* helper
# (`skipped "$d" expect_x "$@" && return 0`): true when ONLY leaves DESC
# out. HELPER ARGS is then kept for replay; a case that runs forgets it.
skipped() {
	deferred_n=0
	selected "$1" && return 1
	shift
	# shellcheck disable=SC2034 # skipped_a is read by the eval
	for skipped_a; do
		deferred_n=$((deferred_n + 1))
		eval "deferred_$deferred_n=\$skipped_a"
	done
	return 0
}
# replay: runs the kept expect_* case, if any, printing and counting
# nothing: the output the follow-up checks after it look at.
replay() {
	[ "$deferred_n" -gt 0 ] || return 0
	set --
	replay_i=0
	while [ "$replay_i" -lt "$deferred_n" ]; do
		replay_i=$((replay_i + 1))
		eval "set -- \"\$@\" \"\$deferred_$replay_i\""
	done
	deferred_n=0 replaying=1
	"$@"
	replaying=
}

# tap ok|"not ok" DESC [DIRECTIVE]: case n's TAP line; a "#" in DESC is
# written "\#" (TAP: " # " starts a directive such as SKIP).
tap() {
	tap_r=$2 tap_d=
	while :; do
		case $tap_r in
		*"#"*) tap_d="$tap_d${tap_r%%#*}\\#" tap_r=${tap_r#*#} ;;
		*) tap_d=$tap_d$tap_r; break ;;
		esac
	done
	printf '%s\n' "$1 $n - $tap_d${3:+ # $3}"
}
# skip DESC REASON: a case that cannot run here (TAP "# SKIP").
skip() {
	selected "$1" || return 0
	n=$((n + 1))
	tap ok "$1" "SKIP $2"
}
# skip_all REASON: the whole suite cannot run here (plan "1..0 # SKIP").
skip_all() {
	printf '1..0 # SKIP %s\n' "$1"
	exit 0
}
# bail_out WHY: the suite cannot go on.
bail_out() {
	printf 'Bail out! %s\n' "$1"
	exit 2
}
# done_testing: the end of every suite: the plan, then exit 1 if any case
# failed.
done_testing() {
	echo "1..$n"
	if [ "$failed" -gt 0 ]; then
		echo "# $failed of $n failed"
		exit 1
	fi
	exit 0
}

# ---------------------------------------------------------------- helpers --

# run CMD...: runs CMD (stdin /dev/null unless CMD redirects it); stdout in
# $T/out, stderr in $T/err, exit status in $rc.
run() {
	"$@" < /dev/null > "$T/out" 2> "$T/err"
	rc=$?
}

# begin [NAME]: the start of a case's checks (the kept case runs first, if
# any). With NAME, ONLY is matched against NAME now, not against finish's
# DESC: false when the case is left out (finish will print nothing).
begin() {
	if [ $# -gt 0 ] && ! selected "$1"; then
		case_on=0 problems=
		return 1
	fi
	replay
	problems=
	case_on=${1:+1}
}
problem() {
	problems="$problems$1
"
}
# finish DESC [nosan]: prints the TAP line for the checks made since begin.
finish() {
	[ -z "$replaying" ] || return 0
	case $case_on in
	0) case_on=; return 0 ;;
	1) case_on= ;;
	*) selected "$1" || return 0 ;;
	esac
	n=$((n + 1))
	if [ "${2:-}" != nosan ] && grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer' "$T/err" 2>/dev/null; then
		problem "sanitizer report: $(grep -E 'Sanitizer|runtime error' "$T/err" | head -2)"
	fi
	if [ -z "$problems" ]; then
		tap ok "$1"
	else
		failed=$((failed + 1))
		tap "not ok" "$1"
		printf '%s' "$problems" | head -n 10 | sed 's/^/# /'
	fi
}
# check DESC STATUS: the TAP line of a case that is one status (0: ok).
check() {
	selected "$1" || return 0
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		tap ok "$1"
	else
		failed=$((failed + 1))
		tap "not ok" "$1"
	fi
}
sep() { # the "--" between a case's arguments and its command
	[ "$1" = "--" ] || bail_out "test script error: expected '--' before the command, got '$1'"
}
stderr_head() { head -c 400 "$T/err" | head -n 3 | tr '\n' '|'; }
want_rc() {
	[ "$rc" -eq "$1" ] || problem "exit status $rc, expected $1; stderr: $(stderr_head)"
}
want_err() {
	grep -qF -- "$1" "$T/err" || problem "stderr lacks '$1'; stderr: $(stderr_head)"
}
want_out() {
	grep -qF -- "$1" "$T/out" || problem "stdout lacks '$1'; stdout: $(head -c 200 "$T/out" | head -n 3 | tr '\n' '|')"
}
want_no_out() {
	[ -s "$T/out" ] && problem "stdout is not empty: $(head -c 100 "$T/out" | tr '\n' '|')"
}

# expect_exit CODE DESC -- CMD...: CMD exits with CODE.
expect_exit() {
	skipped "$2" expect_exit "$@" && return 0
	c=$1 d=$2; shift 2; sep "$1"; shift
	begin; run "$@"; want_rc "$c"; finish "$d"
}
# expect_stderr_contains CODE TEXT DESC -- CMD...: exit CODE, TEXT on stderr.
expect_stderr_contains() {
	skipped "$3" expect_stderr_contains "$@" && return 0
	c=$1 t=$2 d=$3; shift 3; sep "$1"; shift
	begin; run "$@"; want_rc "$c"; want_err "$t"; finish "$d"
}
# expect_stdout_contains CODE TEXT DESC -- CMD...: exit CODE, TEXT on stdout.
expect_stdout_contains() {
	skipped "$3" expect_stdout_contains "$@" && return 0
	c=$1 t=$2 d=$3; shift 3; sep "$1"; shift
	begin; run "$@"; want_rc "$c"; want_out "$t"; finish "$d"
}
# expect_stdout CODE TEXT DESC -- CMD...: exit CODE, stdout is exactly TEXT
# (plus a final newline, if TEXT is not empty).
expect_stdout() {
	skipped "$3" expect_stdout "$@" && return 0
	c=$1 t=$2 d=$3; shift 3; sep "$1"; shift
	begin; run "$@"; want_rc "$c"
	[ -z "$t" ] && : > "$T/want" || printf '%s\n' "$t" > "$T/want"
	cmp -s "$T/want" "$T/out" || problem "stdout differs: got '$(head -c 200 "$T/out" | tr '\n' '|')', expected '$(tr '\n' '|' < "$T/want")'"
	finish "$d"
}
# expect_usage TEXT DESC -- CMD...: usage error: exit 2, TEXT and the --help
# hint on stderr, nothing on stdout.
expect_usage() {
	skipped "$2" expect_usage "$@" && return 0
	t=$1 d=$2; shift 2; sep "$1"; shift
	begin; run "$@"; want_rc 2; want_err "$t"; want_err "--help"; want_no_out
	finish "$d"
}

# Follow-up checks on the output of the previous expect_* (each is a case).
then_stdout_contains() { selected "$2" || return 0; begin; want_out "$1"; finish "$2" nosan; }
then_stderr_contains() { selected "$2" || return 0; begin; want_err "$1"; finish "$2" nosan; }
then_stdout_lacks() {
	selected "$2" || return 0
	begin; grep -qF -- "$1" "$T/out" && problem "stdout contains '$1'"; finish "$2" nosan
}
then_stderr_lacks() {
	selected "$2" || return 0
	begin; grep -qF -- "$1" "$T/err" && problem "stderr contains '$1'"; finish "$2" nosan
}
then_stdout_matches() { # extended regex
	selected "$2" || return 0
	begin; grep -Eq -- "$1" "$T/out" || problem "stdout does not match /$1/"; finish "$2" nosan
}
then_stdout_empty() { selected "$1" || return 0; begin; want_no_out; finish "$1" nosan; }
then_stderr_empty() {
	selected "$1" || return 0
	begin; [ -s "$T/err" ] && problem "stderr is not empty: $(stderr_head)"; finish "$1" nosan
}
# then_count FILE TEXT N DESC: TEXT occurs N times in FILE (out or err).
then_count() {
	selected "$4" || return 0
	begin
	got=$(grep -oF -- "$2" "$T/$1" | wc -l | tr -d ' ')
	[ "$got" -eq "$3" ] || problem "'$2' occurs $got times in std$1, expected $3"
	finish "$4" nosan
}
# then_lines FILE ERE N DESC: N lines of FILE (out or err) match ERE.
then_lines() {
	selected "$4" || return 0
	begin
	got=$(grep -Ec -- "$2" "$T/$1")
	[ "$got" -eq "$3" ] || problem "$got lines of std$1 match /$2/, expected $3"
	finish "$4" nosan
}
# then_stdout_same FILE DESC: stdout is byte for byte FILE.
then_stdout_same() {
	selected "$2" || return 0
	begin; cmp -s "$1" "$T/out" || problem "stdout differs from $1"; finish "$2" nosan
}
# keep FILE: keeps the last stdout for a later comparison.
keep() { replay; cp "$T/out" "$1"; }

# Command wrappers, usable after "--".
feed() { feed_f=$1; shift; "$@" < "$feed_f"; }       # feed FILE CMD...: FILE as stdin (a regular file)
# shellcheck disable=SC2002 # the pipe is the point
pipe_in() { pipe_f=$1; shift; cat "$pipe_f" | "$@"; } # pipe_in FILE CMD...: FILE through a pipe
in_dir() { (cd "$1" && shift && "$@"); }              # in_dir DIR CMD...
to_full() { "$@" > /dev/full; }                       # to_full CMD...: stdout is /dev/full
