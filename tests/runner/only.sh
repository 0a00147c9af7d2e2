# only.sh - the ONLY filter of `make test ONLY=PATTERN`, shared by the
# runner (tests/run.sh: unit test programs, by name) and the end-to-end
# suites (tests/e2e/lib.sh: each case, before it runs where it can).
#
# PATTERN is a shell glob, matched anywhere in the text and ignoring case:
# ONLY=gelu, ONLY='gzip*pipe', ONLY=tests/e2e/table.sh (a case is matched
# as "SUITE: DESCRIPTION", so a suite's path selects all of its cases).

only_lc=$(printf '%s' "${ONLY:-}" | tr '[:upper:]' '[:lower:]')

# only_match TEXT: true when ONLY is unset or empty, or matches in TEXT.
only_match() {
	[ -z "$only_lc" ] && return 0
	# shellcheck disable=SC2254 # the pattern is meant to be a glob
	case $(printf '%s' "$1" | tr '[:upper:]' '[:lower:]') in
	*$only_lc*) return 0 ;;
	esac
	return 1
}
