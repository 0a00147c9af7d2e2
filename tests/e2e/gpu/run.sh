#!/bin/sh
# The CUDA side of stackcap on a real GPU, in the language of
# tests/e2e/lib.sh: CUPTI's kernels, copies, allocations and NVTX ranges
# recorded and charged to the host stacks that launched them, with answers
# known from the programs (samples/cuda/*.cu, samples/python/mlp.py).
# Without a GPU (no nvidia-smi, or it lists none), or without the CUDA
# samples (nvcc), the suite is skipped; CI has no GPU, so this runs where a
# developer has one:
#
#   sh tests/e2e/gpu/run.sh BUILD_DIR
#
# GPU_KEEP=DIR keeps every capture and output there for a look afterwards;
# ONLY=PATTERN runs only the parts whose first case matches.
#   a. gelu manual (16M floats, 20 steps): 160 kernels by name (scale 60,
#      pow3, add, tanh_, add1, mul 20 each), one copy each way, none lost,
#      each launched from main (the stack ending at cudaLaunchKernel, not in
#      CUPTI's dispatch), all inside the NVTX range "forward", the
#      program's output unchanged, 256 MiB of cudaMalloc; its Chrome export
#      has the 160 kernels and folds back to the same GPU time
#   b. gelu fused: 20 kernels, less GPU time than the manual's 160
#   c. scenarios (5 steps): tiny_ops launches 5 x 801 kernels; sync copies
#      the loss back from read_loss 5 times; memory_churn's GPU timeline
#      peaks at exactly 272 MiB (cudaMalloc/cudaFree) as dataloader's does
#      (the stream-ordered pool), cudaMallocHost's 16 MiB being host memory;
#      NVTX phases at the root
#   d. graphs (10 replays): 4 kernels per replay; those captured from a
#      stream charged to record_step, the one added by hand to add_node,
#      none to the cudaGraphLaunch in replay
#   e. torch (python3 with CUDA): samples/python/mlp.py under
#      --capture-range cuda-profiler-api: Python frames on, all GPU time
#      under train_step or autograd's device thread (backward), as many
#      kernels as torch.profiler's own trace of the same steps counts
set -u
LC_ALL=C
export LC_ALL
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../../.." && pwd)
. "$root/tests/e2e/lib.sh"
BUILD=$(cd "$BUILD" && pwd) || bail_out "no build directory"
SC=$BUILD/stackcap SF=$BUILD/stackfold MT=$BUILD/memtimeline
CHECK="python3 $root/tests/e2e/gpu/gpucheck.py"
GELU=$BUILD/samples/cuda/gelu SCEN=$BUILD/samples/cuda/scenarios

if ! nvidia-smi -L > "$T/gpus" 2>&1 || ! grep -q '^GPU ' "$T/gpus"; then
	skip_all "no GPU here (nvidia-smi lists none)"
fi
if [ ! -x "$GELU" ] || [ ! -x "$SCEN" ]; then
	skip_all "the CUDA samples are not built (no nvcc)"
fi
keep() { [ -z "${GPU_KEEP:-}" ] || { mkdir -p "$GPU_KEEP" && cp -r "$@" "$GPU_KEEP/"; }; }
sed 's/^/# /' "$T/gpus"

