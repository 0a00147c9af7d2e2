#!/bin/sh
# End-to-end tests of stackcap's capture windows (--delay, --duration,
# --toggle-signal, --capture-range, --schedule, and their STACKCAP_*
# environment forms), in the language of tests/e2e/lib.sh, on programs of
# known phases (progs/, compiled here plainly: cc -O1 -g, never sanitized).
# Phases are timed on the wall clock and windows are wide of their edges
# (100 ms or more), and shares are asserted loosely (the phase recorded
# > 90 %, the others absent), so a loaded 2-core machine passes as well.
#
# Usage: sh tests/e2e/windows/run.sh BUILD_DIR
set -u
LC_ALL=C
export LC_ALL
if [ $# -ne 1 ]; then
	echo "usage: sh tests/e2e/windows/run.sh BUILD_DIR" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/../../.." && pwd) || exit 2
cd "$root" || exit 2
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "run.sh: no build directory '$1'" >&2; exit 2; }
SC=$BUILD/stackcap
SF=$BUILD/stackfold
MT=$BUILD/memtimeline
FG=$BUILD/flamegraph
HERE=$root/tests/e2e/windows
. "$root/tests/e2e/lib.sh"
for b in "$SC" "$SF" "$MT" "$FG" "$BUILD/libstackcap.so"; do
	[ -e "$b" ] || bail_out "$b is missing (run make first)"
done
command -v python3 >/dev/null 2>&1 || bail_out "python3 is needed"

P=$T/progs
mkdir -p "$P"
cc -O1 -g -fno-omit-frame-pointer "$HERE/progs/phases.c" -o "$P/phases" 2> "$T/cc.err" ||
	bail_out "cannot compile phases.c: $(head -c 300 "$T/cc.err")"

# share FILE NAME: the percentage of FILE's folded total in stacks with a
# frame NAME.
share() { python3 "$root/tests/e2e/capture/folded.py" share "$1" "$2" | sed -n "s/^$2 //p"; }
# info_line FILE KEY: the value of `stackcap info FILE`'s KEY line.
info_line() { "$SC" info "$1" 2> /dev/null | sed -n "s/^$2: *//p"; }
# only_phase FILE WANT OTHER...: WANT above 90 %, the others absent.
only_phase() {
	"$SF" "$1" > "$T/folded" 2> "$T/fold.err" || problem "stackfold $1 failed: $(head -c 200 "$T/fold.err")"
	op_file=$1 op_want=$2; shift 2
	got=$(share "$T/folded" "$op_want")
	awk -v x="$got" 'BEGIN { exit !(x + 0 > 90) }' || problem "$op_want has $got % of the samples, want > 90"
	for other; do
		got=$(share "$T/folded" "$other")
		[ "$got" = "0.0" ] || problem "$other has $got % of the samples, want none"
	done
	shares="$op_want $(share "$T/folded" "$op_want") %"
}
# counts FILE: "ALLOCS FREES" from `stackcap info FILE`.
counts() { info_line "$1" allocations | sed -n 's/^\([0-9]*\) allocations, \([0-9]*\) frees.*/\1 \2/p'; }

# ------------------------------------------------------------ --delay --
# phases 200 600: phase_a 0-0.2 s, phase_b 0.2-0.8 s (wall time from
# main; the shim's clock starts a little earlier, so its windows come a
# little early: --delay 0.4 opens before 0.4 s and well after 0.2 s unless
# main came 0.2 s late). phase_b frees phase_a's 100 blocks at 0.5 s and
# makes 50 of its own, freed at its end.
if begin "--delay 0.4 past phase_a: only phase_b"; then
	run "$SC" -o "$T/d.sc" --delay 0.4 --alloc "$P/phases" 200 600
	want_rc 0
	only_phase "$T/d.sc" phase_b phase_a
	case $(info_line "$T/d.sc" windows) in
	"asked: delay 0.4 s; 1 recorded, "*) ;;
	*) problem "info windows: $(info_line "$T/d.sc" windows)" ;;
	esac
	finish "--delay 0.4 past phase_a: only phase_b ($shares)"
