#!/bin/sh
# Damaged captures are never folded silently: a real capture of each kind
# (CPU samples, allocations, GPU records) damaged 300 times each (a flipped
# bit, a cut, a smeared run of bytes) by tests/mutate/captures.py; every
# result is either the whole capture's output or a reported loss. In the
# language of tests/e2e/lib.sh. MUTATIONS=N changes the count.
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/tests/e2e/lib.sh"
mutations=${MUTATIONS:-300}

# mutate DESC CAPTURE: the case for one capture.
mutate() {
	begin
	if python3 "$root/tests/mutate/captures.py" "$BUILD" "$2" "$mutations" > "$T/m.out" 2>&1; then
		:
	else
		problem "$(grep -m 3 'silent' "$T/m.out" | tr '\n' '|')"
	fi
	finish "$1 ($(tr '\n' ' ' < "$T/m.out" | sed 's/ $//'))" nosan
}

cpu="damaged CPU capture x $mutations: identical or reported, never silent"
alloc="damaged allocation capture x $mutations: identical or reported, never silent"
gpu="damaged GPU capture x $mutations: identical or reported, never silent"
if ! command -v python3 >/dev/null 2>&1; then
	for c in "$cpu" "$alloc" "$gpu"; do skip "$c" "python3 is not installed"; done
else
	if wanted "$cpu"; then
		"$BUILD/stackcap" -o "$T/cpu.sc" "$BUILD/samples/cpu_shares" 0.2 > /dev/null 2>&1
		mutate "$cpu" "$T/cpu.sc"
	fi
	if wanted "$alloc"; then
		"$BUILD/stackcap" --alloc -o "$T/alloc.sc" "$BUILD/samples/alloc_pattern" > /dev/null 2>&1
		mutate "$alloc" "$T/alloc.sc"
	fi
	if [ ! -x "$BUILD/tests/test_gpurec" ]; then
		skip "$gpu" "no $BUILD/tests/test_gpurec (built with the CUDA toolkit only)"
	elif wanted "$gpu"; then
		"$BUILD/tests/test_gpurec" --write-capture "$T/gpu.sc" 2> /dev/null
		mutate "$gpu" "$T/gpu.sc"
	fi
fi
done_testing
