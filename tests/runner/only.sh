# only.sh - the ONLY filter of `make test ONLY=PATTERN`, shared by the
# runner (tests/run.sh: unit test programs, by name) and the end-to-end
# suites (tests/e2e/lib.sh: each case, before it runs where it can).
#
# PATTERN is a shell glob, matched anywhere in the text, ignoring the case
# of letters (outside [...]): ONLY=gelu, ONLY='gzip*pipe',
# ONLY=tests/e2e/table.sh (a case is matched as "SUITE: DESCRIPTION", so a
# suite's path selects all of its cases).

# The pattern with each letter outside [...] made [xX], once, so that
# matching needs no process (suites match hundreds of cases).
only_glob=$(printf '%s' "${ONLY:-}" | awk '{
	out = ""; br = 0
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (esc) { out = out c; esc = 0; continue }
		if (c == "\\") { out = out c; esc = 1; continue }
		if (br) { out = out c; if (c == "]" && i > br + 1) br = 0; continue }
		if (c == "[") { out = out c; br = i; continue }
		l = tolower(c); u = toupper(c)
		out = out (l != u ? "[" l u "]" : c)
	}
	printf "%s", out
}')

# only_match TEXT: true when ONLY is unset or empty, or matches in TEXT.
only_match() {
	[ -z "$only_glob" ] && return 0
	# shellcheck disable=SC2254 # the pattern is meant to be a glob
	case $1 in
	*$only_glob*) return 0 ;;
	esac
	return 1
}