fi
if begin "--delay: allocations inside the window only; frees of blocks made before it are not recorded"; then
	set -- $(counts "$T/d.sc")
	# phase_b's 50 (and at most a few of stdio's); none of phase_a's 100 frees.
	[ "${1:-0}" -ge 50 ] && [ "${1:-0}" -le 55 ] || problem "allocations: ${1:-?}, want 50-55"
	[ "${2:-0}" -eq 50 ] || problem "frees: ${2:-?}, want 50 (not phase_a's 100)"
	"$MT" --device cpu -o "$T/d.json" "$T/d.sc" 2> "$T/mt.err" || problem "memtimeline failed: $(head -c 200 "$T/mt.err")"
	grep -qiE 'unmatched|incomplete|lost' "$T/mt.err" && problem "memtimeline reports a loss: $(head -c 200 "$T/mt.err")"
	finish "--delay: allocations inside the window only; frees of blocks made before it are not recorded ($*)"
fi

# ---------------------------------------------------------- --duration --
# phases 300 200: --duration 0.15 ends inside phase_a however late main
# came (up to 0.15 s).
if begin "--duration 0.15: only phase_a, and only its CPU time"; then
	run "$SC" -o "$T/u.sc" --duration 0.15 --alloc "$P/phases" 300 200
	want_rc 0
	only_phase "$T/u.sc" phase_a phase_b
	# 0.5 s of CPU ran; the window held at most 0.15 s of it: no
	# "[unsampled]" charge at the end brings the rest in.
	cpu=$(info_line "$T/u.sc" cpu | sed 's/ s .*//')
	awk -v x="$cpu" 'BEGIN { exit !(x + 0 > 0.01 && x + 0 <= 0.18) }' || problem "cpu $cpu s, want at most the window's 0.15 s"
	finish "--duration 0.15: only phase_a, and only its CPU time ($shares, cpu $cpu s)"
fi
if begin "--duration: blocks made inside the window are followed to their frees after it"; then
	set -- $(counts "$T/u.sc")
	[ "${1:-0}" -ge 100 ] && [ "${1:-0}" -le 105 ] || problem "allocations: ${1:-?}, want 100-105"
	[ "${2:-0}" -ge 100 ] && [ "${2:-0}" -le 105 ] || problem "frees: ${2:-?}, want phase_a's 100"
	finish "--duration: blocks made inside the window are followed to their frees after it ($*)"
fi

# Threads alive at the end (capture/progs/livethreads.c: 30 workers of
# 10 ms each, 2 spinners): with the window closed, the writer's last
# cycle charges none of their CPU time as [unsampled], nor does a thread's end.
if begin "a closed window at the end: no [unsampled] charge for live or exiting threads"; then
	cc -O1 -g -fno-omit-frame-pointer -pthread -I"$root/tests/e2e/capture/progs" \
		"$root/tests/e2e/capture/progs/livethreads.c" -o "$P/livethreads" 2> "$T/cc.err" ||
		problem "cannot compile livethreads.c: $(head -c 200 "$T/cc.err")"
	run "$SC" -o "$T/l.sc" --duration 0.01 "$P/livethreads" 30 10 2
	want_rc 0
	"$SF" --metric samples "$T/l.sc" > "$T/l.folded" 2> /dev/null
	grep -q '\[unsampled\]' "$T/l.folded" && problem "[unsampled] charged: $(grep -c unsampled "$T/l.folded") stacks"
	cpu=$(info_line "$T/l.sc" cpu | sed 's/ s .*//')
	awk -v x="$cpu" 'BEGIN { exit !(x + 0 <= 0.03) }' || problem "cpu $cpu s, want at most the 10 ms window's"
	finish "a closed window at the end: no [unsampled] charge for live or exiting threads (cpu ${cpu:-?} s)"
fi

