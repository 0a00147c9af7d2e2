#!/bin/sh
# Python frames in captures, the reading side, end to end: captures written
# by capfile.py (PYFRAMES records and tagged stack addresses, no Python run
# needed) read by stackfold, stackcap info, memtimeline and flamegraph.
# Cases: default names (the line being run, qualname) and torch's form
# (def line, name), paths shortened (site-packages, dist-packages,
# lib/python3.11, the working directory, --python-prefix) or kept whole,
# --python-only on interleaved stacks, an undefined id, a damaged PYFRAMES
# chunk, names with spaces, ';', tabs, newlines and markup (escaped in the
# SVG), the largest line number, empty names, the info line, --table rows,
# memtimeline's allocation stacks, usage errors. Expected texts were
# checked by hand against the rules in analysis/capture/pynames.h.
#
# Usage: sh tests/e2e/capture/pynames.sh BUILD_DIR
set -u
LC_ALL=C
export LC_ALL

if [ $# -ne 1 ]; then
	echo "usage: sh tests/e2e/capture/pynames.sh BUILD_DIR" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/../../.." && pwd) || exit 2
cd "$root" || exit 2
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "pynames.sh: no build directory '$1'" >&2; exit 2; }
SC=$BUILD/stackcap
SF=$BUILD/stackfold
MT=$BUILD/memtimeline
FG=$BUILD/flamegraph
HERE=$root/tests/e2e/capture
for b in "$SC" "$SF" "$MT" "$FG"; do
	[ -e "$b" ] || { echo "Bail out! $b is missing (run make first)"; exit 2; }
done
command -v python3 >/dev/null 2>&1 || { echo "Bail out! python3 is needed"; exit 2; }

. "$root/tests/e2e/lib.sh"

capfile() { python3 "$HERE/capfile.py" "$@"; }

# The capture most cases read: a training step, root first
#   libnative+0x1000  train.py <module> (line 30)  libnative+0x2000
#   train.py Model.step (def 10, line 14)  libnative+0x3000
#   torch linear.py Linear.forward (def 113, line 116)  libnative+0x4000  +0x5000
# sampled 5 times at its leaf, 2 in forward, 1 in step; 2 allocations
# (4096 bytes at the leaf, 100 in step). The module's file does not exist:
# native frames read "libnative.so+0x...", with a warning (-q).
cat > "$T/train.json" << 'EOF'
{"hz": 1000, "flags": 1, "chunks": [
 ["meta", [["command", "python3 train.py"], ["python", "CPython 3.11.2: frames on"],
           ["cwd", "/home/u/proj"]]],
 ["modules", [["/nonexistent/libnative.so", 4096, 1048576, 0]]],
 ["pyframes", [[1, "/home/u/proj/train.py", "<module>", "<module>", 1, 30],
               [2, "/home/u/proj/train.py", "Model.step", "step", 10, 14],
               [3, "/usr/lib/python3/dist-packages/torch/nn/modules/linear.py",
                "Linear.forward", "forward", 113, 116]]],
 ["stacks", [1, [[0, 4096], [1, "py:1"], [2, 8192], [3, "py:2"], [4, 12288], [5, "py:3"],
                 [6, 16384], [7, 20480]]]],
 ["threads", [[100, "python3"]]],
 ["samples", [[100, 8, 5], [100, 6, 2], [100, 4, 1]]],
 ["allocs", [[1, 100, 36864, 4096, 8], [1, 100, 40960, 100, 4]]],
 ["end", []]
]}
EOF
capfile write "$T/train.json" "$T/train.cap" || bail_out "capfile.py write failed"

N1='libnative.so+0x1000' N2='libnative.so+0x2000' N3='libnative.so+0x3000'
LEAF='libnative.so+0x4000;libnative.so+0x5000'
expect_stdout 0 "$N1;train.py(30):_<module>;$N2;train.py(14):_Model.step 1000
$N1;train.py(30):_<module>;$N2;train.py(14):_Model.step;$N3;torch/nn/modules/linear.py(116):_Linear.forward 2000
$N1;train.py(30):_<module>;$N2;train.py(14):_Model.step;$N3;torch/nn/modules/linear.py(116):_Linear.forward;$LEAF 5000" \
	"default names: path(LINE):_qualname, the line being run, paths short" -- "$SF" -q "$T/train.cap"

