#!/bin/sh
# Randomized byte-for-byte comparison of memtimeline with an independent
# Python reference of torch's export_memory_timeline (tests/memref/README.md).
#
#   sh tests/memref/compare.sh BUILD [N]      # N streams, default 1000
#   MEMREF_SEED=7 sh tests/memref/compare.sh build 5000
#   MEMREF_KEEP=1 ...                         # keep the temp dir (path printed)
#
# Prints TAP: "ok - memref coalesce (N streams)" and "ok - memref raw (N
# streams)" (or "not ok", with "# " lines naming the first failing files and
# where they differ), or only "# memref SKIPPED: ..." without python3.
# Always exits 0; the TAP lines carry the result.
set -u
LC_ALL=C
export LC_ALL

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: sh tests/memref/compare.sh BUILD_DIR [N]" >&2
	exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
build=$1
n=${2:-1000}
seed=${MEMREF_SEED:-20240607}
bin=$build/memtimeline

if ! command -v python3 >/dev/null 2>&1; then
	echo "# memref SKIPPED: python3 not found"
	exit 0
fi
if [ ! -x "$bin" ]; then
	echo "not ok - memref coalesce ($n streams)"
	echo "# $bin not found or not executable"
	echo "not ok - memref raw ($n streams)"
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/memref.XXXXXX") || exit 0
if [ -n "${MEMREF_KEEP:-}" ]; then
	echo "# memref: files kept in $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 1' HUP INT TERM
fi
mkdir "$tmp/in" "$tmp/out"

if ! err=$(python3 "$here/random_streams.py" "$n" "$seed" "$tmp/in" 2>&1); then
	echo "not ok - memref coalesce ($n streams)"
	echo "not ok - memref raw ($n streams)"
	printf '%s\n' "$err" | tail -5 | sed 's/^/# generator: /'
	exit 0
fi
echo "# memref seed $seed (set MEMREF_SEED to change)"

for f in "$tmp"/in/*.raw.json "$tmp"/in/*.raw.json.gz; do
	[ -e "$f" ] || continue
	stem=${f##*/}
	stem=${stem%.gz}
	stem=${stem%.raw.json}
	o=$tmp/out/$stem
	"$bin" "$f" -o "$o.json" 2>"$o.err-coalesce"
	echo $? >"$o.rc-coalesce"
	"$bin" "$f" -o "$o.raw.json.gz" 2>"$o.err-raw"
	echo $? >"$o.rc-raw"
done

if ! python3 "$here/reference.py" check "$tmp/in" "$tmp/out"; then
	echo "not ok - memref check crashed"
fi
exit 0