# --- a. gelu manual
if wanted "gelu manual runs to the end under stackcap"; then
	"$GELU" manual > "$T/gelu.plain" 2>&1
	"$SC" -o "$T/gelu.sc" "$GELU" manual > "$T/gelu.out" 2> "$T/gelu.err"
	check "gelu manual runs to the end under stackcap" $?
	cmp -s "$T/gelu.plain" "$T/gelu.out"
	check "its output is the same as without stackcap ($(cat "$T/gelu.out"))" $?
	"$SC" info "$T/gelu.sc" > "$T/gelu.info"
	sed 's/^/# /' "$T/gelu.info"
	grep -q '^gpu: *on' "$T/gelu.info"
	check "info: gpu on ($(sed -n 's/^gpu: *//p' "$T/gelu.info"))" $?
	grep -Eq '^gpu work: *160 kernels .*, 2 copies \(134217728 bytes\)' "$T/gelu.info"
	check "info: 160 kernels, 2 copies of 64 MiB" $?
	grep -q '^gpu lost: *0 records dropped by CUPTI, 0 without timestamps' "$T/gelu.info"
	check "info: no CUPTI record lost" $?
	"$SF" --table --by kernel --format csv --limit 0 --metric self_cuda_time_total "$T/gelu.sc" > "$T/gelu.csv"
	out=$($CHECK calls "$T/gelu.csv" scale=60 pow3=20 add=20 tanh_=20 add1=20 mul=20 \
		'[memcpy HtoD]=1' '[memcpy DtoH]=1')
	check "--by kernel: each kernel's launches ($out)" $?
	"$SF" --metric self_cuda_time_total "$T/gelu.sc" > "$T/gelu.gpu"
	k=$($CHECK sum "$T/gelu.gpu" ';(scale|pow3|add|tanh_|add1|mul)$')
	km=$($CHECK sum "$T/gelu.gpu" '(^|;)main;(.*;)?cudaLaunchKernel;(scale|pow3|add|tanh_|add1|mul)$')
	[ "$k" = "$km" ] && ! grep -q '^\[no host stack\]' "$T/gelu.gpu" && awk "BEGIN { exit !($k > 100 && $k < 5e6) }"
	check "every kernel is charged to main's launch, the stack ending at cudaLaunchKernel ($k us of kernels)" $?
	! grep -q 'libcupti\|libcuda\.so' "$T/gelu.gpu"
	check "no frame of CUPTI's dispatch (libcupti, libcuda) in the launch stacks" $?
	"$SF" --nvtx --metric self_cuda_time_total "$T/gelu.sc" > "$T/gelu.nvtx"
	out=$($CHECK sum "$T/gelu.nvtx" '^forward;.*;(scale|pow3|add|tanh_|add1|mul)$')
	[ "$out" = "$k" ]
	check "--nvtx: all kernel time under the range forward ($out of $k us)" $?
	"$SF" --metric gpu_alloc_bytes "$T/gelu.sc" > "$T/gelu.alloc"
	out=$($CHECK sum "$T/gelu.alloc" '(^|;)main;cudaMalloc$')
	[ "$out" = "268435456.000" ] && [ "$($CHECK sum "$T/gelu.alloc")" = "$out" ]
	check "gpu_alloc_bytes: 4 x 64 MiB, all from main's cudaMalloc ($out)" $?
	"$SC" export --chrome "$T/gelu.json" "$T/gelu.sc" 2> "$T/err"
	out=$($CHECK kernels "$T/gelu.json")
	[ "$out" = 160 ]
	check "export --chrome: 160 kernel events ($out)" $?
	"$SF" --metric self_cuda_time_total "$T/gelu.json" > "$T/gelu.back"
	a=$($CHECK sum "$T/gelu.gpu") b=$($CHECK sum "$T/gelu.back")
	[ "$a" = "$b" ]
	check "the export folds back to the capture's GPU time ($b of $a us)" $?
	keep "$T/gelu.sc" "$T/gelu.info" "$T/gelu.csv" "$T/gelu.gpu" "$T/gelu.nvtx"

	# --- b. gelu fused
	"$SC" -o "$T/fused.sc" "$GELU" fused > /dev/null 2>&1
	check "gelu fused runs to the end under stackcap" $?
	"$SF" --table --by kernel --format csv --limit 0 --metric self_cuda_time_total "$T/fused.sc" > "$T/fused.csv"
	out=$($CHECK calls "$T/fused.csv" gelu_fused=20 '[memcpy HtoD]=1' '[memcpy DtoH]=1')
	check "fused: 20 kernels ($out)" $?
	"$SF" --metric self_cuda_time_total "$T/fused.sc" > "$T/fused.gpu"
	f=$($CHECK sum "$T/fused.gpu" ';gelu_fused$')
	awk "BEGIN { exit !($f > 0 && $f < $k) }"
	check "fused: less GPU time than the eight kernels ($f against $k us)" $?
