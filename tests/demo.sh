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
	"$fg" --colors mem --countname bytes --title "$name: bytes live at the peak" \
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
"$fg" --colors mem --countname bytes --title "alloc_pattern: bytes live at the peak" \
	"$out/alloc_pattern.peak.folded.txt" > "$out/alloc_pattern.peak.svg"
made="$made $out/cpu_shares.svg $out/cpu_shares.info.txt $out/alloc_pattern.html $out/alloc_pattern.peak.svg $out/alloc_pattern.leaks.folded.txt"

echo "demo: rendered the samples:"
for f in $made; do echo "  $f"; done