# A forked child keeps its parent's window (capture/progs/forker.c: 100 ms
# of CPU before forking 2 children of 150 ms each): opened by --delay 0.05
# before the fork, each child's file is recorded from its start, with
# nothing of its parent's.
if begin "forked children inside an open window: recorded from their start"; then
	cc -O1 -g -fno-omit-frame-pointer -pthread -I"$root/tests/e2e/capture/progs" \
		"$root/tests/e2e/capture/progs/forker.c" -o "$P/forker" 2> "$T/cc.err" ||
		problem "cannot compile forker.c: $(head -c 200 "$T/cc.err")"
	run "$SC" -o "$T/f.sc" --delay 0.05 "$P/forker" 2 150
	want_rc 0
	kids=0
	for f in "$T"/f.sc.*; do
		[ -e "$f" ] || continue
		kids=$((kids + 1))
		# Children of a loaded machine often get "[signal blocked]" time
		# (timer overruns), windows or not: their other samples are what
		# counts here.
		"$SF" "$f" 2> /dev/null | grep -v '^\[signal blocked\] ' > "$T/child.folded"
		got=$(share "$T/child.folded" child_work)
		awk -v x="$got" 'BEGIN { exit !(x + 0 > 90) }' || problem "child_work has $got % of $f's samples, want > 90"
		for other in pre_fork_work parent_work; do
			[ "$(share "$T/child.folded" $other)" = "0.0" ] || problem "$other in $f"
		done
		# Opened as the child starts: within its first few ms (a loaded
		# machine took 2 ms to run the child's fork handler once).
		case $(info_line "$f" windows) in
		"asked: delay 0.05 s; 1 recorded, "*": 0.00"[0-9]"-"*) ;;
		*) problem "child $f: info windows: $(info_line "$f" windows)" ;;
		esac
	done
	[ $kids -eq 2 ] || problem "$kids child captures, want 2"
	finish "forked children inside an open window: recorded from their start ($kids children)"
fi

# ------------------------------------------------------ --toggle-signal --
# The program waits at each phase's end for the test: the first SIGUSR1
# goes to stackcap (which forwards it), the second to the program itself.
wait_for() { for _ in $(seq 400); do [ -e "$1" ] && return 0; sleep 0.025; done; return 1; }
if begin "--toggle-signal USR1 from outside: only phase_b; the program never sees it"; then
	mkdir -p "$T/sync"
	"$SC" -o "$T/t.sc" --toggle-signal USR1 "$P/phases" 100 100 "$T/sync" > "$T/out" 2> "$T/err" &
	pid=$!
	if wait_for "$T/sync/a"; then
		kill -USR1 "$pid"
		touch "$T/sync/go1"
		# Sent to the program itself, handled before it sees go2.
		wait_for "$T/sync/b" && kill -USR1 "$(cat "$T/sync/a")"
	fi
	touch "$T/sync/go1" "$T/sync/go2"
	wait "$pid"
	rc=$?
	want_rc 0
	want_out "usr1 seen 0, handler kept"
	only_phase "$T/t.sc" phase_b phase_a phase_c
	case $(info_line "$T/t.sc" windows) in
	"asked: toggle-signal SIGUSR1 (starts paused); 1 recorded"*) ;;
	*) problem "info windows: $(info_line "$T/t.sc" windows)" ;;
	esac
	finish "--toggle-signal USR1 from outside: only phase_b; the program never sees it ($shares)"
fi

