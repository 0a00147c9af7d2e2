#!/bin/sh
# Randomized byte-for-byte comparison of memtimeline with an independent
# Python reference of torch's export_memory_timeline (tests/memref/README.md).
#
#   sh tests/memref/compare.sh BUILD [N]      # N streams, default 1000
#   MEMREF_SEED=7 sh tests/memref/compare.sh build 5000
#   MEMREF_KEEP=1 ...                         # keep the streams (path printed)
#
# Two cases, in the language of tests/e2e/lib.sh: "memref coalesce (N
# streams)" and "memref raw (N streams)", each "not ok" with "# " lines
# naming the first failing files and where they differ; both skipped without
# python3. Exits 1 if one failed, 2 on a usage error.
set -u
LC_ALL=C
export LC_ALL

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: sh tests/memref/compare.sh BUILD_DIR [N]" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$1
streams=${2:-1000}
seed=${MEMREF_SEED:-20240607}
bin=$build/memtimeline
. "$root/tests/e2e/lib.sh"

coalesce="memref coalesce ($streams streams)"
raw="memref raw ($streams streams)"
if ! command -v python3 >/dev/null 2>&1; then
	skip "$coalesce" "python3 is not installed"
	skip "$raw" "python3 is not installed"
	done_testing
fi
wanted "$coalesce" "$raw" || done_testing
if [ ! -x "$bin" ]; then
	echo "# $bin not found or not executable"
	check "$coalesce" 1
	check "$raw" 1
	done_testing
fi

tmp=$T
if [ -n "${MEMREF_KEEP:-}" ]; then
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/memref.XXXXXX") || bail_out "mktemp failed"
	echo "# memref: files kept in $tmp"
fi
mkdir "$tmp/in" "$tmp/out"

if ! python3 "$here/random_streams.py" "$streams" "$seed" "$tmp/in" > "$T/gen.out" 2>&1; then
	tail -5 "$T/gen.out" | sed 's/^/# generator: /'
	check "$coalesce" 1
	check "$raw" 1
	done_testing
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

# reference.py prints "ok - memref KIND (N streams)" or "not ok - ..." and
# "# " lines for each KIND; a case is ok only if its line says so and the
# check itself ran to the end.
python3 "$here/reference.py" check "$tmp/in" "$tmp/out" > "$T/check.out" 2> "$T/check.err"
prc=$?
[ "$prc" -eq 0 ] || { echo "# reference.py check exited $prc:"; tail -5 "$T/check.err" | sed 's/^/# /'; }
for kind in coalesce raw; do
	desc="memref $kind ($streams streams)"
	st=1
	[ "$prc" -eq 0 ] && grep -qxF "ok - $desc" "$T/check.out" && st=0
	check "$desc" $st
	# its "# " lines: those after its TAP line, up to the next one
	awk -v d="$desc" '/^(not )?ok / { on = ($0 == "ok - " d || $0 == "not ok - " d); next }
		on && /^# / { print }' "$T/check.out"
done
done_testing
