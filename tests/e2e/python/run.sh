#!/bin/sh
# shellcheck disable=SC2317 # helpers are called through "$@"
# End-to-end tests of Python frames in captures (the shim's side: what it
# writes), in the language of tests/e2e/lib.sh. The captures are read with
# tests/e2e/capture/capfile.py (which parses PYFRAMES, STACKS and SAMPLES
# itself and fails on an id used before its definition) and questioned with
# pycheck.py; stackfold says which native frames are left.
#
# Usage: sh tests/e2e/python/run.sh BUILD_DIR
#
# Interpreters: Debian's /usr/bin/python3 (3.11, required), then each of
# pyenv's 3.11.7, 3.12.1 and 3.13.0 that is installed (skipped otherwise).
# For each:
#   a. shares: f1/f2/f3 spin 0.2/0.4/0.6 s of thread CPU: 1:2:3 (+-5
#      points; the samples count CPU time, so load does not matter); the
#      hot line of spin and each caller's call line
#   b. the merge: no _PyEval_EvalFrameDefault frame left (each replaced
#      by its Python frames); --no-python leaves them and writes no
#      Python frame
#   c. shapes: recursion 70 deep, a generator under sum(), a sorted(key=)
#      callback (a native frame between main and the key), zlib.compress
#      (libz frames leafward of the Python caller, GIL released), a second
#      thread rooted in threading's bootstrap
#   d. exits while sampled: os._exit(3), sys.exit(4): clean captures
#   e. --alloc: the allocating Python function and line; --alloc-sample
#      with the writer on the interpreter's thread
#   f. faults: walks made to fault (STACKCAP_PY_TEST_FAULT) are caught and
#      counted with faulthandler enabled (the program's SIGSEGV handler set
#      after ours); a real crash still reaches faulthandler and kills
#   g. line tables: the shim's decoder against co_lines() on every code
#      object of a few standard modules
#   h. embedding: a C program that dlopens libpython after start (found by
#      the writer's next cycle; skipped without the shared library)
#   i. names of freed code objects: 150 functions made, run and freed in
#      turn (addresses reused): in sample order their numbers never go
#      back, and spin's caller is always one of them
#   j. stress at 20 kHz with sampled --alloc: recursion 500 deep raising,
#      generators, code churn, 40 short threads: exit 0, clean, Python
#      frames in most samples, at most 128 of them per stack
#   k. fork: the child's own capture (ids from 1 again) names its frames
# and: --help names --no-python; a CPython before 3.11 (pyenv 3.10.13)
# says it is not supported and keeps native stacks;
# and once: torch (Debian's python3-torch, skipped when absent): a small
# Linear/GELU model's forward above libtorch frames.
set -u
LC_ALL=C
export LC_ALL

if [ $# -ne 1 ]; then
	echo "usage: sh tests/e2e/python/run.sh BUILD_DIR" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/../../.." && pwd) || exit 2
cd "$root" || exit 2
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "run.sh: no build directory '$1'" >&2; exit 2; }
SC=$BUILD/stackcap
SF=$BUILD/stackfold
HERE=$root/tests/e2e/python
PROGS=$HERE/progs
for b in "$SC" "$SF" "$BUILD/libstackcap.so"; do
	[ -e "$b" ] || { echo "Bail out! $b is missing (run make first)"; exit 2; }
done
command -v python3 >/dev/null 2>&1 || { echo "Bail out! python3 is needed"; exit 2; }

. "$root/tests/e2e/lib.sh"

capfile() { python3 "$root/tests/e2e/capture/capfile.py" "$@"; }
pycheck() { python3 "$HERE/pycheck.py" "$@"; }
between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x + 0 >= lo + 0 && x + 0 <= hi + 0) }'; }
# The line of a program's source marked "# MARK".
line_of() { grep -n "# $2\$" "$1" | cut -d: -f1; }

