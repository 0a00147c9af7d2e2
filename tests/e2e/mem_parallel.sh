#!/bin/sh
# The parallel reader of large raw timelines (formats/torchmem.c splits a
# mapped file into parts parsed on separate threads) must give what the
# single-threaded reader gives: the same timeline, and for a bad row in a
# later part the same message with the same event number. TAP output.
set -u
BUILD=${1:-build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); echo "not ok $n - $1"; }
check() { if [ "$2" = 0 ]; then ok "$1"; else not_ok "$1"; fi; }

# ~700k events, 27 MB: over the 16 MiB parallel threshold.
"$BUILD/bench-genmem" 700000 > "$tmp/big.raw.json"
for t in 1 2 3 4; do
	FLAMEKIT_THREADS=$t "$BUILD/memtimeline" "$tmp/big.raw.json" -o "$tmp/t$t.json" 2>"$tmp/t$t.err"
	FLAMEKIT_THREADS=$t "$BUILD/memtimeline" "$tmp/big.raw.json" -o "$tmp/t$t.raw.json.gz" 2>>"$tmp/t$t.err"
done
for t in 2 3 4; do
	cmp -s "$tmp/t1.json" "$tmp/t$t.json"; check "parallel read, $t threads: same coalesced JSON" $?
	gzip -dc "$tmp/t$t.raw.json.gz" | cmp -s - "$tmp/big.raw.json"
	check "parallel read, $t threads: raw rows round-trip byte for byte" $?
done
[ ! -s "$tmp/t2.err" ]; check "parallel read: no message on a valid file" $?

# A bad row late in the file: the same error, the same event number.
if command -v python3 >/dev/null 2>&1; then
	python3 - "$tmp/big.raw.json" "$tmp/bad.raw.json" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index("], [", len(s) * 3 // 4) + 4     # a row start three quarters in
j = s.index(",", i)                           # after its time
s = s[:j] + ", 9" + s[s.index(",", j + 1):]   # action 9
open(sys.argv[2], "w").write(s)
PY
	FLAMEKIT_THREADS=1 "$BUILD/memtimeline" "$tmp/bad.raw.json" -o "$tmp/b1.json" 2>"$tmp/b1.err"; r1=$?
	FLAMEKIT_THREADS=4 "$BUILD/memtimeline" "$tmp/bad.raw.json" -o "$tmp/b4.json" 2>"$tmp/b4.err"; r4=$?
	[ "$r1" = 1 ] && [ "$r4" = 1 ]; check "parallel read: a bad late row is an error" $?
	cmp -s "$tmp/b1.err" "$tmp/b4.err" && grep -q 'event [0-9]*: unknown action 9' "$tmp/b4.err"
	check "parallel read: same message and event number as one thread" $?
	[ ! -e "$tmp/b4.json" ]; check "parallel read: no output written on error" $?
else
	echo "# mem_parallel: python3 missing, bad-row cases skipped"
fi
