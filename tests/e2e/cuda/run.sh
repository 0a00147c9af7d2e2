#!/bin/sh
# The CUDA side of stackcap on a machine without a GPU: the shim names
# itself in CUDA_INJECTION64_PATH, the "driver" (tests/e2e/cuda/inject.c)
# calls InitializeInjection, the shim loads the real libcupti, CUPTI refuses
# without a driver, and the capture goes on CPU-only and says why. In the
# language of tests/e2e/lib.sh; cases that need the CUDA toolkit's headers,
# or no driver, are skipped (TAP "# SKIP") where those are not so.
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/tests/e2e/lib.sh"

cc -O1 -g -o "$T/inject" "$root/tests/e2e/cuda/inject.c" -ldl || bail_out "cannot build inject.c"
"$BUILD/stackcap" -o "$T/i.sc" "$T/inject" > "$T/out" 2> "$T/err"
check "a program whose CUDA init calls InitializeInjection runs to the end" $?
"$BUILD/stackcap" info "$T/i.sc" > "$T/info"
grep -q '^ended: *clean' "$T/info"
check "the capture ends clean" $?
# A shim built without the CUDA headers has no CUDA side to test.
nocuda="stackcap was built without the CUDA toolkit"
if grep -q 'built without the CUDA toolkit' "$T/info"; then
	cuda=no
	skip "the shim is named in CUDA_INJECTION64_PATH and its InitializeInjection returns 1" "$nocuda"
else
	cuda=yes
	grep -q "InitializeInjection found, returned 1" "$T/out"
	check "the shim is named in CUDA_INJECTION64_PATH and its InitializeInjection returns 1" $?
fi
if [ $cuda = yes ] && ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1'; then
	grep -Eq '^gpu: *off: (cuptiSubscribe failed|libcupti not found)' "$T/info"
	check "without a driver, info says GPU capture is off and why: $(sed -n 's/^gpu: *//p' "$T/info")" $?
elif [ $cuda = yes ]; then
	skip "without a driver, info says GPU capture is off and why" "a CUDA driver (libcuda.so.1) is installed here"
else
	skip "without a driver, info says GPU capture is off and why" "$nocuda"
fi
"$BUILD/stackfold" "$T/i.sc" > "$T/folded"
grep -q ';work ' "$T/folded"
check "CPU samples are still captured (work() is in the stacks)" $?
"$BUILD/stackfold" --metric self_cuda_time_total "$T/i.sc" > "$T/gpu"
[ ! -s "$T/gpu" ]
check "no GPU time without a GPU" $?
CUDA_INJECTION64_PATH=/other/tool.so "$BUILD/stackcap" -o "$T/j.sc" "$T/inject" > "$T/out2" 2>&1
grep -q "injection: /other/tool.so" "$T/out2"
check "a CUDA_INJECTION64_PATH set by another tool is kept" $?

# NVTX ranges from a program using the NVTX3 headers, with no GPU: the
# shim is its injection library; --nvtx puts the open ranges at the root.
if [ $cuda = yes ] && [ -e /usr/local/cuda/include/nvtx3/nvToolsExt.h ]; then
	cc -O1 -g -I/usr/local/cuda/include -o "$T/phases" "$root/tests/e2e/cuda/phases.c" -ldl
	"$BUILD/stackcap" -o "$T/p.sc" "$T/phases" > /dev/null 2>&1
	check "an NVTX program runs to the end under stackcap" $?
	"$BUILD/stackfold" --nvtx --metric samples "$T/p.sc" > "$T/pf"
	python3 - "$T/pf" > "$T/shares" <<'PY'
import sys
# Shares of the steps' samples: those outside them (the start, slow under
# ASan: 6 % of one sanitized run's) are in no range.
tot, by = 0, {}
for line in open(sys.argv[1]):
    stack, _, v = line.rstrip("\n").rpartition(" ")
    f = stack.split(";")
    if f[0] == "step":
        tot += int(v)
        if len(f) > 1:
            by[f[1]] = by.get(f[1], 0) + int(v)
print(" ".join("%s=%.1f" % (k, 100 * by.get(k, 0) / max(tot, 1)) for k in ("forward", "backward", "optimizer")))
PY
	shares=$(cat "$T/shares")
	ok=$(echo "$shares" | awk '{ split($1,a,"="); split($2,b,"="); split($3,c,"=");
		print (a[2] >= 45 && a[2] <= 55 && b[2] >= 25 && b[2] <= 35 && c[2] >= 15 && c[2] <= 25) ? 0 : 1 }')
	check "--nvtx: forward/backward/optimizer at the root, 50/30/20 % within 5 points ($shares)" "$ok"
	"$BUILD/stackfold" "$T/p.sc" > "$T/pn"
	! grep -q '^step;' "$T/pn"
	check "without --nvtx no range frames" $?
else
	why=$nocuda
	[ $cuda = yes ] && why="no NVTX3 headers (/usr/local/cuda/include/nvtx3/nvToolsExt.h)"
	skip "an NVTX program runs to the end under stackcap" "$why"
	skip "--nvtx: forward/backward/optimizer at the root, 50/30/20 % within 5 points" "$why"
	skip "without --nvtx no range frames" "$why"
fi
done_testing