# The launcher blocks the toggle signal for the program, numbered as glibc
# numbers it (SIGRTMIN is 34 there, whatever libc the launcher has): a
# static program, which no shim reaches, shows the mask it was given.
if cc -static -O1 "$HERE/progs/sigblk.c" -o "$P/sigblk" 2> "$T/cc.err"; then
	for spec in USR1:0000000000000200 RTMIN:0000000200000000 SIGRTMIN+2:0000000800000000 \
		    RTMAX-1:4000000000000000; do
		if begin "--toggle-signal ${spec%%:*}: the program starts with signal ${spec#*:} blocked"; then
			run "$SC" -o "$T/b.sc" --toggle-signal "${spec%%:*}" "$P/sigblk"
			want_rc 0
			# Set by the launcher on top of whatever mask the test started with.
			blk=$(sed -n 's/^SigBlk:[[:space:]]*//p' "$T/out")
			[ $(( 0x${blk:-0} & 0x${spec#*:} )) -ne 0 ] || problem "SigBlk: ${blk:-none}"
			finish "--toggle-signal ${spec%%:*}: the program starts with signal ${spec#*:} blocked"
		fi
	done
else
	skip "--toggle-signal: the program starts with the signal blocked" "no static libc: $(head -c 200 "$T/cc.err")"
fi

# ------------------------------------------------ a window that never opens --
if begin "a window that never opens: a note, and an empty capture every reader takes"; then
	run "$SC" -o "$T/n.sc" --delay 5 --alloc "$P/phases" 50 50
	want_rc 0
	want_err "the capture window (delay 5 s) never opened: the program ended before the delay"
	"$SC" info "$T/n.sc" > "$T/n.info" 2>&1 || problem "stackcap info failed"
	grep -q '^ended: *clean' "$T/n.info" || problem "not clean: $(grep ended "$T/n.info")"
	grep -q '^windows: *asked: delay 5 s; none opened: nothing was recorded' "$T/n.info" ||
		problem "info: $(grep windows "$T/n.info")"
	"$SF" "$T/n.sc" > "$T/n.folded" 2> "$T/n.err" || problem "stackfold exit $?"
	[ -s "$T/n.folded" ] && problem "stackfold printed stacks"
	grep -q 'never opened: nothing was recorded' "$T/n.err" || problem "stackfold does not say why: $(head -c 200 "$T/n.err")"
	"$MT" --device cpu -o "$T/n.json" "$T/n.sc" 2> /dev/null || problem "memtimeline exit $?"
	"$FG" "$T/n.sc" > "$T/n.svg" 2> "$T/n.err"
	fg=$?
	[ $fg -eq 1 ] && grep -q 'No stack counts found' "$T/n.err" || problem "flamegraph exit $fg: $(head -c 200 "$T/n.err")"
	finish "a window that never opens: a note, and an empty capture every reader takes"
fi

# ------------------------------------------------------ environment forms --
if begin "STACKCAP_DELAY for launchers: only phase_b"; then
	run env LD_PRELOAD="$BUILD/libstackcap.so" STACKCAP_OUTPUT="$T/e.%p.sc" STACKCAP_DELAY=0.4 \
		"$P/phases" 200 600
	want_rc 0
	set -- "$T"/e.*.sc
	[ -e "$1" ] || problem "no capture written"
	[ -e "$1" ] && only_phase "$1" phase_b phase_a
	finish "STACKCAP_DELAY for launchers: only phase_b (${shares:-})"
fi
if begin "STACKCAP_DURATION=junk: the program runs uncaptured, and stderr says why"; then
	run env LD_PRELOAD="$BUILD/libstackcap.so" STACKCAP_OUTPUT="$T/j.sc" STACKCAP_DURATION=junk \
		"$P/phases" 10 10
	want_rc 0
	want_err "STACKCAP_DURATION='junk': not a number of seconds above 0; not capturing"
	[ -e "$T/j.sc" ] && problem "a capture was written"
	finish "STACKCAP_DURATION=junk: the program runs uncaptured, and stderr says why"
fi

# ------------------------------------------------------------ usage errors --
expect_usage "--delay needs seconds" "--delay -1 is a usage error" -- "$SC" --delay -1 "$P/phases" 1 1
expect_usage "--delay needs seconds" "--delay 1e3 is a usage error (plain decimals)" -- "$SC" --delay 1e3 "$P/phases" 1 1
expect_usage "--duration needs seconds above 0" "--duration 0 is a usage error" -- "$SC" --duration 0 "$P/phases" 1 1
expect_usage "--toggle-signal needs a signal" "--toggle-signal KILL is a usage error" -- "$SC" --toggle-signal KILL "$P/phases" 1 1
expect_usage "--toggle-signal needs a signal" "--toggle-signal NOPE is a usage error" -- "$SC" --toggle-signal NOPE "$P/phases" 1 1
expect_usage "--capture-range needs nvtx:NAME or cuda-profiler-api" "--capture-range nvtx: (no name) is a usage error" -- "$SC" --capture-range nvtx: "$P/phases" 1 1
expect_usage "--schedule needs" "--schedule without active is a usage error" -- "$SC" --schedule wait=1,warmup=1 "$P/phases" 1 1
expect_usage "--schedule needs" "--schedule with an unknown key is a usage error" -- "$SC" --schedule active=1,wiat=2 "$P/phases" 1 1
expect_usage "only one of --toggle-signal, --capture-range and --schedule" "two window triggers are a usage error" -- "$SC" --toggle-signal USR1 --schedule active=1 "$P/phases" 1 1
expect_usage "--step-marker goes with --schedule" "--step-marker without --schedule is a usage error" -- "$SC" --step-marker 'x*' "$P/phases" 1 1

# ------------------------------------------------- cudaProfilerStart/Stop --
cc -shared -fPIC "$HERE/progs/fakecudart.c" -o "$T/libcudart.so" 2> "$T/cc.err" &&
	cc -O1 -g -fno-omit-frame-pointer "$HERE/progs/profiled.c" -o "$P/profiled" -L"$T" -lcudart \
		-Wl,-rpath,"$T" 2>> "$T/cc.err" || bail_out "cannot build profiled.c: $(head -c 300 "$T/cc.err")"
if begin "--capture-range cuda-profiler-api: only what runs between cudaProfilerStart and Stop"; then
	run "$SC" -o "$T/p.sc" --capture-range cuda-profiler-api "$P/profiled"
	want_rc 0
	want_out "profiler calls ok"
	want_err "fakecudart: 1 start, 1 stop" # passed on to the runtime
	only_phase "$T/p.sc" phase_b phase_a phase_c
	finish "--capture-range cuda-profiler-api: only what runs between cudaProfilerStart and Stop ($shares)"
fi
expect_stderr_contains 0 "never called cudaProfilerStart" \
	"--capture-range cuda-profiler-api on a program without CUDA: a clear note" -- \
	"$SC" -o "$T/q.sc" --capture-range cuda-profiler-api "$P/phases" 10 10

# ------------------------------------------------------------------ NVTX --
"$SC" -o "$T/probe.sc" "$P/phases" 1 1 > /dev/null 2>&1
if [ -e /usr/local/cuda/include/nvtx3/nvToolsExt.h ] &&
	! "$SC" info "$T/probe.sc" 2>/dev/null | grep -q 'built without the CUDA toolkit' &&
	cc -O1 -g -fno-omit-frame-pointer -I/usr/local/cuda/include "$HERE/progs/steps.c" -o "$P/steps" -ldl 2> "$T/cc.err"; then
	nvtx=yes
else
	nvtx=no
fi
why="no NVTX3 headers (/usr/local/cuda/include/nvtx3) or a shim built without them"
if [ $nvtx = no ]; then
	skip "--capture-range nvtx:forw*: only the forward ranges" "$why"
	skip "--schedule wait=1,warmup=1,active=2,repeat=1: steps 2 and 3 only, tagged [step N]" "$why"
elif begin "--capture-range nvtx:forw*: only the forward ranges"; then
	run "$SC" -o "$T/r.sc" --capture-range 'nvtx:forw*' "$P/steps" 4
	want_rc 0
	only_phase "$T/r.sc" fwd_work bwd_work between
	case $(info_line "$T/r.sc" windows) in
	"asked: capture-range nvtx:forw*; 4 recorded"*) ;;
	*) problem "info windows: $(info_line "$T/r.sc" windows)" ;;
	esac
	finish "--capture-range nvtx:forw*: only the forward ranges ($shares)"
fi
if [ $nvtx = yes ] && begin "--schedule wait=1,warmup=1,active=2,repeat=1: steps 2 and 3 only, tagged [step N]"; then
	run "$SC" -o "$T/s.sc" --schedule wait=1,warmup=1,active=2,repeat=1 "$P/steps" 8
	want_rc 0
	"$SF" --nvtx "$T/s.sc" > "$T/s.folded" 2> "$T/fold.err" || problem "stackfold --nvtx failed"
	roots=$(cut -d';' -f1 "$T/s.folded" | sort -u | tr '\n' ' ')
	[ "$roots" = "[step 2] [step 3] " ] || problem "roots under --nvtx: '$roots', want [step 2] and [step 3]"
	grep -q '^\[step 2\];ProfilerStep#2;' "$T/s.folded" || problem "step 2 is not ProfilerStep#2"
	case $(info_line "$T/s.sc" windows) in
	*"2 recorded"*"(step 2)"*"(step 3)") ;;
	*) problem "info windows: $(info_line "$T/s.sc" windows)" ;;
	esac
	finish "--schedule wait=1,warmup=1,active=2,repeat=1: steps 2 and 3 only, tagged [step N] ($roots)"
fi

# ----------------------------------------------------------- old captures --
if begin "a capture without windows has no windows line (old captures read as before)"; then
	run "$SC" -o "$T/w.sc" "$P/phases" 10 10
	"$SC" info "$T/w.sc" > "$T/w.info" 2>&1 || problem "stackcap info failed"
	grep -q '^windows:' "$T/w.info" && problem "a windows line: $(grep windows "$T/w.info")"
	"$SF" "$T/w.sc" > /dev/null 2> "$T/w.err" || problem "stackfold failed"
	finish "a capture without windows has no windows line (old captures read as before)"
fi
done_testing
