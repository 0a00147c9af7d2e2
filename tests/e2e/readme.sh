#!/bin/sh
# The README's first example, copied as written: every command of its
# first ```sh block runs from a directory that looks like the repository
# (samples/, build/), succeeds and writes the file it names. The block's
# `make && export PATH=...` line is replaced by the PATH setting alone
# (make test has built everything). In the language of tests/e2e/lib.sh.
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/e2e/lib.sh"
cd "$root" || exit 1

awk '/^```sh$/ { on = 1; next } on && /^```$/ { exit } on' README.md > "$T/block"
mkdir -p "$T/repo" && ln -s "$root/samples" "$T/repo/samples" &&
	ln -s "$(cd "$BUILD" && pwd)" "$T/repo/build"
begin
[ -s "$T/block" ] || problem "no sh block in README.md"
grep -q '^make && export PATH=' "$T/block" || problem "the block does not start with make and PATH"
sed 's/^make && //' "$T/block" > "$T/script"
(cd "$T/repo" && sh -e "$T/script") > "$T/out" 2> "$T/err"
rc=$?
want_rc 0
for f in $(grep -o '> *[a-z.]*\.svg\|-o [a-z.]*\.\(html\|stackcap\)' "$T/block" | sed 's/^> *//; s/^-o //'); do
	[ -s "$T/repo/$f" ] || problem "$f not written"
done
for f in gelu.svg cmp.svg peak.svg cpu.svg; do
	grep -q '</svg>' "$T/repo/$f" 2>/dev/null || problem "$f is not a whole SVG"
done
grep -q ' us' "$T/repo/gelu.svg" || problem "gelu.svg's tooltips do not say us"
finish "the README's first example runs as written and writes each file it names"

done_testing