expect_stdout 0 "$N1;train.py(1):_<module>;$N2;train.py(10):_step 1000
$N1;train.py(1):_<module>;$N2;train.py(10):_step;$N3;torch/nn/modules/linear.py(113):_forward 2000
$N1;train.py(1):_<module>;$N2;train.py(10):_step;$N3;torch/nn/modules/linear.py(113):_forward;$LEAF 5000" \
	"--python-names torch: export_stacks' path(DEF LINE):_name" -- "$SF" -q --python-names torch "$T/train.cap"

expect_stdout 0 "train.py(30):_<module>;train.py(14):_Model.step 1000
train.py(30):_<module>;train.py(14):_Model.step;torch/nn/modules/linear.py(116):_Linear.forward 2000
train.py(30):_<module>;train.py(14):_Model.step;torch/nn/modules/linear.py(116):_Linear.forward;$LEAF 5000" \
	"--python-only: no native frame above or between Python frames, those below kept" \
	-- "$SF" -q --python-only "$T/train.cap"

expect_stdout 0 "$N1;/home/u/proj/train.py(30):_<module>;$N2;/home/u/proj/train.py(14):_Model.step 1000
$N1;/home/u/proj/train.py(30):_<module>;$N2;/home/u/proj/train.py(14):_Model.step;$N3;/usr/lib/python3/dist-packages/torch/nn/modules/linear.py(116):_Linear.forward 2000
$N1;/home/u/proj/train.py(30):_<module>;$N2;/home/u/proj/train.py(14):_Model.step;$N3;/usr/lib/python3/dist-packages/torch/nn/modules/linear.py(116):_Linear.forward;$LEAF 5000" \
	"--python-paths full: whole file names" -- "$SF" -q --python-paths=full "$T/train.cap"

expect_stdout 0 "train.py(30):_<module>;train.py(14):_Model.step 1000
train.py(30):_<module>;train.py(14):_Model.step;python3/dist-packages/torch/nn/modules/linear.py(116):_Linear.forward 2000
train.py(30):_<module>;train.py(14):_Model.step;python3/dist-packages/torch/nn/modules/linear.py(116):_Linear.forward;$LEAF 5000" \
	"--python-prefix: stripped first, and alone where it matches" \
	-- "$SF" -q --python-only --python-prefix /usr/lib/ --python-prefix=/nowhere "$T/train.cap"

expect_stdout_contains 0 "python:      CPython 3.11.2: frames on; 3 distinct Python frames" \
	"stackcap info: the python line" -- "$SC" info "$T/train.cap"
then_stdout_lacks "fault guard" "stackcap info: no faults, none said"

expect_stdout_contains 0 "torch/nn/modules/linear.py(116):_Linear.forward" \
	"--table: a row per Python frame, named as in folded text" -- "$SF" -q --table "$T/train.cap"
then_stdout_contains "train.py(14):_Model.step" "--table: the caller's row"

expect_stdout 0 "train.py(30):_<module>;train.py(14):_Model.step 100
train.py(30):_<module>;train.py(14):_Model.step;torch/nn/modules/linear.py(116):_Linear.forward;$LEAF 4096" \
	"--metric alloc_bytes: allocation stacks hold the Python frames" \
	-- "$SF" -q --metric alloc_bytes --python-only "$T/train.cap"

expect_stdout 0 "Unknown;train.py(1):_<module>;train.py(10):_step;torch/nn/modules/linear.py(113):_forward;$LEAF 4096
Unknown;train.py(1):_<module>;train.py(10):_step 100" \
	"memtimeline --peak-stacks: allocation stacks through the same names" \
	-- "$MT" -q --device cpu --python-only --python-names torch --peak-stacks "$T/train.cap"

