#!/bin/sh
# Browser tests in headless Chromium: a flame graph SVG (its viewer script),
# or a memtimeline HTML page (its plot and report; a screenshot beside it).
#   tests/browser/run.sh FILE.svg
#   tests/browser/run.sh FILE.html
# Skips (exit 0) when Chromium or Node is unavailable, so builds without a
# browser still pass; CI installs chromium first.
set -eu

if [ $# -ne 1 ]; then
	echo "usage: $0 FILE.svg|FILE.html" >&2
	exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
file=$1
case $file in
	/*) ;;
	*) file=$(pwd)/$file ;;
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
if [ ! -d node_modules ]; then
	if ! command -v npm >/dev/null 2>&1; then
		echo "browser test: SKIPPED (npm not found to install playwright-core)"
		exit 0
	fi
	npm ci --silent --no-audit --no-fund
fi

case $file in
	*.html) exec node memory_test.mjs "$file" "${file%.html}.png" ;;
	*) exec node flame_test.mjs "$file" ;;
esac