fi

# --- c. scenarios
if wanted "scenario tiny_ops runs to the end under stackcap"; then
	scen() { # NAME: captures scenario NAME (5 steps) into $T/NAME.*
		"$SC" -o "$T/$1.sc" "$SCEN" --scenario "$1" --steps 5 > "$T/$1.out" 2> "$T/$1.err" &&
			"$SF" --table --by kernel --format csv --limit 0 --metric self_cuda_time_total "$T/$1.sc" > "$T/$1.csv" &&
			"$SC" info "$T/$1.sc" > "$T/$1.info"
	}
	for s in tiny_ops sync memory_churn dataloader; do
		scen $s
		check "scenario $s runs to the end under stackcap ($(cat "$T/$s.out"))" $?
		keep "$T/$s.sc" "$T/$s.info"
	done
	out=$($CHECK calls "$T/tiny_ops.csv" work=4005 '[memcpy HtoD]=5')
	check "tiny_ops: 5 x 801 launches ($out)" $?
	out=$($CHECK calls "$T/sync.csv" work=45 '[memcpy HtoD]=5' '[memcpy DtoH]=5')
	check "sync: 45 kernels, the loss copied back 5 times ($out)" $?
	"$SF" --metric self_cuda_time_total "$T/sync.sc" > "$T/sync.gpu"
	[ "$($CHECK sum "$T/sync.gpu" 'read_loss;.*\[memcpy DtoH\]$')" = "$($CHECK sum "$T/sync.gpu" '\[memcpy DtoH\]$')" ]
	check "sync: each copy back is under read_loss" $?
	"$SF" --nvtx --metric self_cuda_time_total "$T/memory_churn.sc" > "$T/churn.nvtx"
	for phase in forward backward optimizer; do
		grep -q "^$phase;.*;work " "$T/churn.nvtx" || echo "$phase"
	done > "$T/missing"
	[ ! -s "$T/missing" ] && ! grep -q '^work \|^main' "$T/churn.nvtx"
	check "--nvtx: the work kernels under forward, backward and optimizer" $?
	for s in memory_churn dataloader; do
		"$MT" --device cuda:0 --summary "$T/$s.sc" > "$T/$s.mem" 2> "$T/err"
		grep -q '^peak: .*(285212672 bytes)' "$T/$s.mem"
		check "$s: GPU memory peaks at 272 MiB ($(sed -n 's/^peak: *//p' "$T/$s.mem"))" $?
		keep "$T/$s.mem"
	done
	grep -q '^host memory: 1 allocations (16777216 bytes) by cudaMallocHost' "$T/dataloader.info"
	check "info: cudaMallocHost's 16 MiB counted as host memory, not the GPU's" $?
fi

# --- d. CUDA graphs
GRAPHS=$BUILD/samples/cuda/graphs
if [ ! -x "$GRAPHS" ]; then
	for d in "graphs: every replay runs under stackcap" "graphs: 4 kernels per replay, by name" \
		"graphs: captured kernels under record_step, the added one under add_node, none under replay"; do
		skip "$d" "$GRAPHS is not built"
	done
