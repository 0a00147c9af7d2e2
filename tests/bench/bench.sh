#!/bin/sh
# make bench: throughput and memory figures (never a pass/fail test).
#   BENCH_BYTES  size of the generated input (default 1 GB)
#   BENCH_RUNS   runs per measurement of our commands, the fastest is shown (5)
#   FLAMEGRAPH_PL path of flamegraph.pl to compare against (optional)
set -u
BUILD=${BUILD:-build}
dir=$BUILD/bench
mkdir -p "$dir"
bytes=${BENCH_BYTES:-1000000000}
big=$dir/stacks_$bytes.txt
here=$(dirname "$0")
# Our commands: best of 5 runs (the machine is shared); flamegraph.pl: one run.
m() { python3 "$here/measure.py" -n "${BENCH_RUNS:-5}" "$1"; }
m1() { python3 "$here/measure.py" "$1"; }
# Before each section: what the bench wrote (a generated 1 GB input, the
# outputs before) is written back first, not while a figure is timed. Right
# after the 1 GB input was made, 0.98 GB of it was dirty, and stackfold
# measured 2.85x wc -l beside its writeback against 2.59x after a sync.
settle() { sync; }

if [ ! -s "$big" ]; then
	echo "generating $big ..."
	"$BUILD/bench-gen" "$bytes" 100000 > "$big.tmp" && mv "$big.tmp" "$big"
fi
size=$(wc -c < "$big")
lines=$(wc -l < "$big")
cat "$big" > /dev/null # warm the page cache
settle
mb=$(echo "$size" | awk '{printf "%.1f", $1/1e6}')
echo "input: $big: $mb MB, $lines lines"

rate() { awk -v b="$size" -v s="$1" 'BEGIN { printf "%.0f MB/s", b / 1e6 / s }'; }
# stackfold and its anchor in turn: measured in two blocks of runs, a drift
# of this shared machine between them moved the ratio by 20 %.
set -- $(python3 "$here/measure.py" -n "${BENCH_RUNS:-5}" --anchor "wc -l < $big > /dev/null" \
	"$BUILD/stackfold $big > $dir/folded.txt"); sf_s=$1; sf_rss=$2; wc_s=$4
echo "wc -l:                    ${wc_s}s  $(rate "$wc_s")"
echo "stackfold:                ${sf_s}s  $(rate "$sf_s")  peak RSS $((sf_rss / 1024)) MB  ($(awk -v a="$sf_s" -v b="$wc_s" 'BEGIN{printf "%.2f", a/b}')x wc -l)"
echo "  unique stacks: $(wc -l < "$dir/folded.txt")"
set -- $(m "$BUILD/stackfold --table $big > $dir/table.txt"); tb_s=$1; tb_rss=$2
echo "stackfold --table:        ${tb_s}s  $(rate "$tb_s")  peak RSS $((tb_rss / 1024)) MB  ($(awk -v a="$tb_s" -v b="$wc_s" 'BEGIN{printf "%.2f", a/b}')x wc -l)"
set -- $(m "$BUILD/flamegraph $big > $dir/big.svg"); fg_s=$1; fg_rss=$2
echo "flamegraph:               ${fg_s}s  $(rate "$fg_s")  peak RSS $((fg_rss / 1024)) MB  SVG $(wc -c < "$dir/big.svg") bytes"

# Many unique stacks: memory follows them, and the SVG stays small enough
# for a browser because frames below --minwidth are left out.
many=$dir/stacks_many_unique.txt
if [ ! -s "$many" ]; then
	"$BUILD/bench-gen" "$bytes" 3000000 8 16 uniform > "$many.tmp" && mv "$many.tmp" "$many"
fi
settle
set -- $(m "$BUILD/stackfold $many > $dir/many.folded.txt"); mu_s=$1; mu_rss=$2
mu=$(wc -l < "$dir/many.folded.txt")
echo "many unique stacks ($mu unique, $(wc -c < "$many" | awk '{printf "%.0f", $1/1e6}') MB): stackfold ${mu_s}s  peak RSS $((mu_rss / 1024)) MB"
set -- $(m "$BUILD/stackfold --table $many > $dir/many.table.txt"); mt_s=$1; mt_rss=$2
echo "  stackfold --table: ${mt_s}s  peak RSS $((mt_rss / 1024)) MB"
set -- $(m "$BUILD/flamegraph $dir/many.folded.txt > $dir/many.svg"); mf_s=$1; mf_rss=$2
echo "  flamegraph: ${mf_s}s  peak RSS $((mf_rss / 1024)) MB  SVG $(grep -c '<g >' "$dir/many.svg") frames, $(wc -c < "$dir/many.svg" | awk '{printf "%.1f", $1/1e6}') MB; $(grep -o '[0-9]* frames narrower' "$dir/many.svg" | head -1) than minwidth left out"

