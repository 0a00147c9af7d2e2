#!/bin/sh
# The parallel reader of large raw timelines (formats/torchmem.c splits a
# mapped file into parts parsed on separate threads) must give what the
# single-threaded reader gives: the same timeline, and for a bad row in a
# later part the same message with the same event number. In the language
# of tests/e2e/lib.sh.
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/e2e/lib.sh"

# ~700k events, 27 MB: over the 16 MiB parallel threshold (made once, for
# the cases that ONLY leaves in).
big() { [ -s "$T/big.raw.json" ] || "$BUILD/bench-genmem" 700000 > "$T/big.raw.json"; }

same_json() { echo "parallel read, $1 threads: same coalesced JSON"; }
same_rows() { echo "parallel read, $1 threads: raw rows round-trip byte for byte"; }
quiet="parallel read: no message on a valid file"
if wanted "$(same_json 2)" "$(same_json 3)" "$(same_json 4)" \
	"$(same_rows 2)" "$(same_rows 3)" "$(same_rows 4)" "$quiet"; then
	big
	for t in 1 2 3 4; do
		FLAMEKIT_THREADS=$t "$BUILD/memtimeline" "$T/big.raw.json" -o "$T/t$t.json" 2>"$T/t$t.err"
		FLAMEKIT_THREADS=$t "$BUILD/memtimeline" "$T/big.raw.json" -o "$T/t$t.raw.json.gz" 2>>"$T/t$t.err"
	done
	for t in 2 3 4; do
		cmp -s "$T/t1.json" "$T/t$t.json"; check "$(same_json $t)" $?
		gzip -dc "$T/t$t.raw.json.gz" | cmp -s - "$T/big.raw.json"
		check "$(same_rows $t)" $?
	done
	[ ! -s "$T/t2.err" ]; check "$quiet" $?
fi

# A bad row late in the file: the same error, the same event number.
bad_error="parallel read: a bad late row is an error"
bad_message="parallel read: same message and event number as one thread"
bad_nothing="parallel read: no output written on error"
if ! command -v python3 >/dev/null 2>&1; then
	for c in "$bad_error" "$bad_message" "$bad_nothing"; do skip "$c" "python3 is not installed"; done
elif wanted "$bad_error" "$bad_message" "$bad_nothing"; then
	big
	python3 - "$T/big.raw.json" "$T/bad.raw.json" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index("], [", len(s) * 3 // 4) + 4     # a row start three quarters in
j = s.index(",", i)                           # after its time
s = s[:j] + ", 9" + s[s.index(",", j + 1):]   # action 9
open(sys.argv[2], "w").write(s)
PY
	FLAMEKIT_THREADS=1 "$BUILD/memtimeline" "$T/bad.raw.json" -o "$T/b1.json" 2>"$T/b1.err"; r1=$?
	FLAMEKIT_THREADS=4 "$BUILD/memtimeline" "$T/bad.raw.json" -o "$T/b4.json" 2>"$T/b4.err"; r4=$?
	[ "$r1" = 1 ] && [ "$r4" = 1 ]; check "$bad_error" $?
	cmp -s "$T/b1.err" "$T/b4.err" && grep -q 'event [0-9]*: unknown action 9' "$T/b4.err"
	check "$bad_message" $?
	[ ! -e "$T/b4.json" ]; check "$bad_nothing" $?
fi
done_testing
