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

echo "demo: rendered the samples:"
for f in $made; do echo "  $f"; done