# Memory on distinct stacks: BENCH_DISTINCT (1M) distinct random 20-frame
# stacks, each on one line (no stack repeats, names do), folded and drawn;
# peak RSS as a ratio of the input's size. Then the worst case: no frame
# name repeats either (each one costs its text and an index entry).
ndist=${BENCH_DISTINCT:-1000000}
distinct=$dir/stacks_distinct_$ndist.txt
[ -s "$distinct" ] || { "$BUILD/bench-gen" 0 "$ndist" 20 20 once > "$distinct.tmp" && mv "$distinct.tmp" "$distinct"; }
dsize=$(wc -c < "$distinct")
cat "$distinct" > /dev/null
settle
ratio() { awk -v k="$1" -v b="$dsize" 'BEGIN { printf "%.2fx", k * 1024 / b }'; }
set -- $(m "$BUILD/stackfold $distinct > $dir/distinct.folded.txt"); ds=$1; drss=$2
set -- $(m "$BUILD/flamegraph $distinct > $dir/distinct.svg"); dfs=$1; dfrss=$2
echo "$ndist distinct 20-frame stacks ($(echo "$dsize" | awk '{printf "%.0f", $1/1e6}') MB): stackfold ${ds}s peak RSS $((drss / 1024)) MB ($(ratio "$drss") the input); flamegraph ${dfs}s peak RSS $((dfrss / 1024)) MB ($(ratio "$dfrss"))"
unnamed=$dir/stacks_unique_names.txt
[ -s "$unnamed" ] || awk 'BEGIN { for (i = 0; i < 250000; i++) { s = "";
	for (j = 0; j < 20; j++) s = s (j ? ";" : "") "frame_" i "_" j "_xxxxxxxxxxxxxxxxxxxx";
	print s, i % 97 + 1 } }' > "$unnamed"
dsize=$(wc -c < "$unnamed")
settle
set -- $(m "$BUILD/stackfold $unnamed > $dir/unique_names.folded.txt"); us=$1; urss=$2
echo "worst case, no frame name repeats (250k stacks of 20, $(echo "$dsize" | awk '{printf "%.0f", $1/1e6}') MB): stackfold ${us}s peak RSS $((urss / 1024)) MB ($(ratio "$urss") the input)"

small=$dir/stacks_100k.txt
head -n 100000 "$big" > "$small"
ssize=$(wc -c < "$small")
set -- $(m "$BUILD/stackfold $small | $BUILD/flamegraph > $dir/small.svg"); pipe_s=$1
echo "100k lines ($(echo "$ssize" | awk '{printf "%.1f", $1/1e6}') MB): stackfold | flamegraph: ${pipe_s}s"
pl=${FLAMEGRAPH_PL:-}
if [ -n "$pl" ] && [ -f "$pl" ]; then
	set -- $(m1 "perl $pl $small > $dir/small_pl.svg 2>/dev/null"); pl_s=$1; pl_rss=$2
	echo "100k lines: flamegraph.pl: ${pl_s}s  peak RSS $((pl_rss / 1024)) MB  -> flamekit is $(awk -v a="$pl_s" -v b="$pipe_s" 'BEGIN{printf "%.0f", a/b}')x faster"
else
	echo "100k lines: flamegraph.pl: not measured (set FLAMEGRAPH_PL=/path/to/flamegraph.pl)"