# Paths as torch shortens them, one frame per rule.
cat > "$T/paths.json" << 'EOF'
{"hz": 1000, "chunks": [
 ["meta", [["python", "CPython 3.11.2: frames on"], ["cwd", "/work/proj"]]],
 ["pyframes", [[1, "/venv/lib/python3.11/site-packages/numpy/core/a.py", "f", "f", 1, 2],
               [2, "/usr/lib/python3/dist-packages/b/c.py", "g", "g", 3, 4],
               [3, "/usr/lib/python3.11/threading.py", "h", "h", 5, 6],
               [4, "/work/proj/sub/main.py", "k", "k", 7, 8],
               [5, "/work/project2/other.py", "m", "m", 9, 10]]],
 ["stacks", [1, [[0, "py:1"], [0, "py:2"], [0, "py:3"], [0, "py:4"], [0, "py:5"]]]],
 ["samples", [[1, 1, 1], [1, 2, 1], [1, 3, 1], [1, 4, 1], [1, 5, 1]]],
 ["end", []]
]}
EOF
capfile write "$T/paths.json" "$T/paths.cap" || bail_out "capfile.py write failed"
expect_stdout 0 "/work/project2/other.py(10):_m 1000
b/c.py(4):_g 1000
numpy/core/a.py(2):_f 1000
sub/main.py(8):_k 1000
threading.py(6):_h 1000" \
	"paths: site-packages, dist-packages, lib/python3.11, the working directory (not a sibling)" \
	-- "$SF" "$T/paths.cap"

# Names that would break the folded text, the SVG or the HTML page; the
# largest line; empty names. The SVG is flamegraph's from stackfold's text.
cat > "$T/odd.json" << 'EOF'
{"hz": 1000, "flags": 1, "chunks": [
 ["pyframes", [[1, "/a dir/x;y.py", "C.<lambda>\tb", "n\nl", 18446744073709551615, 18446744073709551615],
               [2, "<frozen a&b>", "<genexpr>", "<genexpr>", 3, 0],
               [3, "", "", "", 0, 0],
               [4, "t.py", "", "only_name", 1, 2]]],
 ["stacks", [1, [[0, "py:1"], [1, "py:2"], [2, "py:3"], [0, "py:4"]]]],
 ["samples", [[1, 3, 2], [1, 4, 1]]],
 ["allocs", [[1, 1, 4096, 64, 3]]],
 ["end", []]
]}
EOF
capfile write "$T/odd.json" "$T/odd.cap" || bail_out "capfile.py write failed"
expect_stdout 0 "/a_dir/x_y.py(18446744073709551615):_C.<lambda>_b;<frozen_a&b>(0):_<genexpr>;<unknown>(0):_<unknown> 2000
t.py(2):_only_name 1000" \
	"odd names: ' ', ';', tab, newline as '_'; line 2^64-1; empty names" -- "$SF" "$T/odd.cap"
expect_stdout 0 "/a_dir/x_y.py(18446744073709551615):_n_l;<frozen_a&b>(3):_<genexpr>;<unknown>(0):_<unknown> 2000
t.py(1):_only_name 1000" \
	"odd names, torch's form" -- "$SF" --python-names torch "$T/odd.cap"
expect_stdout_contains 0 "&lt;frozen_a&amp;b&gt;(0):_&lt;genexpr&gt;" \
	"odd names in the SVG: escaped" -- sh -c '"$1" "$2" | "$3"' sh "$SF" "$T/odd.cap" "$FG"
then_stdout_lacks "<frozen" "odd names in the SVG: no raw markup"
expect_stdout_contains 0 "&lt;frozen_a&amp;b&gt;(0):_&lt;genexpr&gt;" \
	"odd names in memtimeline's page: escaped" -- "$MT" --device cpu --html "$T/odd.cap"
then_stdout_lacks "<frozen" "odd names in memtimeline's page: no raw markup"