elif wanted "graphs: every replay runs under stackcap"; then
	"$SC" -o "$T/graphs.sc" "$GRAPHS" 10 > "$T/graphs.out" 2> "$T/graphs.err"
	grep -q '"y\[7\]": 10.0' "$T/graphs.out"
	check "graphs: every replay runs under stackcap ($(cat "$T/graphs.out"))" $?
	"$SF" --table --by kernel --format csv --limit 0 --metric self_cuda_time_total "$T/graphs.sc" > "$T/graphs.csv"
	out=$($CHECK calls "$T/graphs.csv" scale=10 shift=10 square=10 bump=10 '[memset]=2' '[memcpy DtoH]=1')
	check "graphs: 4 kernels per replay, by name ($out)" $?
	"$SF" --metric self_cuda_time_total "$T/graphs.sc" > "$T/graphs.gpu"
	captured=$($CHECK sum "$T/graphs.gpu" ';(scale|shift|square)$')
	at_capture=$($CHECK sum "$T/graphs.gpu" ';record_step;(.*;)?(scale|shift|square)$')
	added=$($CHECK sum "$T/graphs.gpu" ';bump$')
	at_add=$($CHECK sum "$T/graphs.gpu" ';add_node;(.*;)?bump$')
	[ "$captured" = "$at_capture" ] && [ "$added" = "$at_add" ] && ! grep -q ';replay;' "$T/graphs.gpu" &&
		awk "BEGIN { exit !($captured > 0 && $added > 0) }"
	check "graphs: captured kernels under record_step ($at_capture of $captured us), the added one under add_node ($at_add of $added us), none under replay" $?
	keep "$T/graphs.sc" "$T/graphs.gpu" "$T/graphs.csv"
fi

# --- e. torch
if ! wanted "mlp.py on the GPU under --capture-range cuda-profiler-api"; then
	: # left out by ONLY
elif ! python3 -c 'import torch, sys; sys.exit(not torch.cuda.is_available())' 2> /dev/null; then
	for d in "mlp.py on the GPU under --capture-range cuda-profiler-api" "Python frames on" \
		"all GPU time under train_step or autograd's device thread" \
		"backward's kernels, launched by autograd's thread, at least 10 %" \
		"no libcupti frame in torch's launch stacks" "as many kernels as torch.profiler's trace"; do
		skip "$d" "no python3 with CUDA torch"
	done
else
	MLP="$root/samples/python/mlp.py"
	"$SC" --capture-range cuda-profiler-api -o "$T/mlp.sc" python3 "$MLP" --device cuda --steps 10 \
		> "$T/mlp.out" 2> "$T/mlp.err"
	check "mlp.py on the GPU under --capture-range cuda-profiler-api" $?
	"$SC" info "$T/mlp.sc" > "$T/mlp.info"
	sed 's/^/# /' "$T/mlp.info"
	grep -Eq '^python: *CPython 3\.[0-9]+\.[0-9]+: frames on' "$T/mlp.info"
	check "Python frames on ($(sed -n 's/^python: *//p' "$T/mlp.info"))" $?
	"$SF" --metric self_cuda_time_total "$T/mlp.sc" > "$T/mlp.gpu"
	out=$($CHECK share "$T/mlp.gpu" 'mlp\.py\([0-9]+\):_train_step;|Engine::thread_main;' 100)
	check "all GPU time under train_step or autograd's device thread ($out)" $?
	out=$($CHECK share "$T/mlp.gpu" 'Engine::thread_main;' 10)
	check "backward's kernels, launched by autograd's thread, at least 10 % ($out)" $?
	! grep -q 'libcupti' "$T/mlp.gpu"
	check "no libcupti frame in torch's launch stacks" $?
	python3 "$MLP" --device cuda --steps 10 --torch-trace "$T/mlp.trace.json" > /dev/null 2>&1
	want=$($CHECK kernels "$T/mlp.trace.json")
	"$SF" --table --by kernel --format csv --limit 0 --metric self_cuda_time_total "$T/mlp.sc" > "$T/mlp.csv"
	got=$($CHECK launches "$T/mlp.csv")
	[ "$got" = "$want" ] && [ "$got" -gt 0 ]
	check "as many kernels as torch.profiler's trace ($got, trace $want)" $?
	keep "$T/mlp.sc" "$T/mlp.info" "$T/mlp.gpu" "$T/mlp.csv" "$T/mlp.trace.json" "$T/mlp.err"
fi
done_testing
