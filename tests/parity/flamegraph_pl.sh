#!/bin/sh
# Parity check against the real flamegraph.pl: for every input and option set,
# the frames (title, geometry, fill, label) and the SVG size must be the same.
# flamegraph.pl is not part of flamekit; point FLAMEGRAPH_PL at a checkout's
# script (https://github.com/brendangregg/FlameGraph). Skipped without it.
#
# Usage: FLAMEGRAPH_PL=/path/flamegraph.pl tests/parity/flamegraph_pl.sh FLAMEGRAPH_BIN INPUT...
set -u
pl=${FLAMEGRAPH_PL:-}
fg=$1; shift
if [ -z "$pl" ] || [ ! -f "$pl" ]; then
	echo "parity: SKIPPED (set FLAMEGRAPH_PL to flamegraph.pl)"
	exit 0
fi
here=$(dirname "$0")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
for input in "$@"; do
	while IFS= read -r opts; do
		# shellcheck disable=SC2086
		perl "$pl" $opts "$input" > "$tmp/a.svg" 2>/dev/null
		# shellcheck disable=SC2086
		"$fg" $opts "$input" > "$tmp/b.svg" 2>/dev/null
		python3 "$here/svg_frames.py" "$tmp/a.svg" > "$tmp/a.txt"
		python3 "$here/svg_frames.py" "$tmp/b.svg" > "$tmp/b.txt"
		ha=$(grep -o '<svg[^>]*>' "$tmp/a.svg" | head -1)
		hb=$(grep -o '<svg[^>]*>' "$tmp/b.svg" | head -1)
		if cmp -s "$tmp/a.txt" "$tmp/b.txt" && [ "$ha" = "$hb" ]; then
			pass=$((pass + 1))
		else
			fail=$((fail + 1))
			echo "parity: DIFFERS: $(basename "$input") $opts"
			diff "$tmp/a.txt" "$tmp/b.txt" | head -4
		fi
	done <<OPTS
--minwidth 0.1
--reverse
--inverted --subtitle sub
--flamechart
--colors java
--colors js
--colors perl
--colors mem --hash
--colors io
--colors chain
--colors wakeup
--colors orange
--colors aqua --minwidth 0
--minwidth 1%
--width 800 --height 20 --fontsize 11.5 --fontwidth 0.7
--factor 2.5 --countname bytes
--total 1000
--hash
--negate
OPTS
done
echo "parity: $pass same, $fail different"
[ "$fail" -eq 0 ]