# cap OUT -- STACKCAP_ARGS...: stackcap -o OUT ARGS (status in $rc).
cap() {
	o=$1; shift; shift
	rm -f "$o" "$o".*
	run "$SC" -o "$o" "$@"
}
# fold_py CAP OUT [allocs]: capfile.py's folded stacks into OUT; a problem
# when it fails (an id used before its definition, a damaged file).
fold_py() {
	capfile folded "$1" ${3:+"$3"} > "$2" 2> "$T/capfile.err" ||
		problem "capfile.py folded: $(head -c 200 "$T/capfile.err")"
}
meta() { capfile meta "$1" | sed -n "s/^$2=//p"; }
want_clean() {
	"$SC" info "$1" > "$T/info" 2>&1
	grep -q '^ended: *clean' "$T/info" || problem "$2: not clean: $(grep '^ended' "$T/info")"
}

pythons="/usr/bin/python3"
for v in 3.11.7 3.12.1 3.13.0; do
	pythons="$pythons /root/.pyenv/versions/$v/bin/python3"
done

# The C driver of the line-table check (pystack.c as the shim builds it).
cc -std=c11 -D_GNU_SOURCE -I"$root" -O1 "$HERE/pyline.c" "$root/capture/pystack.c" -o "$T/pyline" 2> "$T/cc.err" ||
	bail_out "cannot compile pyline.c: $(head -c 300 "$T/cc.err")"
cc -O1 -g "$PROGS/embed.c" -o "$T/embed" -ldl 2> "$T/cc.err" ||
	bail_out "cannot compile embed.c: $(head -c 300 "$T/cc.err")"
EMBED_CODE='import time
def embedded_spin():
    end = time.thread_time() + 0.5
    while time.thread_time() < end:
        pass
embedded_spin()'

expect_stdout_contains 0 "--no-python" "--help names --no-python" -- "$SC" --help

old=/root/.pyenv/versions/3.10.13/bin/python3
if [ ! -x "$old" ]; then
	skip "python 3.10: META says not supported, native stacks" "no pyenv 3.10.13"
elif begin "python 3.10: META says not supported, native stacks"; then
	cap "$T/old.cap" -- "$old" "$PROGS/shares.py"
	want_rc 0
	[ "$(meta "$T/old.cap" python)" = "CPython 3.10.13: not supported, native stacks only" ] ||
		problem "META python '$(meta "$T/old.cap" python)'"
	fold_py "$T/old.cap" "$T/old.f"
	set -- $(pycheck total "$T/old.f")
	[ "${1:-0}" -gt 500 ] && [ "${2:-1}" -eq 0 ] || problem "samples, with Python frames: $*"
	finish "python 3.10: META says not supported, native stacks"
fi

