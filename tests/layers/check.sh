#!/bin/sh
# check.sh - the one-way arrows of DESIGN.md: stages formats < capture <
# analysis < render; a library file includes headers of its own stage or
# lower ones only. Files holding a main() may span stages. Prints one TAP
# line per stage folder and "not ok" details for each offending include.
#
# Usage: sh tests/layers/check.sh [ROOT]   (default: the repository)
set -u
root=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
cd "$root" || exit 2

rank() {
	case "$1" in
	formats/*) echo 0 ;;
	capture/*) echo 1 ;;
	analysis/*) echo 2 ;;
	render/*) echo 3 ;;
	*) echo -1 ;;
	esac
}

n=0 failed=0
for stage in formats capture analysis render; do
	bad=
	for f in $(find "$stage" -name '*.[ch]' | sort); do
		grep -Eq '^(int|static int)[[:space:]]+main[[:space:]]*\(' "$f" && continue
		own=$(rank "$f")
		# Quoted includes are root-relative (the build adds -I.).
		for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
			r=$(rank "$h")
			if [ "$r" -lt 0 ]; then
				case "$h" in
				build/*|*/*) bad="$bad
# $f includes \"$h\": not a root-relative path of a stage" ;;
				esac
			elif [ "$r" -gt "$own" ]; then
				bad="$bad
# $f includes \"$h\", a higher stage"
			fi
		done
	done
	n=$((n + 1))
	if [ -z "$bad" ]; then
		echo "ok $n - layers: $stage/ includes only its own stage or lower ones"
	else
		failed=$((failed + 1))
		echo "not ok $n - layers: $stage/ includes only its own stage or lower ones"
		printf '%s\n' "$bad" | sed '/^$/d'
	fi
done
echo "1..$n"
[ "$failed" -eq 0 ]
