#!/bin/sh
# The browser tests as a suite of tests/run.sh, in the language of
# tests/e2e/lib.sh: each page is rendered, then opened in headless Chromium
# by tests/browser/run.sh; a case is skipped (TAP "# SKIP", with the reason)
# where that finds no Chromium, Node or npm.
#   sh tests/browser/suite.sh BUILD_DIR
set -u
if [ $# -ne 1 ]; then
	echo "usage: sh tests/browser/suite.sh BUILD_DIR" >&2
	exit 2
fi
BUILD=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
. "$root/tests/e2e/lib.sh"

# browser DESC FILE -- MAKE...: renders FILE with MAKE, then opens it.
browser() {
	selected "$1" || return 0
	d=$1 f=$2; shift 2; sep "$1"; shift
	begin
	if ! "$@" > "$f" 2> "$T/err"; then
		problem "rendering $f failed: $(stderr_head)"
		finish "$d" nosan
		return
	fi
	out=$(sh tests/browser/run.sh "$f" 2>&1)
	st=$?
	case $st:$out in
	0:*SKIPPED*)
		why=${out#*SKIPPED}; why=${why# (}; why=${why%)}
		skip "$d" "$why"
		;;
	0:*) finish "$d" nosan ;;
	*)
		printf '%s\n' "$out" | tail -20 | sed 's/^/# /'
		problem "tests/browser/run.sh $f: exit $st (its last lines above)"
		finish "$d" nosan
		;;
	esac
}
mkdir -p "$BUILD/browser"
# A real flame graph: zoom, search, URL state. The memory timeline page:
# plot shown, report there.
browser "browser: the flame graph viewer of samples/torch/stacks_gelu_manual.txt (zoom, search, URL state)" \
	"$BUILD/browser/gelu.svg" -- "$BUILD/flamegraph" --countname us samples/torch/stacks_gelu_manual.txt
browser "browser: the memory timeline page of samples/torch/memory_mlp_train.raw.json.gz (plot, report)" \
	"$BUILD/browser/memory.html" -- "$BUILD/memtimeline" --html samples/torch/memory_mlp_train.raw.json.gz
done_testing
