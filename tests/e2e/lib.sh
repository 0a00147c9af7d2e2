# lib.sh - what the end-to-end suites share: sanitizer settings, a scratch
# directory ($T), and the helpers that run a case and print its TAP line.
# Sourced by the e2e suites (tests/e2e/run.sh, mem/run.sh, perf/*.sh,
# table.sh).

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

# ---------------------------------------------------------------- helpers --

# run CMD...: runs CMD (stdin /dev/null unless CMD redirects it); stdout in
# $T/out, stderr in $T/err, exit status in $rc.
run() {
	"$@" < /dev/null > "$T/out" 2> "$T/err"
	rc=$?
}

# wanted DESC: true unless ONLY (make test ONLY=pattern) is set and DESC
# does not match it; a case not wanted is neither run (expect_*) nor counted.
wanted() {
	[ -z "${ONLY:-}" ] || printf '%s\n' "$1" | grep -qi -- "$ONLY"
}

begin() { problems=; }
problem() {
	problems="$problems$1
"
}
# finish DESC [nosan]: prints the TAP line for the checks made since begin.
finish() {
	wanted "$1" || return 0
	n=$((n + 1))
	if [ "${2:-}" != nosan ] && grep -Eq 'AddressSanitizer|LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer' "$T/err"; then
		problem "sanitizer report: $(grep -E 'Sanitizer|runtime error' "$T/err" | head -2)"
	fi
	if [ -z "$problems" ]; then
		echo "ok $n - $1"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1"
		printf '%s' "$problems" | head -n 10 | sed 's/^/# /'
	fi
}
# check DESC STATUS: the TAP line of a check that is one status (0: ok).
check() {
	wanted "$1" || return 0
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n - $1"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1"
	fi
}
sep() { # the "--" between a case's arguments and its command
	[ "$1" = "--" ] || { echo "Bail out! test script error: expected '--' before the command, got '$1'"; exit 2; }
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

# expect_exit CODE DESC -- CMD...: CMD exits with CODE.
expect_exit() {
	c=$1 d=$2; shift 2; sep "$1"; shift
	wanted "$d" || return 0
	begin; run "$@"; want_rc "$c"; finish "$d"
}
# expect_stderr_contains CODE TEXT DESC -- CMD...: exit CODE, TEXT on stderr.
expect_stderr_contains() {
	c=$1 t=$2 d=$3; shift 3; sep "$1"; shift
	wanted "$d" || return 0
	begin; run "$@"; want_rc "$c"; want_err "$t"; finish "$d"
}
# expect_stdout_contains CODE TEXT DESC -- CMD...: exit CODE, TEXT on stdout.
expect_stdout_contains() {
	c=$1 t=$2 d=$3; shift 3; sep "$1"; shift
	wanted "$d" || return 0
	begin; run "$@"; want_rc "$c"; want_out "$t"; finish "$d"
}
# expect_stdout CODE TEXT DESC -- CMD...: exit CODE, stdout is exactly TEXT
# (plus a final newline, if TEXT is not empty).
expect_stdout() {
	c=$1 t=$2 d=$3; shift 3; sep "$1"; shift
	wanted "$d" || return 0
	begin; run "$@"; want_rc "$c"
	[ -z "$t" ] && : > "$T/want" || printf '%s\n' "$t" > "$T/want"
	cmp -s "$T/want" "$T/out" || problem "stdout differs: got '$(head -c 200 "$T/out" | tr '\n' '|')', expected '$(tr '\n' '|' < "$T/want")'"
	finish "$d"
}
