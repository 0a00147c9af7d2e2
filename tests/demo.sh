#!/bin/sh
# make demo: renders the committed samples into out/ and prints the paths.
set -eu
BUILD=${BUILD:-build}
out=out
mkdir -p "$out"
sf=$BUILD/stackfold
fg=$BUILD/flamegraph
made=""

render() { # NAME TITLE INPUT... : folded text and flame graph of torch samples
	name=$1 title=$2; shift 2
	"$sf" "$@" > "$out/$name.folded.txt"
	"$fg" --title "$title" --countname us "$out/$name.folded.txt" > "$out/$name.svg"
	made="$made $out/$name.folded.txt $out/$name.svg"
}

t=samples/torch
render gelu_manual "Manual GELU: 0.5*x*(1+tanh(...)), self CPU time" $t/stacks_gelu_manual.txt
render gelu_fused "Fused F.gelu, self CPU time" $t/stacks_gelu_fused.txt
render mlp_train "MLP training step, self CPU time" $t/stacks_mlp_train.txt
# Two runs and two variants side by side: file names as root frames, and
# run-specific addresses stripped so the two manual runs line up.
render gelu_compare "GELU: manual (2 runs) vs fused" --tag-files --strip-addresses \
	$t/stacks_gelu_manual.txt $t/stacks_gelu_manual_run2.txt $t/stacks_gelu_fused.txt
# The top table (torch's key_averages().table): the manual GELU's four
# small ops and 514 calls against the fused one's single op.
"$sf" --table --by leaf --metric self_cpu_time_total --strip-addresses \
	$t/stacks_gelu_manual.txt $t/stacks_gelu_fused.txt > "$out/gelu_table.txt"
made="$made $out/gelu_table.txt"
"$fg" --inverted --title "MLP training step (icicle)" --countname us $t/stacks_mlp_train.txt > "$out/mlp_train_icicle.svg"
made="$made $out/mlp_train_icicle.svg"

# Memory timelines: torch's outputs (HTML plot, JSON, raw rows) and beyond:
# the peak as a memory flame graph, and a text summary.
mt=$BUILD/memtimeline
memory() { # NAME INPUT
	name=$1 in=$2
	"$mt" "$in" -o "$out/$name.html"
	"$mt" "$in" -o "$out/$name.json"
	"$mt" "$in" -o "$out/$name.raw.json.gz"
	"$mt" "$in" --summary="$out/$name.summary.txt" --peak-stacks="$out/$name.peak.folded.txt"
	"$fg" --colors torchmem --bytes --title "$name: bytes live at the peak" \
		"$out/$name.peak.folded.txt" > "$out/$name.peak.svg"
	made="$made $out/$name.html $out/$name.json $out/$name.raw.json.gz $out/$name.summary.txt $out/$name.peak.svg"
}
memory memory_mlp_train $t/memory_mlp_train.raw.json.gz
memory memory_documented_example $t/memory_documented_example.raw.json

# Captures of the sample programs: a CPU flame graph of known shares
# (alpha 60%, beta 30%, gamma 10%) and the heap of a known allocation
# pattern (100 MiB peak in grow(), 640 KiB leaked in leak()).
sc=$BUILD/stackcap
"$sc" -o "$out/cpu_shares.stackcap" "$BUILD/samples/cpu_shares" > /dev/null
"$sf" --threads "$out/cpu_shares.stackcap" > "$out/cpu_shares.folded.txt"
"$fg" --title "cpu_shares: self CPU time by thread" --countname us "$out/cpu_shares.folded.txt" > "$out/cpu_shares.svg"
"$sc" info "$out/cpu_shares.stackcap" > "$out/cpu_shares.info.txt"
"$sc" --alloc -o "$out/alloc_pattern.stackcap" "$BUILD/samples/alloc_pattern" > /dev/null
"$mt" --device cpu "$out/alloc_pattern.stackcap" -o "$out/alloc_pattern.html"
"$mt" "$out/alloc_pattern.stackcap" --peak-stacks="$out/alloc_pattern.peak.folded.txt" --leaks="$out/alloc_pattern.leaks.folded.txt"
"$fg" --colors torchmem --bytes --title "alloc_pattern: bytes live at the peak" \
	"$out/alloc_pattern.peak.folded.txt" > "$out/alloc_pattern.peak.svg"
made="$made $out/cpu_shares.svg $out/cpu_shares.info.txt $out/alloc_pattern.html $out/alloc_pattern.peak.svg $out/alloc_pattern.leaks.folded.txt"

# CUDA samples: built when nvcc is there, captured when a GPU is.
if [ -x "$BUILD/samples/cuda/gelu" ] && "$BUILD/samples/cuda/gelu" fused 1024 1 > /dev/null 2>&1; then
	for mode in manual fused; do
		"$sc" -o "$out/gelu_$mode.stackcap" "$BUILD/samples/cuda/gelu" $mode > /dev/null
		"$sf" --metric self_cuda_time_total "$out/gelu_$mode.stackcap" > "$out/gelu_${mode}_gpu.folded.txt"
		"$sf" --table --sort cuda_time_total "$out/gelu_$mode.stackcap" > "$out/gelu_${mode}_table.txt"
		"$fg" --title "GELU $mode: GPU time by launching stack" --countname us \
			"$out/gelu_${mode}_gpu.folded.txt" > "$out/gelu_${mode}_gpu.svg"
		made="$made $out/gelu_${mode}_gpu.svg $out/gelu_${mode}_table.txt"
	done
	for s in dataloader sync tiny_ops memory_churn; do
		"$sc" -o "$out/scenario_$s.stackcap" "$BUILD/samples/cuda/scenarios" --scenario $s > "$out/scenario_$s.json"
		"$sf" --nvtx "$out/scenario_$s.stackcap" | "$fg" --title "$s: CPU" --countname us > "$out/scenario_${s}_cpu.svg"
		"$sf" --nvtx --metric self_cuda_time_total "$out/scenario_$s.stackcap" |
			"$fg" --title "$s: GPU" --countname us > "$out/scenario_${s}_gpu.svg"
		"$mt" --device cuda:0 "$out/scenario_$s.stackcap" -o "$out/scenario_${s}_memory.html"
		made="$made $out/scenario_$s.json $out/scenario_${s}_cpu.svg $out/scenario_${s}_gpu.svg $out/scenario_${s}_memory.html"
	done
elif [ -x "$BUILD/samples/cuda/gelu" ]; then
	echo "demo: CUDA samples built, not run (no usable GPU here)"
fi

echo "demo: rendered the samples:"
for f in $made; do echo "  $f"; done