for PY in $pythons; do
	case $PY in
	/usr/bin/*) V=$($PY -c 'import platform; print(platform.python_version())' 2>/dev/null) || bail_out "$PY does not run" ;;
	*)
		if [ ! -x "$PY" ]; then
			skip "$PY: all cases" "not installed (pyenv)"
			continue
		fi
		V=$($PY -c 'import platform; print(platform.python_version())') ;;
	esac
	L="python $V"

	# ------------------------------------------------------ a. shares --
	cf=$T/shares.cap
	if wanted "$L a. shares: exit 0, clean, META python frames on, cwd" \
		"$L a. shares f1/f2/f3 (want 16.7/33.3/50 +-5)" "$L a. lines: spin's hot line, the callers' call lines" \
		"$L b. merge: no _PyEval_EvalFrameDefault left"; then
		begin "$L a. shares: exit 0, clean, META python frames on, cwd"
		cap "$cf" -- "$PY" "$PROGS/shares.py"
		want_rc 0
		want_clean "$cf" capture
		[ "$(meta "$cf" python)" = "CPython $V: frames on" ] || problem "META python '$(meta "$cf" python)'"
		[ "$(meta "$cf" cwd)" = "$root" ] || problem "META cwd '$(meta "$cf" cwd)', expected $root"
		fold_py "$cf" "$T/shares.f"
		finish "$L a. shares: exit 0, clean, META python frames on, cwd"

		begin "$L a. shares f1/f2/f3 (want 16.7/33.3/50 +-5)"
		got=$(pycheck shares "$T/shares.f" f1 f2 f3)
		set -- $got
		between "$2" 11.7 21.7 && between "$4" 28.3 38.3 && between "$6" 45 55 ||
			problem "shares $got, expected 16.7/33.3/50 +-5"
		finish "$L a. shares f1/f2/f3 $got (want 16.7/33.3/50 +-5)"

		begin "$L a. lines: spin's hot line, the callers' call lines"
		src=$PROGS/shares.py
		[ "$(pycheck hotline "$T/shares.f" spin)" = "$(line_of "$src" SPIN_LINE)" ] ||
			problem "spin's hot line $(pycheck hotline "$T/shares.f" spin), expected $(line_of "$src" SPIN_LINE)"
		for f in f1 f2 f3; do
			want=$(line_of "$src" "$(echo "$f" | tr a-z A-Z)_LINE")
			[ "$(pycheck lines "$T/shares.f" $f)" = "$want" ] ||
				problem "$f's lines '$(pycheck lines "$T/shares.f" $f)', expected $want"
		done
		finish "$L a. lines: spin's hot line, the callers' call lines"

		# ------------------------------------------------- b. merge --
		begin "$L b. merge: no _PyEval_EvalFrameDefault left"
		"$SF" "$cf" > "$T/sf.txt" 2> "$T/sf.err" || problem "stackfold failed: $(head -c 200 "$T/sf.err")"
		left=$(grep -c "_PyEval_EvalFrameDefault" "$T/sf.txt")
		[ "$left" -eq 0 ] || problem "$left stacks still hold _PyEval_EvalFrameDefault"
		finish "$L b. merge: no _PyEval_EvalFrameDefault left"
	fi

	if begin "$L b. --no-python: META off, no Python frame, eval frames kept"; then
		cf=$T/nopy.cap
		cap "$cf" -- --no-python "$PY" "$PROGS/shares.py"
		want_rc 0
		[ "$(meta "$cf" python)" = "off (--no-python)" ] || problem "META python '$(meta "$cf" python)'"
		fold_py "$cf" "$T/nopy.f"
		set -- $(pycheck total "$T/nopy.f")
		[ "${2:-1}" -eq 0 ] || problem "${2:-?} samples hold Python frames"
		"$SF" "$cf" > "$T/sf.txt" 2>/dev/null
		grep -q '_PyEval_EvalFrameDefault' "$T/sf.txt" || problem "no _PyEval_EvalFrameDefault frame (the merge test cannot fail)"
		finish "$L b. --no-python: META off, no Python frame, eval frames kept"
	fi

	# ------------------------------------------------------ c. shapes --
	cf=$T/shapes.cap
	if wanted "$L c. shapes: exit 0, clean" "$L c. recursion 70 deep" "$L c. generator under sum()" \
		"$L c. sorted(key=) callback through C" "$L c. zlib.compress: libz frames below compress_loop" \
		"$L c. second thread: worker under Thread._bootstrap"; then
		begin "$L c. shapes: exit 0, clean"
		cap "$cf" -- "$PY" "$PROGS/shapes.py"
		want_rc 0
		want_clean "$cf" capture
		fold_py "$cf" "$T/shapes.f"
		finish "$L c. shapes: exit 0, clean"

		begin "$L c. recursion 70 deep"
		deep=$(pycheck depth "$T/shapes.f" recurse)
		[ "$deep" -eq 71 ] || problem "at most $deep recurse frames in a stack, expected 71"
		finish "$L c. recursion 70 deep"

		begin "$L c. generator under sum()"
		w=$(pycheck through "$T/shapes.f" main numbers)
		[ "$w" -ge 150 ] || problem "$w samples of numbers() under main through sum(), expected ~300"
		finish "$L c. generator under sum()"

		begin "$L c. sorted(key=) callback through C"
		w=$(pycheck through "$T/shapes.f" main by_cpu)
		[ "$w" -ge 150 ] || problem "$w samples of by_cpu under main through sorted, expected ~300"
		finish "$L c. sorted(key=) callback through C"

		begin "$L c. zlib.compress: libz frames below compress_loop"
		w=$(pycheck below "$T/shapes.f" compress_loop libz)
		[ "$w" -ge 150 ] || problem "$w samples in libz under compress_loop, expected ~300"
		finish "$L c. zlib.compress: libz frames below compress_loop"

		begin "$L c. second thread: worker under Thread._bootstrap"
		w=$(pycheck first "$T/shapes.f" Thread._bootstrap)
		[ "$w" -ge 150 ] || problem "$w samples rooted in Thread._bootstrap, expected ~300"
		pycheck through "$T/shapes.f" main worker | grep -qx 0 || problem "worker under main"
		finish "$L c. second thread: worker under Thread._bootstrap"
	fi

	# ------------------------------------------------------- d. exits --
	for how in os_exit:3 sys_exit:4; do
		if begin "$L d. ${how%:*}(${how#*:}) while sampled: clean, Python frames"; then
			cf=$T/exit.cap
			cap "$cf" -- "$PY" "$PROGS/shapes.py" "${how%:*}"
			want_rc "${how#*:}"
			want_clean "$cf" capture
			fold_py "$cf" "$T/exit.f"
			w=$(pycheck total "$T/exit.f" | cut -d' ' -f2)
			[ "${w:-0}" -ge 1000 ] || problem "${w:-0} samples with Python frames, expected ~1600"
			finish "$L d. ${how%:*}(${how#*:}) while sampled: clean, Python frames"
		fi
	done

	# ------------------------------------------------------ e. --alloc --
	if begin "$L e. --alloc: 200 MB allocated by make_lists at its line"; then
		cf=$T/alloc.cap
		cap "$cf" -- --alloc "$PY" "$PROGS/allocs.py"
		want_rc 0
		fold_py "$cf" "$T/alloc.f" allocs
		bytes=$(grep 'py:make_lists:' "$T/alloc.f" | awk '{ s += $NF } END { print s + 0 }')
		between "$bytes" 200000000 210000000 || problem "make_lists allocated $bytes bytes, expected 200 MB"
		[ "$(pycheck hotline "$T/alloc.f" make_lists)" = "$(line_of "$PROGS/allocs.py" ALLOC_LINE)" ] ||
			problem "make_lists' line $(pycheck hotline "$T/alloc.f" make_lists)"
		finish "$L e. --alloc: 200 MB allocated by make_lists at its line"
	fi

	# The interpreter is single-threaded: under --alloc-sample the shim's
	# writer runs on its thread (glibc's malloc stays lock-free), and the
	# sampled bytes still come to make_lists' 200 MB. python3.11 is not PIE
	# and takes malloc's address: dlsym finds its PLT entry, which leads to
	# the shim all the same.
	if begin "$L e. --alloc-sample 65536: one thread, make_lists' 200 MB estimated (+-15%)"; then
		cf=$T/alloc_sampled.cap
		cap "$cf" -- --alloc-sample 65536 "$PY" "$PROGS/allocs.py" threads
		want_rc 0
		want_out "threads 1"
		# stackfold scales each sampled block by 1 / its chance of being kept.
		"$SF" --metric alloc_bytes "$cf" > "$T/allocs.f" 2> "$T/allocs.err" ||
			problem "stackfold: $(head -c 200 "$T/allocs.err")"
		bytes=$(grep 'make_lists' "$T/allocs.f" | awk '{ s += $NF } END { print s + 0 }')
		between "$bytes" 170000000 230000000 || problem "make_lists estimated at $bytes bytes, expected 200 MB +-15%"
		finish "$L e. --alloc-sample 65536: one thread, make_lists' 200 MB estimated (+-15%)"
	fi

	# ------------------------------------------------------- f. faults --
	if begin "$L f. faulting walks caught and counted under faulthandler"; then
		cf=$T/fault.cap
		export STACKCAP_PY_TEST_FAULT=3
		cap "$cf" -- "$PY" "$PROGS/faults.py"
		unset STACKCAP_PY_TEST_FAULT
		want_rc 0
		want_clean "$cf" capture
		f=$(meta "$cf" python_faults)
		# A walk per signal delivered: ~100 in 0.4 s of CPU at a 250 Hz
		# kernel tick, fewer on a loaded machine (one signal then stands for
		# more periods); every third one faults.
		[ "${f:-0}" -ge 5 ] || problem "python_faults '${f:-}', expected a third of the walks (~30 when idle)"
		fold_py "$cf" "$T/fault.f"
		w=$(pycheck shares "$T/fault.f" spin | cut -d' ' -f2)
		[ "$w" = 100.0 ] || problem "no spin frames"
		finish "$L f. faulting walks caught and counted under faulthandler"
	fi
	if begin "$L f. a real crash reaches faulthandler, and kills"; then
		cap "$T/crash.cap" -- "$PY" "$PROGS/faults.py" crash
		want_rc 139
		want_err "Fatal Python error: Segmentation fault"
		finish "$L f. a real crash reaches faulthandler, and kills"
	fi

	# -------------------------------------------------- g. line tables --
	if begin "$L g. line tables: decoder == co_lines()"; then
		"$PY" "$HERE/lines.py" > "$T/lines.txt" 2> "$T/lines.err" || problem "lines.py: $(head -c 200 "$T/lines.err")"
		got=$("$T/pyline" < "$T/lines.txt" 2> "$T/pyline.err")
		set -- $got
		[ "${3:-1}" -eq 0 ] && [ "${2:-0}" -gt 10000 ] || problem "codes, units, mismatches: $got; $(head -c 300 "$T/pyline.err")"
		finish "$L g. line tables: decoder == co_lines() ($1 code objects, $2 code units)"
	fi

	# ---------------------------------------------------- h. embedding --
	lib=$("$PY" -c 'import os, sysconfig as s; print(os.path.join(s.get_config_var("LIBDIR"), s.get_config_var("INSTSONAME")))')
	if [ ! -f "$lib" ]; then
		skip "$L h. libpython dlopened after start: frames on" "no $lib"
	elif begin "$L h. libpython dlopened after start: frames on"; then
		home=$("$PY" -c 'import sys; print(sys.base_prefix)')
		export PYTHONHOME="$home"
		cap "$T/embed.cap" -- "$T/embed" "$lib" "$EMBED_CODE"
		unset PYTHONHOME
		want_rc 0
		[ "$(meta "$T/embed.cap" python)" = "CPython $V: frames on" ] || problem "META python '$(meta "$T/embed.cap" python)'"
		fold_py "$T/embed.cap" "$T/embed.f"
		w=$(grep 'py:embedded_spin:' "$T/embed.f" | awk '{ s += $NF } END { print s + 0 }')
		[ "$w" -ge 300 ] || problem "$w samples in embedded_spin, expected most of ~500"
		finish "$L h. libpython dlopened after start: frames on"
	fi

	# ------------------------------------------- i. freed code objects --
	if begin "$L i. freed code objects keep their names (addresses reused)"; then
		cap "$T/reuse.cap" -- "$PY" "$PROGS/reuse.py"
		want_rc 0
		capfile samples "$T/reuse.cap" > "$T/reuse.s" 2> "$T/capfile.err" || problem "capfile.py: $(head -c 200 "$T/capfile.err")"
		set -- $(grep -o 'py:f_[0-9]*' "$T/reuse.s" | sed 's/py:f_//' |
			awk 'BEGIN { m = -1 } { if ($1 < m) back++; if ($1 > m) { seen++; m = $1 } } END { print seen + 0, back + 0 }')
		[ "$1" -ge 100 ] || problem "$1 of 150 functions seen"
		[ "$2" -eq 0 ] || problem "$2 samples named an earlier function than one already seen"
		[ -z "$(meta "$T/reuse.cap" python_unknown)" ] || problem "python_unknown=$(meta "$T/reuse.cap" python_unknown)"
		bad=$(grep 'py:spin:' "$T/reuse.s" | grep -vc ';py:f_[0-9]*:[0-9]*@gen_[0-9]*\.py;py:spin:')
		[ "$bad" -eq 0 ] || problem "$bad samples with spin called by something else: $(grep 'py:spin:' "$T/reuse.s" | grep -v ';py:f_' | head -1 | tail -c 200)"
		finish "$L i. freed code objects keep their names (addresses reused)"
	fi

	# ------------------------------------------------------- j. stress --
	if begin "$L j. stress at 20 kHz: clean, Python frames, depth capped at 128"; then
		cap "$T/stress.cap" -- -F 20000 --alloc-sample 65536 "$PY" "$PROGS/stress.py"
		want_rc 0
		want_clean "$T/stress.cap" capture
		fold_py "$T/stress.cap" "$T/stress.f"
		set -- $(pycheck total "$T/stress.f")
		[ "$(( ${2:-0} * 10 ))" -ge "$(( ${1:-1} * 9 ))" ] || problem "$2 of $1 samples hold Python frames"
		deep=$(pycheck depth "$T/stress.f" down)
		between "$deep" 100 128 || problem "at most $deep frames of down() in a stack, expected up to 128"
		finish "$L j. stress at 20 kHz: clean, Python frames, depth capped at 128"
	fi

	# --------------------------------------------------------- k. fork --
	if begin "$L k. fork: parent and child captures each name their own frames"; then
		cap "$T/fork.cap" -- "$PY" "$PROGS/forks.py"
		want_rc 0
		kid=$(ls "$T"/fork.cap.* 2>/dev/null | head -n 1)
		[ -n "$kid" ] || problem "no child capture"
		for side in "parent:$T/fork.cap:parent_work" "child:${kid:-none}:child_work"; do
			file=${side#*:}
			file=${file%:*}
			fold_py "$file" "$T/fork.f"
			[ "$(meta "$file" python)" = "CPython $V: frames on" ] || problem "${side%%:*}: META python '$(meta "$file" python)'"
			[ "$(pycheck shares "$T/fork.f" "${side##*:}" | cut -d' ' -f2)" = 100.0 ] ||
				problem "${side%%:*}: $(pycheck shares "$T/fork.f" parent_work child_work)"
		done
		finish "$L k. fork: parent and child captures each name their own frames"
	fi
done

# ------------------------------------------------------------ torch --
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
	skip "torch: forward's Python frames above libtorch" "no torch for /usr/bin/python3 (apt-get install python3-torch)"
elif begin "torch: forward's Python frames above libtorch"; then
	cf=$T/torch.cap
	cap "$cf" -- /usr/bin/python3 "$PROGS/torch_model.py"
	want_rc 0
	fold_py "$cf" "$T/torch.f"
	w=$(pycheck below "$T/torch.f" Linear.forward libtorch_cpu)
	[ "$w" -ge 100 ] || problem "$w samples in libtorch_cpu under Linear.forward"
	w=$(pycheck through "$T/torch.f" train_step Module._call_impl)
	[ "$w" -ge 100 ] || problem "$w samples of Module._call_impl under train_step"
	grep -q 'py:Block.forward:' "$T/torch.f" || problem "no Block.forward frame"
	finish "torch: forward's Python frames above libtorch"
fi

done_testing