fi
for f in samples/torch/*.txt; do
	set -- $(m "$BUILD/stackfold $f | $BUILD/flamegraph > /dev/null")
	echo "sample $(basename "$f"): stackfold | flamegraph ${1}s"
done

# memtimeline: 10M events of a generated training timeline into each of
# torch's outputs; events/s and peak RSS. Against Python: the independent
# reference of torch's algorithm (tests/memref/reference.py) on 1M events.
mevents=${BENCH_MEM_EVENTS:-10000000}
mraw=$dir/memory_$mevents.raw.json
if [ ! -s "$mraw" ]; then
	"$BUILD/bench-genmem" "$mevents" > "$mraw.tmp" && mv "$mraw.tmp" "$mraw"
fi
cat "$mraw" > /dev/null
settle
echo "memtimeline input: $mraw: $(wc -c < "$mraw" | awk '{printf "%.0f", $1/1e6}') MB, $mevents events"
evs() { awk -v n="$mevents" -v s="$1" 'BEGIN { printf "%.1fM events/s", n / s / 1e6 }'; }
for out in json raw.json.gz html; do
	set -- $(m "$BUILD/memtimeline $mraw -o $dir/memory.$out"); s=$1; rss=$2
	echo "memtimeline -> .$out: ${s}s  $(evs "$s")  peak RSS $((rss / 1024)) MB  output $(wc -c < "$dir/memory.$out" | awk '{printf "%.1f", $1/1e6}') MB"
done
set -- $(m "$BUILD/memtimeline $mraw --summary=/dev/null"); ms=$1; mc=$3
msize=$(wc -c < "$mraw")
echo "memtimeline --summary: ${ms}s  $(evs "$ms")"
# Reading the raw timeline (JSON rows of integers) is most of --summary's
# work: its MB/s is a floor for the reader's, next to wc -l on the file.
set -- $(m "wc -l < $mraw > /dev/null"); mw=$1
echo "memtimeline reads the raw timeline at >= $(awk -v b="$msize" -v s="$ms" 'BEGIN{printf "%.0f MB/s", b/1e6/s}') (CPU $(awk -v b="$msize" -v s="$mc" 'BEGIN{printf "%.0f MB/s", b/1e6/s}') per core; wc -l $(awk -v b="$msize" -v s="$mw" 'BEGIN{printf "%.0f MB/s", b/1e6/s}'))"
if command -v python3 >/dev/null 2>&1; then
	small_mem=$dir/memory_1M.raw.json
	"$BUILD/bench-genmem" 1000000 > "$small_mem"
	set -- $(m1 "python3 tests/memref/reference.py coalesce $small_mem > $dir/memory_1M_py.json"); py_s=$1; py_rss=$2
	set -- $(m "$BUILD/memtimeline $small_mem -o $dir/memory_1M.json"); c_s=$1
	cmp -s "$dir/memory_1M.json" "$dir/memory_1M_py.json" && same=identical || same=DIFFERENT
	echo "1M events -> JSON: Python (torch's algorithm) ${py_s}s, peak RSS $((py_rss / 1024)) MB; memtimeline ${c_s}s: $(awk -v a="$py_s" -v b="$c_s" 'BEGIN{printf "%.0f", a/b}')x faster, output $same"
fi

# stackcap: what sampling costs (a fixed amount of work, run plainly and
# under stackcap in turn, best of BENCH_RUNS each), what a capture weighs,
# and stackfold on a large (synthetic) capture.
if [ -x "$BUILD/samples/cpu_shares" ]; then
	settle
	python3 "$here/overhead.py" "${BENCH_RUNS:-5}" "$BUILD" "$dir"
	# Python frames: a pure-Python loop, plain, --no-python and with them.
	[ -x /usr/bin/python3 ] && python3 "$here/pyoverhead.py" "${BENCH_RUNS:-5}" "$BUILD" "$dir"
	cap=$dir/bench_10M.stackcap
	[ -s "$cap" ] || "$BUILD/bench-gencap" 10000000 > "$cap"
	set -- $(m "$BUILD/stackfold $cap > $dir/cap.folded.txt"); cs=$1; crss=$2
	echo "stackfold on a 10M-sample capture ($(wc -c < "$cap" | awk '{printf "%.1f", $1/1e6}') MB, $(wc -l < "$dir/cap.folded.txt") stacks): ${cs}s, $(awk -v s="$cs" 'BEGIN{printf "%.1fM samples/s", 10/s}'), peak RSS $((crss / 1024)) MB"
	# The Chrome trace of a CUDA program's capture (gencap --cuda).
	gcap=$dir/bench_cuda_300k.stackcap
	[ -s "$gcap" ] || "$BUILD/bench-gencap" --cuda 300000 > "$gcap"
	set -- $(m "$BUILD/stackcap export -q --chrome $dir/trace.json.gz $gcap"); es=$1; erss=$2
	echo "stackcap export --chrome of a 300k-sample CUDA capture: ${es}s, $(wc -c < "$dir/trace.json.gz" | awk '{printf "%.1f", $1/1e6}') MB .json.gz, peak RSS $((erss / 1024)) MB"
fi

# perf script input: a real perf script (perf record of the CPU sample when
# perf works here, else the committed one), repeated to ~200 MB; against
# wc -l, and against stackcollapse-perf.pl beside FLAMEGRAPH_PL when set.
ps=$dir/perf_script.txt
if [ ! -s "$ps.one" ]; then
	if perf record -F 2000 -g -o "$dir/perf.data" "$BUILD/samples/cpu_shares" 15 > /dev/null 2>&1 &&
	   perf script -i "$dir/perf.data" > "$ps.one" 2> /dev/null && [ -s "$ps.one" ]; then
		echo "perf script: recorded $(wc -l < "$ps.one") lines of cpu_shares with perf"
	else
		cp samples/perf/cpu_shares.perf.txt "$ps.one"
		echo "perf script: perf record unavailable here, using samples/perf/cpu_shares.perf.txt"
	fi
fi
reps=$(awk -v s="$(wc -c < "$ps.one")" 'BEGIN { r = int(200e6 / s); print r < 1 ? 1 : r }')
i=0; : > "$ps"; while [ $i -lt "$reps" ]; do cat "$ps.one" >> "$ps"; i=$((i + 1)); done
pssize=$(wc -c < "$ps")
cat "$ps" > /dev/null
settle
set -- $(m "wc -l < $ps > /dev/null"); pw=$1
set -- $(m "$BUILD/stackfold --input=perf $ps > $dir/perf.folded"); pf=$1; prss=$2
echo "perf script ($(echo "$pssize" | awk '{printf "%.0f", $1/1e6}') MB): stackfold ${pf}s $(awk -v b="$pssize" -v s="$pf" 'BEGIN{printf "%.0f MB/s", b/1e6/s}'), peak RSS $((prss / 1024)) MB ($(awk -v a="$pf" -v b="$pw" 'BEGIN{printf "%.1f", a/b}')x wc -l)"
scp=$(dirname "${FLAMEGRAPH_PL:-/nonexistent}")/stackcollapse-perf.pl
if [ -f "$scp" ]; then
	set -- $(m1 "perl $scp $ps > $dir/perf_pl.folded 2>/dev/null"); pp=$1
	cmp -s "$dir/perf.folded" "$dir/perf_pl.folded" && same=identical || same=DIFFERENT
	echo "  stackcollapse-perf.pl: ${pp}s -> stackfold is $(awk -v a="$pp" -v b="$pf" 'BEGIN{printf "%.0f", a/b}')x faster, output $same"
fi
# --inline --context: addr2line's answers, read from the binaries here.
set -- $(m "$BUILD/stackfold --input=perf --inline --context $ps > $dir/perf_inline.folded"); pi=$1
echo "perf script --inline --context: stackfold ${pi}s ($(awk -v b="$pssize" -v s="$pi" 'BEGIN{printf "%.0f MB/s", b/1e6/s}'))"
if [ -f "$scp" ]; then
	set -- $(m1 "perl $scp --inline --context $ps > $dir/perf_inline_pl.folded 2>/dev/null"); ppi=$1
	cmp -s "$dir/perf_inline.folded" "$dir/perf_inline_pl.folded" && same=identical || same=DIFFERENT
	echo "  stackcollapse-perf.pl --inline --context (runs addr2line per address): ${ppi}s -> $(awk -v a="$ppi" -v b="$pi" 'BEGIN{printf "%.0f", a/b}')x, output $same"
fi

# torch Chrome/Kineto traces: a synthetic trace shaped like kineto's output
# (tests/bench/gentrace.py, BENCH_TRACE_BYTES, default 200 MB), folded for
# CPU and GPU time, beside Python's json.load of the same file (one run).
# MB/s per core: bytes over the CPU time (user + system) of the best run.
tbytes=${BENCH_TRACE_BYTES:-200000000}
tr=$dir/trace_$tbytes.json
[ -s "$tr" ] || { python3 "$here/gentrace.py" "$tbytes" > "$tr.tmp" && mv "$tr.tmp" "$tr"; }
trsize=$(wc -c < "$tr")
cat "$tr" > /dev/null
settle
trate() { awk -v b="$trsize" -v s="$1" 'BEGIN { printf "%.0f MB/s", b / 1e6 / s }'; }
set -- $(m "$BUILD/stackfold $tr > $dir/trace.folded"); tw=$1; trss=$2; tc=$3
echo "torch trace ($(echo "$trsize" | awk '{printf "%.0f", $1/1e6}') MB): stackfold ${tw}s $(trate "$tw"), CPU ${tc}s: $(trate "$tc") per core, peak RSS $((trss / 1024)) MB"
set -- $(m "$BUILD/stackfold --metric self_cuda_time_total $tr > $dir/trace.gpu.folded"); gw=$1; gc=$3
echo "  --metric self_cuda_time_total: ${gw}s $(trate "$gw"), CPU ${gc}s: $(trate "$gc") per core"
set -- $(m1 "python3 -c 'import json, sys; json.load(open(sys.argv[1]))' $tr"); pw=$1; prss=$2; pc=$3
echo "  python3 json.load alone: ${pw}s $(trate "$pw"), CPU ${pc}s: $(trate "$pc") per core, peak RSS $((prss / 1024)) MB -> stackfold $(awk -v a="$pw" -v b="$tw" 'BEGIN{printf "%.1f", a/b}')x faster"
