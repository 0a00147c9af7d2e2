#!/bin/sh
# Browser tests in headless Chromium: a flame graph SVG (its viewer script),
# a memtimeline HTML page (its plot and report; a screenshot beside it), or
# a speedscope file from stackfold, opened in the real speedscope app (its
# npm package), against the folded text of each profile it should hold.
#   tests/browser/run.sh FILE.svg
#   tests/browser/run.sh FILE.html
#   tests/browser/run.sh FILE.json FOLDED...
# Skips (exit 0) when Chromium or Node is unavailable, so builds without a
# browser still pass; CI installs chromium first.
set -eu

case $# in
0) echo "usage: $0 FILE.svg|FILE.html|FILE.json FOLDED..." >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
# Paths made absolute: the test runs from here.
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$(pwd)/$1" ;; esac; }
file=$(abs "$1")
shift
count=$# i=0
while [ $i -lt $count ]; do # each FOLDED to the end, made absolute
	f=$1
	shift
	set -- "$@" "$(abs "$f")"
	i=$((i + 1))
done
case $file in
*.json) [ $# -ge 1 ] || { echo "usage: $0 FILE.json FOLDED..." >&2; exit 2; } ;;
*) [ $# -eq 0 ] || { echo "usage: $0 FILE.svg|FILE.html" >&2; exit 2; } ;;
esac

chromium=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
	echo "browser test: SKIPPED ($chromium not found)"
	exit 0
fi
if ! command -v node >/dev/null 2>&1; then
	echo "browser test: SKIPPED (node not found)"
	exit 0
fi

cd "$here"
# Installed once, and again when package.json gained a package (speedscope).
if [ ! -d node_modules/playwright-core ] || [ ! -f node_modules/speedscope/package.json ]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "browser test: SKIPPED (npm not found to install playwright-core and speedscope)"
		exit 0
	fi
	npm ci --silent --no-audit --no-fund
fi

case $file in
	*.html) exec node memory_test.mjs "$file" "${file%.html}.png" ;;
	*.json) exec node speedscope_test.mjs "$file" "$@" ;;
	*) exec node flame_test.mjs "$file" ;;
esac