# An id no chunk defined, and a damaged PYFRAMES chunk: the frames say they
# are lost, and the loss line says so.
cat > "$T/lost.json" << 'EOF'
{"hz": 1000, "chunks": [
 ["pyframes", [[1, "/p/a.py", "a", "a", 1, 2]]],
 ["pyframes", [[2, "/p/b.py", "b", "b", 3, 4]]],
 ["stacks", [1, [[0, "py:1"], [1, "py:2"], [2, "py:7"]]]],
 ["samples", [[1, 3, 1], [1, 2, 1]]],
 ["end", []]
]}
EOF
capfile write "$T/lost.json" "$T/lost.cap" || bail_out "capfile.py write failed"
expect_stdout 0 "/p/a.py(2):_a;/p/b.py(4):_b 1000
/p/a.py(2):_a;/p/b.py(4):_b;[lost python frame] 1000" \
	"an undefined id: [lost python frame]" -- "$SF" "$T/lost.cap"
then_stderr_contains "1 stack frame names a Python frame no chunk defined" \
	"an undefined id: said in the loss line"
expect_exit 1 "an undefined id: an error under --strict" -- "$SF" --strict "$T/lost.cap"
capfile flip "$T/lost.cap" "$T/lost2.cap" 1 > /dev/null || bail_out "capfile.py flip failed"
expect_stdout 0 "/p/a.py(2):_a;[lost python frame] 1000
/p/a.py(2):_a;[lost python frame];[lost python frame] 1000" \
	"a damaged PYFRAMES chunk: its frames lost" -- "$SF" "$T/lost2.cap"
then_stderr_contains "1 damaged chunk skipped" "a damaged PYFRAMES chunk: said"
then_stderr_contains "2 stack frames name a Python frame no chunk defined" \
	"a damaged PYFRAMES chunk: the frames it held counted"
expect_stdout_contains 0 "python:      not recorded; 1 distinct Python frames" \
	"stackcap info: frames without META python" -- "$SC" info "$T/lost2.cap"

# A bad record in a chunk whose CRC holds: the frames before it kept.
cat > "$T/bad.json" << 'EOF'
{"hz": 1000, "chunks": [
 ["meta", [["python", "CPython 3.11.2: frames on"], ["python_faults", "4"]]],
 ["pyframes", [[1, "/p/a.py", "a", "a", 1, 2], [0, "/p/zero.py", "z", "z", 1, 1],
               [3, "/p/c.py", "c", "c", 5, 6]]],
 ["stacks", [1, [[0, "py:1"], [1, "py:3"]]]],
 ["samples", [[1, 2, 1]]],
 ["end", []]
]}
EOF
capfile write "$T/bad.json" "$T/bad.cap" || bail_out "capfile.py write failed"
expect_stdout 0 "/p/a.py(2):_a;[lost python frame] 1000" \
	"a bad PYFRAMES record (id 0): the frames before it kept" -- "$SF" "$T/bad.cap"
then_stderr_contains "1 chunk did not decode" "a bad PYFRAMES record: reported"
expect_stdout_contains 0 "python:      CPython 3.11.2: frames on; 1 distinct Python frames; 4 walks stopped by the fault guard" \
	"stackcap info: faults when there were some" -- "$SC" info "$T/bad.cap"

expect_usage "--python-names is line or torch, not 'qualname'" "usage: --python-names qualname" \
	-- "$SF" --python-names qualname "$T/train.cap"
expect_usage "--python-paths is short or full" "usage: --python-paths long" \
	-- "$SF" --python-paths long "$T/train.cap"
expect_usage "--python-prefix needs a directory" "usage: --python-prefix /" \
	-- "$SF" --python-prefix / "$T/train.cap"
expect_usage "--python-names is line or torch" "usage: memtimeline --python-names x" \
	-- "$MT" --python-names x "$T/train.cap"

# flamegraph folds captures itself: the same --python-* options, the same
# SVG as stackfold's folding piped into it.
begin
"$SF" -q --python-names torch --python-only "$T/train.cap" | "$FG" > "$T/piped.svg" 2> "$T/err"
"$FG" -q --python-names torch --python-only "$T/train.cap" > "$T/direct.svg" 2>> "$T/err"
cmp -s "$T/piped.svg" "$T/direct.svg" || problem "flamegraph CAPTURE differs from stackfold | flamegraph"
grep -q 'linear.py(113):_forward' "$T/direct.svg" || problem "no torch-form frame in the SVG"
finish "flamegraph CAPTURE --python-names torch --python-only: the same SVG as through stackfold"

done_testing
