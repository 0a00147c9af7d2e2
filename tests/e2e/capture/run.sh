#!/bin/sh
# shellcheck disable=SC2317 # helpers are called through "$@"
# End-to-end tests of stackcap (the capture shim and launcher) and of the
# commands that read captures (stackcap info, stackfold, memtimeline),
# in the language of tests/e2e/lib.sh: one "ok N - ..." or "not ok N - ..."
# line per case (failures add "# " lines), the plan "1..N" at the end. Runs
# every case (never stops at the first failure); exits 1 if any failed.
# With ONLY, a case is matched by the NAME of its `begin NAME` (its
# description without the figures measured), before it runs.
#
# Usage (from anywhere; paths are resolved against the repo root):
#   sh tests/e2e/capture/run.sh BUILD_DIR     # build or build-san
#
# The programs under test are real runs with known answers:
# BUILD/samples/cpu_shares and alloc_pattern (samples/capture/*.c), and the
# small programs in progs/, which this script compiles itself, plainly
# (cc -O1 -g -fno-omit-frame-pointer -pthread, never sanitized: the shim is
# preloaded into them; progs/*.cpp with g++ the same way, when g++ is
# there). Cases:
#   a. CPU shares (60/30/10 %), both unwinders, both metrics; the total CPU
#   b. allocations: exact bytes and counts, the heap peak, the leaks; the
#      --alloc-sample estimates; threads under --alloc; the writer on a
#      single-threaded program's own thread; a program exporting functions
#      named as the shim's own
#   c. SIGKILL at random moments: truncated, readable, little lost (also
#      with the writer on the program's thread)
#   d. damage: a flipped byte in each chunk, cuts, garbage files
#   e. fork: a file per child; children leaving with _exit
#   f. 500 short-lived threads; threads still alive when the process ends
#   g. a program's own SIGPROF timer, a thread blocking every signal, one
#      unblocking them again
#   h. exec (followed, or not with --no-follow); dash's _exit
#   i. usage errors, the default output name, the exit status
#   j. C++ names demangled (a templated member function, an inlined one)
#   k. flamegraph reads captures: as stackfold folds them; loss marked
#   l. a capture read where its program is gone: said, not a bad line
# Statistical bounds (shares +-5 points, totals +-10 %, sampled estimates
# +-15 %) are several standard errors wide; see each case.
#
set -u
LC_ALL=C
export LC_ALL

if [ $# -ne 1 ]; then
	echo "usage: sh tests/e2e/capture/run.sh BUILD_DIR" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/../../.." && pwd) || exit 2
cd "$root" || exit 2
BUILD=$(cd "$1" 2>/dev/null && pwd) || { echo "run.sh: no build directory '$1'" >&2; exit 2; }
SC=$BUILD/stackcap
SF=$BUILD/stackfold
MT=$BUILD/memtimeline
FG=$BUILD/flamegraph
CPU_SHARES=$BUILD/samples/cpu_shares
ALLOC_PATTERN=$BUILD/samples/alloc_pattern
HERE=$root/tests/e2e/capture
for b in "$SC" "$SF" "$MT" "$FG" "$BUILD/libstackcap.so" "$CPU_SHARES" "$ALLOC_PATTERN"; do
	[ -e "$b" ] || { echo "Bail out! $b is missing (run make first)"; exit 2; }
done
command -v python3 >/dev/null 2>&1 || { echo "Bail out! python3 is needed"; exit 2; }
command -v cc >/dev/null 2>&1 || { echo "Bail out! cc is needed"; exit 2; }

. "$root/tests/e2e/lib.sh"

# The test programs: plain builds (no sanitizer, no CFLAGS from outside).
P=$T/progs
mkdir -p "$P"
for src in "$HERE"/progs/*.c; do
	name=$(basename "$src" .c)
	cc -O1 -g -fno-omit-frame-pointer -pthread -I"$HERE/progs" "$src" -o "$P/$name" 2> "$T/cc.err" ||
		{ echo "Bail out! cannot compile $src: $(head -c 300 "$T/cc.err")"; exit 2; }
done

# C++ programs (the demangling cases), when g++ is there.
have_cxx=
if command -v g++ >/dev/null 2>&1; then
	have_cxx=1
	for src in "$HERE"/progs/*.cpp; do
		name=$(basename "$src" .cpp)
		g++ -O1 -g -fno-omit-frame-pointer -pthread -I"$HERE/progs" "$src" -o "$P/$name" 2> "$T/cc.err" ||
			{ echo "Bail out! cannot compile $src: $(head -c 300 "$T/cc.err")"; exit 2; }
	done
fi

folded() { python3 "$HERE/folded.py" "$@"; }
capfile() { python3 "$HERE/capfile.py" "$@"; }

# cap OUT -- STACKCAP_ARGS...: stackcap -o OUT ARGS (the program's stdout in
# $T/out, stderr in $T/err, status in $rc).
cap() {
	o=$1; shift; sep "$1"; shift
	rm -f "$o" "$o".*
	run "$SC" -o "$o" "$@"
}
# info FILE: `stackcap info FILE` into $T/info (status $irc).
info() {
	"$SC" info "$1" > "$T/info" 2> "$T/info.err"
	irc=$?
}
ended() { sed -n 's/^ended: *//p' "$T/info"; }
want_clean() { # FILE WHAT
	info "$1"
	[ "$irc" -eq 0 ] || problem "$2: stackcap info exit $irc: $(head -c 200 "$T/info.err")"
	case $(ended) in
	"clean (END chunk; "*) ;;
	*) problem "$2: ended '$(ended)', expected clean" ;;
	esac
}
# fold FILE OUT [OPTIONS...]: stackfold into OUT (status $frc, stderr $T/fold.err).
fold() {
	f=$1 fo=$2; shift 2
	"$SF" "$@" "$f" > "$fo" 2> "$T/fold.err"
	frc=$?
}
want_fold() { # FILE OUT WHAT [OPTIONS...]
	wf=$1 wo=$2 ww=$3; shift 3
	fold "$wf" "$wo" "$@"
	[ "$frc" -eq 0 ] || problem "$ww: stackfold exit $frc: $(head -c 200 "$T/fold.err" | tr '\n' '|')"
	[ -s "$wo" ] || problem "$ww: stackfold printed nothing"
}
has() { folded has "$1" "$2"; }
# first_line_is PREFIX: the first line of $T/info starts with PREFIX.
first_line_is() {
	case $(head -n 1 "$T/info") in
	"$1"*) return 0 ;;
	esac
	return 1
}
# num A OP B: awk's comparison of two numbers (sh has integers only).
num() { awk -v a="$1" -v b="$3" "BEGIN { exit !(a $2 b) }"; }
# between X LO HI: LO <= X <= HI.
between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x + 0 >= lo + 0 && x + 0 <= hi + 0) }'; }

# ------------------------------------------------- a. CPU shares (60/30/10) --
# cpu_shares burns 600 ms in alpha (main thread), 300 ms in beta and 100 ms
# in gamma_ (second thread), each on its own thread's CPU clock: the shares
# hold however loaded the machine is. The samples are weighted by timer
# overruns, so both metrics should show them. Each way of walking the
# interrupted stacks: the hooks' .eh_frame rules (the default), libunwind
# alone, frame pointers.
for unwind in eh_frame libunwind fp; do
	# The capture of the first case is what the other four read.
	wanted "a. cpu_shares ($unwind): exit 0, output, clean capture" \
		"a. cpu_shares ($unwind), --metric samples: (want 60/30/10 +-5)" \
		"a. cpu_shares ($unwind), --metric self_cpu_time_total: (want 60/30/10 +-5)" \
		"a. cpu_shares ($unwind): total self_cpu_time_total us (want 1000000 +-10%)" \
		"a. cpu_shares ($unwind), --threads: two thread roots, alpha apart from beta/gamma_" || continue
	case $unwind in
	eh_frame) opt= label=".eh_frame rules" ;;
	libunwind) opt=--libunwind label="Hz, libunwind;" ;;
	fp) opt=--fp label="frame pointers" ;;
	esac
	c=$T/shares_$unwind.cap
	begin "a. cpu_shares ($unwind): exit 0, output, clean capture"
	# shellcheck disable=SC2086 # opt is one word or none
	cap "$c" -- $opt "$CPU_SHARES"
	want_rc 0
	want_out 1
	want_err "wrote $c"
	want_clean "$c" "capture"
	grep -q "^sampling:.*$label" "$T/info" ||
		problem "info does not name the unwinder: $(grep '^sampling' "$T/info")"
	# The fast walk answers for this code: at most 1 sample in 20 left to libunwind.
	if [ "$unwind" = eh_frame ]; then
		fell=$(sed -n 's/^sampling:.*(libunwind for \([0-9]*\)).*/\1/p' "$T/info")
		took=$(sed -n 's/^sampling:.*; \([0-9]*\) samples standing.*/\1/p' "$T/info")
		[ "${took:-0}" -gt 0 ] && [ $((${fell:-0} * 20)) -le "$took" ] ||
			problem "${fell:-0} of ${took:-no} samples left to libunwind: $(grep '^sampling' "$T/info")"
	fi
	finish "a. cpu_shares ($unwind): exit 0, output, clean capture"

	for metric in samples self_cpu_time_total; do
		begin "a. cpu_shares ($unwind), --metric $metric: (want 60/30/10 +-5)"
		want_fold "$c" "$T/f_$metric.txt" "$metric" --metric "$metric"
		got=$(folded within "$T/f_$metric.txt" alpha 60 5 beta 30 5 gamma_ 10 5) ||
			problem "shares $got, expected alpha 60 beta 30 gamma_ 10 (+-5 points)"
		finish "a. cpu_shares ($unwind), --metric $metric: $got (want 60/30/10 +-5)"
	done

	begin "a. cpu_shares ($unwind): total self_cpu_time_total us (want 1000000 +-10%)"
	total=$(folded total "$T/f_self_cpu_time_total.txt")
	between "$total" 900000 1100000 ||
		problem "total self_cpu_time_total $total us, expected 1000000 +-10%"
	finish "a. cpu_shares ($unwind): total self_cpu_time_total $total us (want 1000000 +-10%)"

	begin "a. cpu_shares ($unwind), --threads: two thread roots, alpha apart from beta/gamma_"
	want_fold "$c" "$T/f_threads.txt" "--threads" --threads
	folded roots "$T/f_threads.txt" > "$T/roots"
	[ "$(wc -l < "$T/roots")" -eq 2 ] || problem "roots: $(tr '\n' ' ' < "$T/roots"), expected 2 threads"
	grep -Evq '^cpu_shares-[0-9]+$' "$T/roots" && problem "a root is not 'cpu_shares-TID': $(tr '\n' ' ' < "$T/roots")"
	# Each thread's own functions under its own root.
	grep -q "^cpu_shares-[0-9]*;.*;alpha;" "$T/f_threads.txt" || problem "no thread root above alpha"
	a_root=$(grep ";alpha;" "$T/f_threads.txt" | cut -d';' -f1 | sort -u)
	b_root=$(grep -E ";(beta|gamma_);" "$T/f_threads.txt" | cut -d';' -f1 | sort -u)
	if [ "$(echo "$a_root" | wc -l)" -ne 1 ] || [ "$(echo "$b_root" | wc -l)" -ne 1 ] || [ "$a_root" = "$b_root" ]; then
		problem "alpha under '$a_root', beta and gamma_ under '$b_root': expected one root each, different"
	fi
	finish "a. cpu_shares ($unwind), --threads: two thread roots, alpha apart from beta/gamma_"
done

# ------------------------------------------------------- b. allocations --
# alloc_pattern: grow() 100 x 1 MiB, shrink() frees 90, leak() 10 x 64 KiB
# never freed, the rest freed at the end; printf's stdio buffer (4096)
# leaks too.
# The capture of the first case is what the other five read.
if wanted "b. alloc_pattern --alloc: exit 0, clean, 111 allocations and 100 frees" \
	"b. --metric alloc_bytes: grow 104857600, leak 655360 exactly" \
	"b. --metric alloc_count: grow 100, leak 10" \
	"b. memtimeline --summary: peak bytes (100 MiB from grow)" \
	"b. memtimeline --leaks: leak 655360 exactly, nothing from grow" \
	"b. memtimeline --peak-stacks: grow 104857600 live at the peak"; then
	c=$T/alloc.cap
	begin "b. alloc_pattern --alloc: exit 0, clean, 111 allocations and 100 frees"
	cap "$c" -- --alloc "$ALLOC_PATTERN"
	want_rc 0
	want_out 1
	want_clean "$c" "capture"
	grep -q '^allocations: 111 allocations, 100 frees' "$T/info" ||
		problem "info: $(grep '^allocations' "$T/info"), expected 111 allocations, 100 frees"
	finish "b. alloc_pattern --alloc: exit 0, clean, 111 allocations and 100 frees"

	begin "b. --metric alloc_bytes: grow 104857600, leak 655360 exactly"
	want_fold "$c" "$T/ab.txt" alloc_bytes --metric alloc_bytes
	g=$(folded leaf "$T/ab.txt" grow) l=$(folded leaf "$T/ab.txt" leak)
	[ "$g" = "104857600 1" ] || problem "grow: '$g' (sum, lines), expected 104857600 in one stack"
	[ "$l" = "655360 1" ] || problem "leak: '$l' (sum, lines), expected 655360 in one stack"
	finish "b. --metric alloc_bytes: grow 104857600, leak 655360 exactly"

	begin "b. --metric alloc_count: grow 100, leak 10"
	want_fold "$c" "$T/ac.txt" alloc_count --metric alloc_count
	g=$(folded leaf "$T/ac.txt" grow) l=$(folded leaf "$T/ac.txt" leak)
	[ "$g" = "100 1" ] || problem "grow: '$g', expected 100"
	[ "$l" = "10 1" ] || problem "leak: '$l', expected 10"
	has "$T/ac.txt" shrink && problem "a stack through shrink() allocates: frees are not allocations"
	finish "b. --metric alloc_count: grow 100, leak 10"

	begin "b. memtimeline --summary: peak bytes (100 MiB from grow)"
	run "$MT" --summary "$c"
	want_rc 0
	peak=$(sed -n 's/^peak: .*(\([0-9]*\) bytes).*/\1/p' "$T/out")
	if [ -z "$peak" ]; then
		problem "no peak line: $(head -c 300 "$T/out" | tr '\n' '|')"
	else
		between "$peak" 104857600 $((104857600 + 65535)) ||
			problem "peak $peak bytes, expected 104857600 <= peak < 104857600 + 65536"
	fi
	finish "b. memtimeline --summary: peak ${peak:-?} bytes (100 MiB from grow)"

	begin "b. memtimeline --leaks: leak 655360 exactly, nothing from grow"
	run "$MT" --leaks "$c"
	want_rc 0
	l=$(folded leaf "$T/out" leak)
	[ "$l" = "655360 1" ] || problem "leak line: '$l', expected exactly one line of 655360: $(tr '\n' '|' < "$T/out" | head -c 300)"
	grep -q '^Unknown;' "$T/out" || problem "no 'Unknown;' category root"
	has "$T/out" grow && problem "grow's blocks are all freed, yet listed as leaks"
	finish "b. memtimeline --leaks: leak 655360 exactly, nothing from grow"

	begin "b. memtimeline --peak-stacks: grow 104857600 live at the peak"
	run "$MT" --peak-stacks "$c"
	want_rc 0
	g=$(folded leaf "$T/out" grow)
	[ "$g" = "104857600 1" ] || problem "grow at the peak: '$g', expected 104857600"
	has "$T/out" leak && problem "leak() runs after the peak, yet is live at it"
	finish "b. memtimeline --peak-stacks: grow 104857600 live at the peak"
fi

# --fp's allocation stacks come from the frame pointers, not libunwind:
# alloc_pattern keeps them, so grow's and leak's stacks from main down are
# libunwind's; libc keeps none, so its frames above main (and printf's) are
# lost, as in --fp's samples.
if wanted "b. --alloc --fp: grow's and leak's stacks from main down as libunwind's"; then
	begin "b. --alloc --fp: grow's and leak's stacks from main down as libunwind's"
	cap "$T/alloc_unw.cap" -- --alloc "$ALLOC_PATTERN"
	want_rc 0
	cap "$T/alloc_fp.cap" -- --alloc --fp "$ALLOC_PATTERN"
	want_rc 0
	want_fold "$T/alloc_unw.cap" "$T/unw.txt" "libunwind" --metric alloc_bytes
	want_fold "$T/alloc_fp.cap" "$T/fp.txt" "--fp" --metric alloc_bytes
	from_main() { grep -E ';main;(grow|leak) ' "$1" | sed 's/^.*;main;/main;/' | sort; }
	from_main "$T/unw.txt" > "$T/unw.main"
	from_main "$T/fp.txt" > "$T/fp.main"
	[ "$(wc -l < "$T/fp.main")" = 2 ] && cmp -s "$T/unw.main" "$T/fp.main" ||
		problem "from main down: libunwind $(tr '\n' '|' < "$T/unw.main"), --fp $(tr '\n' '|' < "$T/fp.main")"
	[ "$(grep -c '' "$T/fp.txt")" = 3 ] || problem "--fp: $(tr '\n' '|' < "$T/fp.txt"), expected grow, leak and stdio's buffer"
	# Walked by frame pointers indeed: libc's _start, which only DWARF
	# reaches, is in libunwind's stacks and not in --fp's.
	grep -q '^_start;' "$T/unw.txt" && ! grep -q '_start;' "$T/fp.txt" ||
		problem "_start: libunwind $(grep -c '^_start;' "$T/unw.txt") stacks, --fp $(grep -c '_start;' "$T/fp.txt") (expected some, none)"
	finish "b. --alloc --fp: grow's and leak's stacks from main down as libunwind's"
fi

# The hooks walk an allocation's stack by .eh_frame rules of their own
# (capture/cfiunwind.c) and ask libunwind only where those rules do not
# reach: the stacks must be libunwind's, frame for frame and count for
# count, from one call site in a loop (its stack kept and checked),
# threads (clone's end of the stack), C++ and libc's own allocations.
if wanted "b. --alloc's fast walk: every stack and count as --libunwind's"; then
	begin "b. --alloc's fast walk: every stack and count as --libunwind's"
	for prog in "$ALLOC_PATTERN" "$P/smallallocs 3000" "$P/smallallocs --threads 20" "$P/box 0.05"; do
		name=$(basename "${prog%% *}")
		# shellcheck disable=SC2086 # prog is a command and its arguments
		cap "$T/walk_fast.cap" -- --alloc $prog
		want_rc 0
		# shellcheck disable=SC2086
		cap "$T/walk_unw.cap" -- --alloc --libunwind $prog
		want_rc 0
		want_fold "$T/walk_fast.cap" "$T/walk_fast.txt" "$name, fast walk" --metric alloc_count
		want_fold "$T/walk_unw.cap" "$T/walk_unw.txt" "$name, libunwind" --metric alloc_count
		sort "$T/walk_fast.txt" > "$T/walk_fast.sorted"
		sort "$T/walk_unw.txt" > "$T/walk_unw.sorted"
		cmp -s "$T/walk_fast.sorted" "$T/walk_unw.sorted" ||
			problem "$prog: the fast walk's stacks differ from libunwind's: $(diff "$T/walk_fast.sorted" "$T/walk_unw.sorted" | head -c 400 | tr '\n' '|')"
		grep -q '^_start;.*;main;' "$T/walk_fast.txt" || problem "$prog: no stack from _start through main"
		case $prog in
		*--threads*) grep -q '^clone3;start_thread;one_small 20$' "$T/walk_fast.txt" ||
			problem "$prog: no 'clone3;start_thread;one_small 20': $(tr '\n' '|' < "$T/walk_fast.txt" | head -c 300)" ;;
		esac
	done
	finish "b. --alloc's fast walk: every stack and count as --libunwind's"
fi

# Leaks never invented from a loss: each ALLOCS chunk of alloc_pattern's
# capture damaged in turn (one flipped bit: the issue's 75 MiB "leaked" from
# grow), and the capture cut short. A damaged chunk's frees may be gone, so
# what was allocated before it and is live at the end is left out and
# counted; what is still listed is a leak of the clean capture (leak()'s
# 655360, stdio's buffer), never grow(). A cut capture has no end of
# program: no leak is listed, and stderr says why. A 4 KiB event ring makes
# the writer drain several times whatever the machine's load (the run takes
# ~70 ms, near the writer's 50 ms cycle): grow's frees are in chunks of
# their own, not in the one chunk of a run that ended before its first
# cycle, and a cut inside the last leaves earlier ones whole.
if wanted "b. --leaks, each ALLOCS chunk flipped in turn: never grow, never more than the clean leaks; what is left out counted" \
	"b. --leaks of a cut capture: no leak listed, 'no END chunk' and the count on stderr"; then
	c=$T/alloc_chunks.cap
	STACKCAP_EVENT_RING=4096 "$SC" -o "$c" --alloc "$ALLOC_PATTERN" > /dev/null 2>&1
	"$MT" --leaks "$c" > "$T/clean_leaks.txt" 2> /dev/null
	begin "b. --leaks, each ALLOCS chunk flipped in turn: never grow, never more than the clean leaks; what is left out counted"
	flips=0 counted=0
	for i in $(capfile chunks "$c" | awk '$4 == 6 { print $1 }'); do
		flips=$((flips + 1))
		capfile flip "$c" "$T/leakflip.cap" "$i" > /dev/null
		run "$MT" --leaks "$T/leakflip.cap"
		[ "$rc" -eq 0 ] || problem "chunk $i: exit $rc: $(stderr_head)"
		has "$T/out" grow && problem "chunk $i: grow listed as a leak: $(grep grow "$T/out" | head -c 200)"
		# Every line listed is a clean leak, with no more bytes.
		extra=$(awk 'NR == FNR { v[$1] = $2; next } !($1 in v) || $2 > v[$1] { print }' \
			"$T/clean_leaks.txt" "$T/out" | head -c 200)
		[ -z "$extra" ] || problem "chunk $i: leaks the clean capture has not: $extra"
		grep -q 'live at the end were made before a loss: not reported as leaks' "$T/err" &&
			counted=$((counted + 1))
	done
	[ "$flips" -ge 1 ] || problem "no ALLOCS chunk in the capture"
	[ "$counted" -ge 1 ] || problem "no damaged chunk left anything out (expected the chunks with grow's frees to)"
	finish "b. --leaks, each of $flips ALLOCS chunks flipped in turn: never grow, never more than the clean leaks; what is left out counted ($counted times)"

	begin "b. --leaks of a cut capture: no leak listed, 'no END chunk' and the count on stderr"
	# Cut inside the last ALLOCS chunk: the blocks grow() frees at the end
	# are live where the capture stops.
	last=$(capfile chunks "$c" | awk '$4 == 6 { at = $2 } END { print at + 0 }')
	[ "$last" -gt 0 ] || problem "no ALLOCS chunk to cut"
	capfile cut "$c" "$T/leakcut.cap" $((last + 10))
	run "$MT" --leaks "$T/leakcut.cap"
	want_rc 0
	[ -s "$T/out" ] && problem "leaks listed: $(head -c 200 "$T/out")"
	want_err "--leaks: a capture has no END chunk"
	grep -Eq 'no leak is certain; [1-9][0-9]* allocations, [1-9][0-9]* bytes' "$T/err" ||
		problem "no count of what is left out: $(stderr_head)"
	finish "b. --leaks of a cut capture: no leak listed, 'no END chunk' and the count on stderr"
fi

# The shim's own allocation in its pthread_create wrapper must not be
# recorded as the program's (its guard is volatile: GCC once moved the
# increment past the malloc builtin, leaving phantom 16-byte leaks at
# "...;main;pthread_create" and memtimeline "already live" warnings).
c=$T/alloc_threads.cap
if begin "b. --alloc with 100 threads: the shim's own allocations are not recorded"; then
	cap "$c" -- --alloc "$P/threads" 100 5 0.5
	want_rc 0
	want_out "threads 100"
	want_clean "$c" "capture"
	want_fold "$c" "$T/atc.txt" alloc_count --metric alloc_count
	w=$(folded leaf "$T/atc.txt" pthread_create)
	[ "${w%% *}" = 0 ] || problem "allocations at ...;main;pthread_create (the shim's own): '$w' (count, lines), expected none"
	"$MT" --summary "$c" > "$T/mt.out" 2> /dev/null
	live=$(sed -n 's/^warnings: *\([0-9]*\).*/\1/p' "$T/mt.out")
	case $problems in
	?*) finish "b. --alloc with 100 threads: the shim's own allocations are not recorded: ${w%% *} phantom allocations, ${live:-?} memtimeline warnings" ;;
	*) finish "b. --alloc with 100 threads: the shim's own allocations are not recorded" ;;
	esac
fi

# A pthread key destructor that runs after the shim's in the same round of
# a thread's exit (a key made later, as the CUDA runtime's are) frees and
# allocates: recorded, none on an untraced thread, no block left live.
c=$T/alloc_tsd.cap
if begin "b. --alloc: frees in other keys' destructors at thread exit are recorded"; then
	cap "$c" -- --alloc "$P/tsdfree" 8
	want_rc 0
	want_out "tsdfree 8"
	want_clean "$c" "capture"
	grep -q ' 0 allocations on untraced threads' "$T/info" ||
		problem "info: $(grep '^lost:' "$T/info")"
	grep -q '^allocations: *18 allocations, 16 frees' "$T/info" ||
		problem "info: $(grep '^allocations:' "$T/info"), expected 18 allocations, 16 frees"
	"$MT" --leaks "$c" > "$T/tsd.leaks" 2> "$T/tsd.err"
	grep -q 'worker\|release' "$T/tsd.leaks" && problem "live at the end: $(grep 'worker\|release' "$T/tsd.leaks" | head -1)"
	grep -q 'already live' "$T/tsd.err" && problem "memtimeline: $(head -1 "$T/tsd.err")"
	finish "b. --alloc: frees in other keys' destructors at thread exit are recorded"
fi

# Sampled: each 1 MiB block is kept with probability 1 - exp(-16) and scaled
# by its inverse, so grow's estimate is 104857600 to within rounding.
c=$T/alloc_sampled.cap
if begin "b. --alloc-sample 65536: grow estimated bytes (want 104857600 +-15%)"; then
	cap "$c" -- --alloc-sample 65536 "$ALLOC_PATTERN"
	want_rc 0
	want_clean "$c" "capture"
	grep -q 'sampled: one per 65536 bytes' "$T/info" || problem "info does not say the allocations were sampled"
	want_fold "$c" "$T/asb.txt" alloc_bytes --metric alloc_bytes
	g=$(folded leaf "$T/asb.txt" grow | cut -d' ' -f1)
	between "${g:-0}" 89128960 120586240 || problem "grow estimate ${g:-none}, expected 104857600 +-15%"
	finish "b. --alloc-sample 65536: grow estimated ${g:-?} bytes (want 104857600 +-15%)"
fi

# Exact tracking is lossless: with a 4 KiB event ring (STACKCAP_EVENT_RING)
# 20000 allocations and frees fill it over and over; the threads wait for
# the writer and nothing is dropped. --alloc-drop drops instead,
# and every reader says how many.
c=$T/small_tiny_ring.cap
if begin "b. --alloc, a 4 KiB ring: the threads wait, 0 events dropped, 20000 x 4096 bytes exactly"; then
	export STACKCAP_EVENT_RING=4096
	cap "$c" -- --alloc "$P/smallallocs"
	unset STACKCAP_EVENT_RING
	want_rc 0
	want_clean "$c" "capture"
	grep -q '^lost: *0 samples and 0 events dropped' "$T/info" || problem "info: $(grep '^lost' "$T/info")"
	grep -q '^waited: *[1-9]' "$T/info" || problem "the ring never filled (no 'waited:' line): the test tests nothing"
	want_fold "$c" "$T/tiny.txt" alloc_bytes --metric alloc_bytes
	b=$(folded leaf "$T/tiny.txt" many_small | cut -d' ' -f1)
	[ "${b:-0}" = 81920000 ] || problem "many_small: ${b:-none} bytes, expected 81920000"
	finish "b. --alloc, a 4 KiB ring: the threads wait, 0 events dropped, 20000 x 4096 bytes exactly"
fi
c=$T/small_tiny_drop.cap
if begin "b. --alloc --alloc-drop and a 4 KiB ring: drops, counted and reported"; then
	export STACKCAP_EVENT_RING=4096
	cap "$c" -- --alloc --alloc-drop "$P/smallallocs"
	unset STACKCAP_EVENT_RING
	want_rc 0
	info "$c"
	grep -q '^lost: *0 samples and [1-9][0-9]* events dropped' "$T/info" || problem "info: $(grep '^lost' "$T/info")"
	run "$SF" --metric alloc_bytes "$c"
	want_err "incomplete capture:"
	finish "b. --alloc --alloc-drop and a 4 KiB ring: drops, counted and reported"
fi

# smallallocs: 20000 x 4096 bytes (81920000). About 1250 of them are kept;
# the estimates' standard error is about 3%, so +-15% is 5 of them.
c=$T/small_sampled.cap
if begin "b. --alloc-sample 65536, 20000 x 4 KiB: estimated bytes, allocations (want 81920000, 20000 +-15%)"; then
	cap "$c" -- --alloc-sample 65536 "$P/smallallocs"
	want_rc 0
	want_clean "$c" "capture"
	want_fold "$c" "$T/ssb.txt" alloc_bytes --metric alloc_bytes
	want_fold "$c" "$T/ssc.txt" alloc_count --metric alloc_count
	b=$(folded leaf "$T/ssb.txt" many_small | cut -d' ' -f1)
	k=$(folded leaf "$T/ssc.txt" many_small | cut -d' ' -f1)
	between "${b:-0}" 69632000 94208000 || problem "bytes estimate ${b:-none}, expected 81920000 +-15%"
	between "${k:-0}" 17000 23000 || problem "count estimate ${k:-none}, expected 20000 +-15%"
	finish "b. --alloc-sample 65536, 20000 x 4 KiB: estimated ${b:-?} bytes, ${k:-?} allocations (want 81920000, 20000 +-15%)"
fi

# Sampled runs record the frees of sampled blocks only (capture/sampleset):
# about 1250 allocations and as many frees, not 20000 frees.
if begin "b. --alloc-sample 65536: only the sampled blocks' frees are recorded"; then
	"$SC" info "$c" > "$T/ssinfo" 2>&1
	line=$(grep '^allocations:' "$T/ssinfo")
	na=$(echo "$line" | sed -n 's/^allocations: *\([0-9]*\) allocations, \([0-9]*\) frees.*/\1/p')
	nf=$(echo "$line" | sed -n 's/^allocations: *\([0-9]*\) allocations, \([0-9]*\) frees.*/\2/p')
	[ -n "$na" ] && [ -n "$nf" ] || problem "no counts in: $line"
	[ "${nf:-99999}" -le "${na:-0}" ] || problem "$nf frees for $na sampled allocations: unsampled frees recorded"
	[ "${na:-0}" -ge 500 ] && [ "${na:-99999}" -le 3000 ] || problem "$na sampled allocations, expected about 1250"
	finish "b. --alloc-sample 65536: only the sampled blocks' frees are recorded (${na:-?} allocations, ${nf:-?} frees)"
fi

# 200 threads each allocate 16 bytes once: 3,200 bytes, which a 512 KiB
# mean keeps with a chance of 0.6%, and then as one allocation standing for
# 512 KiB. A thread's first gap must be drawn too: a thread starting at its
# sampled byte keeps its first allocation and weighs it 32,768 times over
# (105 MB here).
c=$T/first_sampled.cap
if begin "b. --alloc-sample 524288, 200 threads x 16 bytes: no thread's first allocation always kept (want < 1048576 bytes)"; then
	cap "$c" -- --alloc-sample 524288 "$P/smallallocs" --threads 200
	want_rc 0
	want_clean "$c" "capture"
	"$SF" --metric alloc_bytes "$c" > "$T/fsb.txt" 2> "$T/fsb.err" || problem "stackfold: $(head -c 300 "$T/fsb.err")"
	b=$(folded leaf "$T/fsb.txt" one_small | cut -d' ' -f1)
	[ "${b:-0}" -lt 1048576 ] || problem "one_small estimated at $b bytes, allocated 3200"
	finish "b. --alloc-sample 524288, 200 threads x 16 bytes: one_small estimated at ${b:-0} bytes (want < 1048576)"
fi

# Sampled bytes reached while recording is paused (or by the shim's own
# allocations) are dropped, and the next gap drawn: tiny() allocates 200
# bytes once recording starts, which an 8 MiB mean samples once in 40,000
# runs (2000 bytes, once in 4,000, failed a make test).
# (A gap left where it was hands tiny() a sample weighed as 8 MiB.)
c=$T/lategap.cap
if begin "b. --alloc-sample 8388608, paused then 200 x 1 byte: no sample carried into the window (want < 8388608 bytes)"; then
	cap "$c" -- --alloc-sample 8388608 --toggle-signal USR1 "$P/lategap" 100000 200
	want_rc 0
	want_clean "$c" "capture"
	"$SF" --metric alloc_bytes "$c" > "$T/lg.txt" 2> "$T/lg.err" || problem "stackfold: $(head -c 300 "$T/lg.err")"
	b=$(folded leaf "$T/lg.txt" tiny | cut -d' ' -f1)
	[ "${b:-0}" -lt 8388608 ] || problem "tiny estimated at $b bytes, allocated 200"
	p=$(folded leaf "$T/lg.txt" paused | cut -d' ' -f1)
	[ "${p:-0}" -eq 0 ] || problem "paused() recorded while paused: $p bytes"
	finish "b. --alloc-sample 8388608, paused then 200 x 1 byte: tiny estimated at ${b:-0} bytes (want < 8388608)"
fi

# A single-threaded program's sampled allocations: the writer's cycles run
# on the program's thread while it allocates (glibc's malloc stays
# lock-free), and it gets a thread of its own once the program stops
# allocating for 200 ms. The capture is written as it goes (a chunk every
# 50 ms), and nothing is lost at the switch. Exact --alloc has its thread
# from the start.
c=$T/onethread.cap
if begin "b. --alloc-sample 65536, one thread: no writer thread while it allocates, one once it spins (want 1, then 2 threads)"; then
	cap "$c" -- --alloc-sample 65536 "$P/onethread" 400 400
	want_rc 0
	want_out "threads after allocating: 1"
	want_out "threads after spinning: 2"
	want_clean "$c" "capture"
	chunks=$(ended | sed -n 's/^clean (END chunk; \([0-9]*\) chunks)/\1/p')
	[ "${chunks:-0}" -ge 10 ] || problem "${chunks:-no} chunks: the cycles did not run while it allocated"
	grep -q '^lost: *0 samples and 0 events dropped' "$T/info" || problem "info: $(grep '^lost' "$T/info")"
	want_fold "$c" "$T/one.txt" "stackfold"
	for f in alloc_here spin_here; do has "$T/one.txt" "$f" || problem "no samples in $f"; done
	total=$(folded total "$T/one.txt" 2>/dev/null)
	between "${total:-0}" 720000 880000 || problem "samples stand for ${total:-?} us, the program ran 800 ms of CPU (+-10%)"
	want_fold "$c" "$T/onea.txt" "alloc_count" --metric alloc_count
	has "$T/onea.txt" alloc_here || problem "no sampled allocations in alloc_here"
	finish "b. --alloc-sample 65536, one thread: no writer thread while it allocates, one once it spins (want 1, then 2 threads)"
fi
if begin "b. --alloc, one thread: the writer has its thread from the start (want 2, 2 threads)"; then
	cap "$c" -- --alloc "$P/onethread" 100 100
	want_rc 0
	want_out "threads after allocating: 2"
	want_out "threads after spinning: 2"
	want_clean "$c" "capture"
	finish "b. --alloc, one thread: the writer has its thread from the start (want 2, 2 threads)"
fi

# A program that exports functions named as the shim's own (built with
# -rdynamic, they come before a preloaded library's in the lookup): the
# shim exports only what it interposes, so it calls its own, and the
# program's stay the program's.
if begin "b. a program with the shim's internal names exported: each stays its own, clean capture"; then
	# zstd and zlib linked into the shim (the Makefile, when their static
	# archives are there): their functions are the shim's own as well.
	linked_in= want_own=13
	if command -v readelf > /dev/null && ! readelf -d "$BUILD/libstackcap.so" | grep -q 'NEEDED.*libz'; then
		linked_in=-DLINKED_IN want_own=17
	fi
	if cc -O1 -g -fno-omit-frame-pointer -rdynamic $linked_in "$HERE/progs/namesakes.c" -o "$P/namesakes_dyn" 2> "$T/cc.err"; then
		for opt in --alloc-sample --alloc; do
			if [ "$opt" = --alloc ]; then
				cap "$c" -- --alloc "$P/namesakes_dyn"
			else
				cap "$c" -- --alloc-sample 65536 "$P/namesakes_dyn"
			fi
			want_rc 0
			want_out "own answers: $want_own of $want_own"
			want_clean "$c" "$opt capture"
			grep -q "called from outside" "$T/err" && problem "$opt: $(grep 'called from outside' "$T/err" | head -1)"
		done
	else
		problem "cannot compile namesakes.c with -rdynamic: $(head -c 200 "$T/cc.err")"
	fi
	finish "b. a program with the shim's internal names exported: each stays its own, clean capture"
fi

# --------------------------------------------------------- c. SIGKILL --
# spin burns 5 s of CPU in spin_here(); it is killed with SIGKILL at a random
# moment. The writer appends every 50 ms, so the capture holds all but the
# last ~50-100 ms of samples: at least the thread's CPU time (read from
# /proc/PID/schedstat just before the kill) less 150 ms, less 50 ms of
# slack for a busy machine; never more than that CPU time (plus the few ms
# between the reading and the kill).
thread_cpu_us() { # PID: the main thread's CPU time in us
	if read -r ns _ < "/proc/$1/schedstat" 2>/dev/null; then
		echo $((ns / 1000))
	else # utime + stime, in clock ticks
		awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print int(($12 + $13) * 1e6 / hz) }' "/proc/$1/stat"
	fi
}
# start_killable PIDFILE WHAT STACKCAP_ARGS...: stackcap in the background
# ($sc), until its program has written PIDFILE ($pid; empty, and the case
# failed, if it never does).
start_killable() {
	sk_pidfile=$1 sk_what=$2
	shift 2
	rm -f "$sk_pidfile"
	"$SC" "$@" < /dev/null > "$T/out" 2> "$T/err" &
	sc=$!
	i=0
	while [ ! -s "$sk_pidfile" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
	pid=$(cat "$sk_pidfile" 2>/dev/null)
	if [ -z "$pid" ]; then
		problem "$sk_what never started"
		kill -9 "$sc" 2>/dev/null
	fi
}
# killed_capture CAP FOLDED: after the kill, stackcap's status 137 and a
# truncated, readable capture whose samples ($total) stand for the thread's
# CPU time ($cpu, read just before the kill) less at most 200 ms.
killed_capture() {
	wait "$sc"
	rc=$?
	want_rc 137
	info "$1"
	[ "$irc" -eq 0 ] || problem "stackcap info exit $irc: $(head -c 200 "$T/info.err")"
	case $(ended) in
	"truncated after chunk "*) ;;
	*) problem "ended '$(ended)', expected 'truncated after chunk ...'" ;;
	esac
	want_fold "$1" "$2" "stackfold"
	total=$(folded total "$2" 2>/dev/null)
	if [ -n "$cpu" ] && [ -n "$total" ]; then
		num "$total" ">=" $((cpu - 200000)) || problem "samples stand for $total us, the thread ran $cpu us: more than 150 ms (+50 ms slack) lost"
		num "$total" "<=" $((cpu + 50000)) || problem "samples stand for $total us, more than the $cpu us the thread ran"
	fi
}
for base in 0.3 0.7 1.2; do
	seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
	at=$(awk -v b="$base" -v s="${seed:-$$}" 'BEGIN { srand(s); printf "%.2f", b + rand() * 0.1 }')
	c=$T/killed.cap
	rm -f "$c"
	begin "c. SIGKILL after s: truncated, readable, samples us of us CPU" || continue
	cpu=
	start_killable "$T/spin.pid" spin -o "$c" "$P/spin" 5 "$T/spin.pid"
	if [ -n "$pid" ]; then
		sleep "$at"
		cpu=$(thread_cpu_us "$pid")
		kill -9 "$pid"
	fi
	killed_capture "$c" "$T/killed.txt"
	has "$T/killed.txt" spin_here || problem "spin_here is not in the folded stacks"
	finish "c. SIGKILL after ${at} s: truncated, readable, samples ${total:-?} us of ${cpu:-?} us CPU"
done

# The same with the writer on the program's own thread (--alloc-sample in
# a single-threaded program that allocates all along): killed while it
# allocates, the capture holds all but the last ~100 ms of samples, and the
# allocations recorded until then.
c=$T/killed_one.cap
rm -f "$c"
if begin "c. SIGKILL, one thread allocating under --alloc-sample: truncated, readable, samples of all but 200 ms"; then
	cpu=
	start_killable "$T/one.pid" onethread --alloc-sample 65536 -o "$c" "$P/onethread" 5000 0 "$T/one.pid"
	if [ -n "$pid" ]; then
		sleep 0.6
		cpu=$(thread_cpu_us "$pid")
		threads=$(find "/proc/$pid/task" -mindepth 1 -maxdepth 1 | wc -l)
		[ "$threads" -eq 1 ] || problem "$threads threads while it allocates, expected 1"
		kill -9 "$pid"
	fi
	killed_capture "$c" "$T/killed_one.txt"
	want_fold "$c" "$T/killed_onea.txt" "alloc_count" --metric alloc_count
	has "$T/killed_onea.txt" alloc_here || problem "no sampled allocations recorded before the kill"
	finish "c. SIGKILL, one thread allocating under --alloc-sample: truncated, readable, samples ${total:-?} us of ${cpu:-?} us CPU"
fi

# ---------------------------------------------------------- d. damage --
# A clean capture with many chunks (cpu_shares', from a.), damaged on purpose.
# (The damaged files are cut from the capture of a.; made here if a. was
# left out by ONLY.)
set -- "d. the capture's framing as capfile.py reads it: chunks, all valid, as info counts" \
	"d. one flipped byte mid-file (chunk ): info reports 1 damaged chunk skipped, the rest is read" \
	"d. a flipped byte in each of the chunks in turn: that chunk skipped, stackfold reads the rest" \
	"d. cut at 14 points (64 bytes to len-1): reported truncated, read, never a crash" \
	"d. a header only: info says 'truncated before the first chunk (no data)', no crash"
for g in random.bin empty.stackcap short_header.stackcap text.txt magic_random.stackcap; do
	set -- "$@" "d. garbage '$g': stackcap info and memtimeline exit 1 naming it; stackfold reads it as text" \
		"d. garbage '$g': stackcap info and memtimeline exit 1 naming it; stackfold exit 1"
done
if wanted "$@"; then
	clean=$T/shares_libunwind.cap
	[ -s "$clean" ] || "$SC" -o "$clean" "$CPU_SHARES" > /dev/null 2>&1
	if capfile chunks "$clean" > "$T/chunks" 2> "$T/capfile.err"; then
		nchunks=$(wc -l < "$T/chunks")
	else
		nchunks=0
	fi
	begin "d. the capture's framing as capfile.py reads it: chunks, all valid, as info counts"
	[ "$nchunks" -ge 5 ] || problem "the clean capture has $nchunks chunks (capfile.py: $(cat "$T/capfile.err"))"
	info "$clean"
	case $(ended) in
	"clean (END chunk; $nchunks chunks)") ;;
	*) problem "ended '$(ended)', expected 'clean (END chunk; $nchunks chunks)'" ;;
	esac
	finish "d. the capture's framing as capfile.py reads it: $nchunks chunks, all valid, as info counts"

	# One bit flipped in the middle of the file (in the middle chunk's payload):
	# that chunk alone is skipped.
	d=$T/damaged.cap
	mid=$(capfile middle "$clean")
	begin "d. one flipped byte mid-file (chunk ): info reports 1 damaged chunk skipped, the rest is read"
	size=$(capfile flip "$clean" "$d" "${mid:-1}")
	info "$d"
	[ "$irc" -eq 0 ] || problem "stackcap info exit $irc: $(head -c 200 "$T/info.err")"
	want_end="clean (END chunk; $((nchunks - 1)) chunks); 1 damaged chunk skipped ($size bytes)"
	[ "$(ended)" = "$want_end" ] || problem "ended '$(ended)', expected '$want_end'"
	want_fold "$d" "$T/damaged.txt" "stackfold"
	has "$T/damaged.txt" alpha || problem "alpha is gone"
	run "$MT" --summary "$d"
	want_rc 0
	finish "d. one flipped byte mid-file (chunk $mid): info reports 1 damaged chunk skipped, the rest is read"

	# The same in every chunk in turn: never a crash, always exactly that chunk
	# (the last, END, reads as a truncated capture).
	begin "d. a flipped byte in each of the chunks in turn: that chunk skipped, stackfold reads the rest"
	: > "$T/all.err"
	bad=0
	i=0
	while [ $i -lt "$nchunks" ]; do
		size=$(capfile flip "$clean" "$d" $i)
		info "$d"
		if [ $i -eq $((nchunks - 1)) ]; then
			want_end="truncated after chunk $((nchunks - 2))"
		else
			want_end="clean (END chunk; $((nchunks - 1)) chunks); 1 damaged chunk skipped ($size bytes)"
		fi
		case $(ended) in
		"$want_end"*) ;;
		*) problem "chunk $i: ended '$(ended)', expected '$want_end...'"; bad=$((bad + 1)) ;;
		esac
		fold "$d" "$T/damaged.txt"
		[ "$frc" -eq 0 ] || { problem "chunk $i: stackfold exit $frc: $(head -c 150 "$T/fold.err")"; bad=$((bad + 1)); }
		cat "$T/info.err" "$T/fold.err" >> "$T/all.err"
		[ "$bad" -ge 3 ] && break
		i=$((i + 1))
	done
	mv "$T/all.err" "$T/err"
	finish "d. a flipped byte in each of the $nchunks chunks in turn: that chunk skipped, stackfold reads the rest"

	# Cuts: never a crash; truncated (the END chunk is the last one).
	begin "d. cut at 14 points (64 bytes to len-1): reported truncated, read, never a crash"
	: > "$T/all.err"
	len=$(wc -c < "$clean")
	for at in 64 65 95 96 97 200 $((len / 4)) $((len / 3)) $((len / 2)) $((len * 2 / 3)) $((len - 40)) $((len - 33)) $((len - 32)) $((len - 1)); do
		capfile cut "$clean" "$d" "$at"
		info "$d"
		[ "$irc" -eq 0 ] || problem "cut at $at: stackcap info exit $irc: $(head -c 150 "$T/info.err")"
		case $(ended) in
		"truncated "*) ;;
		*) problem "cut at $at of $len: ended '$(ended)', expected truncated" ;;
		esac
		fold "$d" "$T/cut.txt"
		[ "$frc" -eq 0 ] || problem "cut at $at: stackfold exit $frc: $(head -c 150 "$T/fold.err")"
		"$MT" --summary "$d" > /dev/null 2> "$T/mt.err"
		mrc=$?
		[ "$mrc" -eq 0 ] || problem "cut at $at: memtimeline exit $mrc: $(head -c 150 "$T/mt.err")"
		cat "$T/info.err" "$T/fold.err" "$T/mt.err" >> "$T/all.err"
	done
	mv "$T/all.err" "$T/err"
	finish "d. cut at 14 points (64 bytes to len-1): reported truncated, read, never a crash"

	# Garbage. stackcap info and memtimeline: exit 1, the file named. stackfold
	# also reads folded text, so a file that does not start with the capture
	# magic is text to it (bad lines skipped, exit 0, the file named; exit 1
	# with --strict); one that does is an error. The random bytes have no
	# blanks: a line ending in a blank and digits is a valid folded line, and
	# 5000 random bytes hold one now and then.
	head -c 6000 /dev/urandom | tr -d ' \t\r\v\f' | head -c 5000 > "$T/random.bin"
	: > "$T/empty.stackcap"
	head -c 40 "$clean" > "$T/short_header.stackcap"
	printf 'this is a text file\nnot a capture\n' > "$T/text.txt"
	{ printf 'STKCAP01'; head -c 3000 /dev/urandom; } > "$T/magic_random.stackcap"
	for g in random.bin empty.stackcap short_header.stackcap text.txt magic_random.stackcap; do
		how="reads it as text"
		case $g in short_header.stackcap | magic_random.stackcap) how="exit 1" ;; esac
		begin "d. garbage '$g': stackcap info and memtimeline exit 1 naming it; stackfold $how"
		run "$SC" info "$T/$g"
		want_rc 1
		want_err "$g"
		cp "$T/err" "$T/all.err"
		run "$MT" --summary "$T/$g"
		want_rc 1
		want_err "$g"
		cat "$T/err" >> "$T/all.err"
		run "$SF" "$T/$g"
		case $g in
		short_header.stackcap | magic_random.stackcap) want_rc 1 ;;
		*) [ "$rc" -le 1 ] || problem "stackfold exit $rc" ;;
		esac
		want_err "$g"
		[ -s "$T/out" ] && problem "stackfold printed stacks from garbage: $(head -c 100 "$T/out")"
		cat "$T/err" >> "$T/all.err"
		case $g in
		random.bin | text.txt)
			run "$SF" --strict "$T/$g"
			want_rc 1
			cat "$T/err" >> "$T/all.err"
			;;
		esac
		cp "$T/all.err" "$T/err"
		finish "d. garbage '$g': stackcap info and memtimeline exit 1 naming it; stackfold $how"
	done
	# A header and nothing else: a capture with no data, said so.
	head -c 64 "$clean" > "$T/header_only.stackcap"
	begin "d. a header only: info says 'truncated before the first chunk (no data)', no crash"
	run "$SC" info "$T/header_only.stackcap"
	want_rc 0
	want_out "ended:       truncated before the first chunk (no data)"
	run "$SF" "$T/header_only.stackcap"
	[ "$rc" -le 1 ] || problem "stackfold exit $rc"
	[ -s "$T/out" ] && problem "stackfold printed stacks"
	run "$MT" --summary "$T/header_only.stackcap"
	want_rc 0
	finish "d. a header only: info says 'truncated before the first chunk (no data)', no crash"
fi

# ------------------------------------------------------------- e. fork --
# forker: pre_fork_work (parent), 3 children in child_work leaving with
# exit(0), then parent_work. Each process its own file: F and F.<pid>.
c=$T/fork.cap
if begin "e. fork: parent's file and one clean file per child (FILE.<pid>), each with its own functions"; then
	cap "$c" -- "$P/forker" 3 150
	want_rc 0
	kids=$(sed -n 's/^child //p' "$T/out")
	parent=$(sed -n 's/^parent //p' "$T/out")
	[ "$(echo "$kids" | grep -c .)" -eq 3 ] || problem "children: '$kids', expected 3 pids"
	want_clean "$c" "parent's capture"
	first_line_is "$c: pid $parent (parent " || problem "parent's file: $(head -n 1 "$T/info"), expected pid $parent"
	want_fold "$c" "$T/fork_parent.txt" "parent"
	for fn in pre_fork_work parent_work; do
		has "$T/fork_parent.txt" $fn || problem "parent's capture lacks $fn"
	done
	has "$T/fork_parent.txt" child_work && problem "parent's capture has child_work"
	for k in $kids; do
		want_clean "$c.$k" "child $k"
		first_line_is "$c.$k: pid $k (parent $parent)" ||
			problem "child's file: $(head -n 1 "$T/info"), expected pid $k (parent $parent)"
		want_fold "$c.$k" "$T/fork_child.txt" "child $k"
		has "$T/fork_child.txt" child_work || problem "child $k's capture lacks child_work"
		for fn in pre_fork_work parent_work; do
			has "$T/fork_child.txt" $fn && problem "child $k's capture has the parent's $fn"
		done
	done
	others=$(find "$T" -maxdepth 1 -name 'fork.cap.*' | wc -l)
	[ "$others" -eq 3 ] || problem "$others child files, expected 3: $(find "$T" -maxdepth 1 -name 'fork.cap.*' | tr '\n' ' ')"
	finish "e. fork: parent's file and one clean file per child (FILE.<pid>), each with its own functions"
fi

# A process that leaves with _exit() (a forked child's usual way out; dash
# always does) runs no destructor: the shim interposes _exit and _Exit to
# write its last cycle and the END chunk first.
c=$T/fork_exit.cap
if begin "e. fork, children leaving with _exit(0): their captures end clean"; then
	cap "$c" -- "$P/forker" 2 40 _exit
	want_rc 0
	kids=$(sed -n 's/^child //p' "$T/out")
	[ "$(echo "$kids" | grep -c .)" -eq 2 ] || problem "children: '$kids', expected 2 pids"
	for k in $kids; do
		want_clean "$c.$k" "child $k (left with _exit)"
	done
	case $problems in
	?*) finish "e. fork, children leaving with _exit(0): their captures end clean: no END chunk" ;;
	*) finish "e. fork, children leaving with _exit(0): their captures end clean" ;;
	esac
fi

# A forked child that execs with execl (glibc reaches execve inside libc,
# past the execve hook): its own capture still ends clean, and the exec'd
# image writes FILE.<pid>.1.
c=$T/fork_execl.cap
if begin "e. fork, children that execl: their captures and their images' end clean"; then
	cap "$c" -- "$P/forker" 2 40 execl
	want_rc 0
	want_clean "$c" "the parent"
	kids=$(sed -n 's/^child //p' "$T/out")
	[ "$(echo "$kids" | grep -c .)" -eq 2 ] || problem "children: '$kids', expected 2 pids"
	for k in $kids; do
		want_clean "$c.$k" "child $k (left by execl)"
		want_clean "$c.$k.1" "child $k's image (/bin/true)"
	done
	case $problems in
	?*) finish "e. fork, children that execl: their captures and their images' end clean: no END chunk" ;;
	*) finish "e. fork, children that execl: their captures and their images' end clean" ;;
	esac
fi

# ----------------------------------------------------- f. many threads --
# 500 threads, 25 at a time, each 2 ms of CPU in tiny_work. A thread this
# short is often never hit by its CPU-clock timer (the kernel checks those
# timers at its tick): the time no sample stood for is charged when each
# thread ends ("[unsampled]"), so the capture stands for the ~1000 ms the
# threads used. Every thread has its name, also those that exited
# before the writer read /proc for it.
c=$T/threads.cap
if begin "f. 500 short-lived threads: clean, 501 threads named, tiny_work sampled (us of ~1000000 us)"; then
	cap "$c" -- "$P/threads" 500 25 2
	want_rc 0
	want_out "threads 500"
	want_clean "$c" "capture"
	grep -q '^threads: *501:' "$T/info" || problem "info: $(grep '^threads' "$T/info" | cut -c1-60), expected 501 threads"
	grep -q '^lost: *0 samples and 0 events dropped' "$T/info" || problem "info: $(grep '^lost' "$T/info")"
	want_fold "$c" "$T/threads.txt" "stackfold"
	has "$T/threads.txt" tiny_work || problem "no tiny_work samples"
	# A thread gone before the writer saw it keeps the name it left with.
	"$SF" -q --threads --metric samples "$c" > "$T/threads_named.txt" 2> /dev/null
	unnamed=$(grep -c '^-[0-9]' "$T/threads_named.txt")
	[ "$unnamed" = 0 ] || problem "$unnamed stacks of threads with no name"
	total=$(folded total "$T/threads.txt" 2>/dev/null)
	# Each thread's unsampled time is charged as it ends: the 500 x 2 ms
	# are all there (they were 23% of it before), within a quarter.
	between "${total:-0}" 750000 1400000 || problem "the capture stands for ${total:-0} us of the ~1000000 us the threads used"
	grep -q '^cpu: .* s sampled, .* s \[unsampled\]' "$T/info" || problem "info: no sampled/unsampled line"
	finish "f. 500 short-lived threads: clean, 501 threads named, tiny_work sampled (${total:-?} us of ~1000000 us)"
fi

# livethreads: 30 "worker" threads spend 10 ms of CPU each, then wait; two
# "spinner" threads spin; main calls exit() with all of them alive. Their
# timers go at the end and their rings are theirs: the writer's last cycle
# reads each live thread's CPU clock by tid and charges what no sample
# stood for, so the workers' 300 ms are there (half of it was missing),
# and the spinners' last signals racing with it break nothing.
c=$T/livethreads.cap
if begin "f. threads alive at exit: clean, their unsampled CPU charged at the end (workers us of 300000)"; then
	cap "$c" -- "$P/livethreads" 30 10 2
	want_rc 0
	want_out "workers 30"
	want_clean "$c" "capture"
	grep -q '^threads: *33:' "$T/info" || problem "info: $(grep '^threads' "$T/info" | cut -c1-60), expected 33 threads"
	want_fold "$c" "$T/live.txt" "stackfold --threads" --threads
	total=$(awk '$1 ~ /^worker-/ { s += $NF } END { print s + 0 }' "$T/live.txt")
	between "$total" 285000 330000 || problem "the workers' stacks stand for $total us of the 300000 us they used (want -5 % to +10 %)"
	grep -q '^spinner-[0-9]*;.*spin_forever' "$T/live.txt" || problem "no spinner samples"
	finish "f. threads alive at exit: clean, their unsampled CPU charged at the end (workers ${total:-?} us of 300000)"
fi

# ------------------------------------------------- g. the program's signals --
# sigprof counts its own SIGPROF from setitimer(ITIMER_PROF, 10 ms) over
# 500 ms of CPU: about 50. stackcap's own signal is a real-time one and its
# timers are per thread, so the count must not change much.
if begin "g. own SIGPROF handler + ITIMER_PROF: signals under stackcap, without; clean"; then
	run "$P/sigprof"
	want_rc 0
	alone=$(sed -n 's/^sigprof \([0-9]*\) .*/\1/p' "$T/out")
	c=$T/sigprof.cap
	cap "$c" -- "$P/sigprof"
	want_rc 0
	under=$(sed -n 's/^sigprof \([0-9]*\) .*/\1/p' "$T/out")
	if [ -z "$alone" ] || [ -z "$under" ]; then
		problem "counts: alone '$alone', under stackcap '$under'"
	else
		num "$alone" ">=" 30 || problem "only $alone SIGPROF without stackcap (expected ~50)"
		lo=$(awk -v a="$alone" 'BEGIN { print a * 0.7 }') hi=$(awk -v a="$alone" 'BEGIN { print a * 1.3 + 3 }')
		between "$under" "$lo" "$hi" ||
			problem "$under SIGPROF under stackcap, $alone without (want $lo to $hi)"
	fi
	want_clean "$c" "capture"
	want_fold "$c" "$T/sigprof.txt" "stackfold"
	has "$T/sigprof.txt" prof_work || problem "prof_work is not in the samples"
	finish "g. own SIGPROF handler + ITIMER_PROF: ${under:-?} signals under stackcap, ${alone:-?} without; clean"
fi

# sigmask: a thread blocking every signal works 200 ms beside main_work. It
# gets no samples (its timer's signal stays pending), but must neither hang
# nor break the capture; its CPU time is charged when it ends, as
# "[unsampled]" (it was never sampled), so both threads' 400 ms are there.
c=$T/sigmask.cap
if begin "g. a thread blocking all signals: runs to the end, clean, main_work sampled, its time unsampled (us)"; then
	cap "$c" -- "$P/sigmask"
	want_rc 0
	want_out "sigmask ok"
	want_clean "$c" "capture"
	grep -q '^threads: *2:' "$T/info" || problem "info: $(grep '^threads' "$T/info"), expected 2 threads"
	want_fold "$c" "$T/sigmask.txt" "stackfold"
	has "$T/sigmask.txt" main_work || problem "main_work is not in the samples"
	total=$(folded total "$T/sigmask.txt" 2>/dev/null)
	between "${total:-0}" 280000 520000 || problem "samples stand for ${total:-0} us, expected both threads' 400 ms +-30%"
	unsampled=$(awk '$1 == "[unsampled]" { print $2 }' "$T/sigmask.txt")
	between "${unsampled:-0}" 140000 260000 || problem "[unsampled]: ${unsampled:-none} us, expected the masked thread's 200 ms +-30%"
	finish "g. a thread blocking all signals: runs to the end, clean, main_work sampled, its time unsampled (${total:-?} us, ${unsampled:-?} unsampled)"
fi

# unblock's thread blocks every signal for 300 ms of CPU in masked_part(),
# then unblocks them and works 50 ms in unmasked_part(). The signal
# delivered at the unblocking carries ~300 timer overruns: all but what the
# kernel tick coalesces go to a "[signal blocked]" stack, so at most a few
# ms show up outside masked_part and unmasked_part.
c=$T/unblock.cap
if begin "g. CPU used with signals blocked is not charged to the unblocking frame (us outside the two parts)"; then
	cap "$c" -- "$P/unblock"
	want_rc 0
	want_out "unblock ok"
	want_clean "$c" "capture"
	want_fold "$c" "$T/unblock.txt" "stackfold"
	has "$T/unblock.txt" unmasked_part || problem "unmasked_part is not in the samples"
	python3 - "$T/unblock.txt" > "$T/unblock.sum" <<'PY'
import sys
other = 0
for line in open(sys.argv[1]):
    stack, _, v = line.rstrip("\n").rpartition(" ")
    frames = stack.split(";")
    if "unblocker" in frames and "masked_part" not in frames and "unmasked_part" not in frames:
        other += int(v)
print(other)
PY
	other=$(cat "$T/unblock.sum")
	between "${other:-0}" 0 30000 ||
		problem "$other us charged to the unblocker thread outside masked_part/unmasked_part: $(grep unblocker "$T/unblock.txt" | grep -v masked_part | tr '\n' '|' | head -c 200)"
	case $problems in
	?*) finish "g. CPU used with signals blocked is not charged to the unblocking frame: the blocked time was charged to the unblocking frame" ;;
	*) finish "g. CPU used with signals blocked is not charged to the unblocking frame (${other} us outside the two parts)" ;;
	esac
fi

# ------------------------------------------------------------- h. exec --
# stackcap -o F sh -c 'cpu_shares 0.5': the shell's capture is F (the first
# process); dash runs the command in a (v)forked child, whose exec'd image
# writes F.<pid>. With "exec" the image keeps the shell's pid: F exists, so
# it writes F.1 (open_output). --no-follow: only sh's file.
c=$T/exec.cap
if begin "h. exec, followed: sh's capture F and cpu_shares' capture (clean)"; then
	cap "$c" -- sh -c "$CPU_SHARES 0.5" # long enough for steady shares on a busy machine
	want_rc 0
	want_out 1
	info "$c"
	[ "$irc" -eq 0 ] || problem "sh's capture: info exit $irc: $(head -c 200 "$T/info.err")"
	grep -q '^command: *sh -c ' "$T/info" || problem "F's command: $(grep '^command' "$T/info")"
	files=$(cd "$T" && ls exec.cap.* 2>/dev/null)
	[ "$(echo "$files" | grep -c .)" -eq 1 ] || problem "files beside F: '$files', expected one"
	f=$T/$(echo "$files" | head -n 1)
	want_clean "$f" "cpu_shares' capture"
	grep -q "^command: *$CPU_SHARES 0.5" "$T/info" || problem "$(basename "$f")'s command: $(grep '^command' "$T/info")"
	want_fold "$f" "$T/exec.txt" "stackfold"
	got=$(folded within "$T/exec.txt" alpha 60 10 beta 30 10 gamma_ 10 10) || problem "shares: $got"
	finish "h. exec, followed: sh's capture F and cpu_shares' $(basename "$f") (clean; $got)"
fi

if begin "h. sh -c 'exec cpu_shares': same pid, the image writes F.1 (clean)"; then
	cap "$c" -- sh -c "exec $CPU_SHARES 0.2"
	want_rc 0
	info "$c"
	grep -q '^command: *sh -c exec ' "$T/info" || problem "F's command: $(grep '^command' "$T/info")"
	pid=$(head -n 1 "$T/info" | sed -n 's/.*: pid \([0-9]*\) .*/\1/p')
	[ -f "$c.1" ] || problem "no F.1: $(cd "$T" && ls exec.cap*)"
	want_clean "$c.1" "the exec'd image's capture"
	first_line_is "$c.1: pid $pid (" || problem "F.1: $(head -n 1 "$T/info"), expected the same pid ${pid:-?}"
	grep -q "^command: *$CPU_SHARES 0.2" "$T/info" || problem "F.1's command: $(grep '^command' "$T/info")"
	finish "h. sh -c 'exec cpu_shares': same pid, the image writes F.1 (clean)"
fi

if begin "h. --no-follow: only sh's capture"; then
	cap "$c" -- --no-follow sh -c "$CPU_SHARES 0.2"
	want_rc 0
	want_out 1
	[ -f "$c" ] || problem "no capture of sh"
	files=$(cd "$T" && ls exec.cap.* 2>/dev/null)
	[ -z "$files" ] || problem "--no-follow, yet: $files"
	finish "h. --no-follow: only sh's capture"
fi

# dash leaves with _exit(): its capture must still end clean.
if begin "h. sh -c 'exit 0': sh's capture ends clean"; then
	cap "$c" -- sh -c "exit 0"
	want_rc 0
	want_clean "$c" "sh's capture"
	case $problems in
	?*) finish "h. sh -c 'exit 0': sh's capture ends clean: no END chunk" ;;
	*) finish "h. sh -c 'exit 0': sh's capture ends clean" ;;
	esac
fi

# ------------------------------------------------------------ i. usage --
begin
run "$SC"
want_rc 2
want_err "no program to run"
run "$SC" --alloc -o "$T/x.cap"
want_rc 2
want_err "no program to run"
finish "i. no program: exit 2, 'no program to run'"

begin
run "$SC" -o "$T/nope.cap" "$T/no/such/program"
want_rc 127
want_err "$T/no/such/program"
want_err "No such file or directory"
[ -e "$T/nope.cap" ] && problem "a capture was written"
run "$SC" -o "$T/nope.cap" no-such-program-in-path-xyz
want_rc 127
want_err "no-such-program-in-path-xyz: command not found"
finish "i. a program that does not exist: exit 127 and a message"

# Errors about a whole file carry the tool's name, like every other error.
begin
: > "$T/empty.cap"
run "$SC" info "$T/empty.cap"
want_rc 1
want_err "stackcap: $T/empty.cap: not a stackcap capture (no STKCAP01 header)"
finish "i. stackcap info on an empty file: 'stackcap: FILE: not a stackcap capture'"

# A directory, a file that is not executable, a program only in the
# working directory: what a shell would say, and nothing is run.
begin
mkdir -p "$T/adir" && : > "$T/plain" && cp "$P/spin" "$T/here-only"
run "$SC" -o "$T/nope.cap" "$T/adir"
want_rc 126
want_err "$T/adir: is a directory, not a program"
run "$SC" -o "$T/nope.cap" "$T/plain"
want_rc 126
want_err "$T/plain: not executable"
(cd "$T" && "$SC" -o "$T/nope.cap" adir) 2> "$T/err"
rc=$?; want_rc 127
want_err "adir: command not found (here, adir is a directory)"
(cd "$T" && "$SC" -o "$T/nope.cap" here-only 0) 2> "$T/err"
rc=$?; want_rc 127
want_err "to run the one here: ./here-only"
[ -e "$T/nope.cap" ] && problem "a capture was written"
finish "i. a directory, a plain file, a program only here: 126/127 and why"

# A script with no #! line: run by /bin/sh, as execvp (and a shell) would;
# sh is the program stackcap started, so -o names its capture.
begin
printf 'echo "ran $1"\nexit 4\n' > "$T/noshebang" && chmod +x "$T/noshebang"
run "$SC" -o "$T/noshebang.cap" "$T/noshebang" arg1
want_rc 4
grep -q "^ran arg1$" "$T/out" || problem "the script did not run with its argument: $(cat "$T/out")"
[ -s "$T/noshebang.cap" ] || problem "no capture $T/noshebang.cap"
finish "i. a script with no #! line: run by /bin/sh, its status and capture"

# stackcap info and export are stackcap-read's, run in stackcap's place:
# found beside stackcap, in ../lib/flamekit as installed, or where
# STACKCAP_READ says; the launcher itself loads none of their libraries.
begin
cap "$T/read.cap" -- "$P/spin" 0.05
mkdir -p "$T/inst/bin" "$T/inst/lib/flamekit"
cp "$SC" "$T/inst/bin/" && cp "$BUILD/stackcap-read" "$BUILD/libstackcap.so" "$T/inst/lib/flamekit/"
"$T/inst/bin/stackcap" info "$T/read.cap" > "$T/info" 2> "$T/info.err" ||
	problem "installed stackcap info: $(cat "$T/info.err")"
first_line_is "$T/read.cap: pid " || problem "installed stackcap info: $(head -n 1 "$T/info")"
"$T/inst/bin/stackcap" export --chrome "$T/read.json" "$T/read.cap" 2> "$T/err" ||
	problem "installed stackcap export: $(cat "$T/err")"
[ -s "$T/read.json" ] || problem "installed stackcap export wrote nothing"
rm "$T/inst/lib/flamekit/stackcap-read"
run "$T/inst/bin/stackcap" info "$T/read.cap"
want_rc 127
want_err "stackcap-read not found beside"
run env STACKCAP_READ="$BUILD/stackcap-read" "$T/inst/bin/stackcap" info "$T/read.cap"
want_rc 0
run "$T/inst/bin/stackcap" -o "$T/inst.cap" "$P/spin" 0.05
want_rc 0
[ -s "$T/inst.cap" ] || problem "the installed launcher wrote no capture"
if command -v ldd > /dev/null; then # static, or (sanitized) libc and the sanitizers' runtime
	libs=$(ldd "$SC" 2> /dev/null | grep -e libdw -e libelf -e libz -e libcairo -e libyajl -e libpcre)
	[ -z "$libs" ] || problem "stackcap loads the readers' libraries: $libs"
fi
finish "i. stackcap info and export by stackcap-read: beside, installed, STACKCAP_READ; missing: 127"

begin
run "$SC" -F nope "$P/spin" 0
want_rc 2
want_err "-F needs a rate"
run "$SC" --alloc-sample 0 "$P/spin" 0
want_rc 2
run "$SC" --bogus "$P/spin" 0
want_rc 2
want_err "stackcap: unknown option '--bogus'"
finish "i. bad options: exit 2"

# The default name: PROGRAM.<pid>.stackcap in the working directory; the
# program's own exit status passes through.
mkdir -p "$T/def"
begin
(cd "$T/def" && "$SC" "$P/spin" 0.05 > "$T/out" 2> "$T/err")
rc=$?
want_rc 0
name=$(sed -n 's/^stackcap: wrote //p' "$T/err")
case $name in
spin.[0-9]*.stackcap) [ -f "$T/def/$name" ] || problem "$name is not there" ;;
*) problem "wrote '$name', expected spin.<pid>.stackcap" ;;
esac
run "$SC" -o "$T/x.cap" sh -c 'exit 3'
want_rc 3
finish "i. default output name spin.<pid>.stackcap; the program's exit status passes through"

# stackcap becomes the program (exec, as env does): the program has
# stackcap's pid, a signal that ends it ends stackcap, and the shim says
# where the capture went, once.
begin
"$SC" -o "$T/self.cap" sh -c 'echo $$; kill -TERM $$' > "$T/out" 2> "$T/err" &
sc=$!
wait "$sc" 2> /dev/null # no "Terminated" from this shell
rc=$?
want_rc 143
[ "$(cat "$T/out")" = "$sc" ] || problem "the program's pid is $(cat "$T/out"), stackcap's $sc"
[ -s "$T/self.cap" ] || problem "no capture of a program ended by SIGTERM"
run "$SC" -o "$T/self.cap" sh -c 'true'
want_rc 0
[ "$(grep -c '^stackcap: wrote' "$T/err")" = 1 ] || problem "said 'wrote' $(grep -c '^stackcap: wrote' "$T/err") times: $(cat "$T/err")"
want_err "stackcap: wrote $T/self.cap"
# A program that puts a file of its own on fd 2 finds no line of ours in it.
run "$SC" -o "$T/self.cap" sh -c 'exec 2> "$1"; echo data >&2' sh "$T/own_err"
want_rc 0
[ "$(cat "$T/own_err")" = data ] || problem "the program's own stderr file holds: $(head -c 200 "$T/own_err" | tr '\n' '|')"
finish "i. stackcap becomes the program: its pid, its signal (143), one 'wrote' line, none in the program's own stderr file"

# ------------------------------------------------------ j. C++ names --
# box spends its CPU time in Box<std::vector<int>>::make(double), a
# templated member function (symbol _ZN3BoxISt6vectorIiSaIiEEE4makeEd), most
# of it in Box::step, a static member inlined into it. Frames are named as
# perf shows them and stackcollapse-perf.pl keeps them: demangled, without
# the argument list; inlined frames by their demangled linkage name.
BOX_MAKE='Box<std::vector<int, std::allocator<int> > >::make'
BOX_STEP='Box<std::vector<int, std::allocator<int> > >::step'
# no_mangled FILE: no frame of FILE is a mangled C++ name.
no_mangled() {
	if grep -Eq '(^|;)_Z' "$1"; then
		problem "mangled frames: $(grep -Eo '(^|;)_Z[^; ]*' "$1" | sort -u | head -n 3 | tr '\n' ' ')"
	fi
}
if [ -z "$have_cxx" ]; then
	skip "j. C++ (box): stackfold names the templated member function demangled, no _Z frames" "g++ not found"
	skip "j. C++ (box), --inline: the inlined member demangled, under its caller" "g++ not found"
elif wanted "j. C++ (box): stackfold names the templated member function demangled, no _Z frames" \
	"j. C++ (box), --inline: the inlined member demangled, under its caller"; then
	c=$T/box.cap
	begin "j. C++ (box): stackfold names the templated member function demangled, no _Z frames"
	cap "$c" -- "$P/box" 0.3
	want_rc 0
	want_fold "$c" "$T/box.txt" "stackfold"
	has "$T/box.txt" "$BOX_MAKE" ||
		problem "no frame '$BOX_MAKE': $(sed 's/ [0-9]*$//' "$T/box.txt" | tr '\n' '|' | head -c 300)"
	grep -q '_ZN3BoxISt6vectorIiSaIiEEE4makeEd' "$T/box.txt" && problem "the mangled name is still there"
	no_mangled "$T/box.txt"
	finish "j. C++ (box): stackfold names the templated member function demangled, no _Z frames"

	begin "j. C++ (box), --inline: the inlined member demangled, under its caller"
	want_fold "$c" "$T/box_inl.txt" "--inline" --inline
	grep -Fq ";$BOX_MAKE;${BOX_STEP}_[i] " "$T/box_inl.txt" ||
		problem "no '$BOX_MAKE;${BOX_STEP}_[i]' stack: $(tr '\n' '|' < "$T/box_inl.txt" | head -c 400)"
	no_mangled "$T/box_inl.txt"
	finish "j. C++ (box), --inline: the inlined member demangled, under its caller"
fi

# ------------------------------------------------ k. flamegraph, captures --
# flamegraph reads a capture itself, folded as stackfold folds it: a clean
# one gives the very SVG of `stackfold C | flamegraph`. A damaged one (a
# flipped bit mid-file, or cut short like a killed program's) says what it
# lost on stderr, in the subtitle (a short mark, after the user's, escaped)
# and in the notes (the whole loss line); --strict makes that an error.
# svg_part FILE: the notes comment and the subtitle text of an SVG.
svg_notes() { sed -n 's/^<!-- NOTES: \(.*\) -->$/\1/p' "$1"; }
svg_subtitle() { sed -n 's/^<text id="subtitle"[^>]*>\(.*\)<\/text>$/\1/p' "$1"; }
set -- "k. flamegraph CAPTURE: the SVG of stackfold CAPTURE | flamegraph, byte for byte; quiet" \
	"k. flamegraph --metric samples CAPTURE: the SVG of stackfold --metric samples | flamegraph" \
	"k. flamegraph of a capture with a flipped bit: loss on stderr, marked in the subtitle and notes" \
	"k. flamegraph of a cut capture: no END in the notes, user subtitle kept and escaped; --strict exit 1" \
	"k. flamegraph --metric on stack text: exit 1, the metric is the capture's"
if wanted "$@"; then
	c=$T/fg_spin.cap
	"$SC" -o "$c" "$P/spin" 0.4 > /dev/null 2>&1
	begin "k. flamegraph CAPTURE: the SVG of stackfold CAPTURE | flamegraph, byte for byte; quiet"
	"$SF" "$c" 2> "$T/sf.err" | "$FG" > "$T/piped.svg" 2>> "$T/sf.err"
	run "$FG" "$c"
	want_rc 0
	[ -s "$T/out" ] || problem "no SVG"
	cmp -s "$T/out" "$T/piped.svg" || problem "the SVG differs from stackfold | flamegraph's: $(cmp "$T/out" "$T/piped.svg" 2>&1)"
	grep -q spin_here "$T/out" || problem "no spin_here frame"
	[ -s "$T/err" ] && problem "stderr: $(stderr_head)"
	case $(svg_notes "$T/out") in "") ;; *) problem "notes on a clean capture: $(svg_notes "$T/out")" ;; esac
	grep -q 'id="subtitle"' "$T/out" && problem "a subtitle on a clean capture"
	finish "k. flamegraph CAPTURE: the SVG of stackfold CAPTURE | flamegraph, byte for byte; quiet"

	begin "k. flamegraph --metric samples CAPTURE: the SVG of stackfold --metric samples | flamegraph"
	"$SF" --metric samples "$c" 2> /dev/null | "$FG" --countname samples > "$T/piped.svg" 2> /dev/null
	run "$FG" --metric samples --countname samples "$c"
	want_rc 0
	cmp -s "$T/out" "$T/piped.svg" || problem "the SVG differs from stackfold --metric samples | flamegraph's"
	finish "k. flamegraph --metric samples CAPTURE: the SVG of stackfold --metric samples | flamegraph"

	d=$T/fg_flipped.cap
	mid=$(capfile middle "$c")
	size=$(capfile flip "$c" "$d" "${mid:-1}")
	begin "k. flamegraph of a capture with a flipped bit: loss on stderr, marked in the subtitle and notes"
	run "$FG" "$d"
	want_rc 0
	want_err "fg_flipped.cap: incomplete capture: 1 damaged chunk skipped ($size bytes)"
	[ "$(svg_subtitle "$T/out")" = "incomplete capture: see notes" ] ||
		problem "subtitle '$(svg_subtitle "$T/out")'"
	[ "$(svg_notes "$T/out")" = "incomplete capture: $d: 1 damaged chunk skipped ($size bytes)" ] ||
		problem "notes '$(svg_notes "$T/out")'"
	finish "k. flamegraph of a capture with a flipped bit: loss on stderr, marked in the subtitle and notes"

	cut=$T/fg_cut.cap
	capfile cut "$c" "$cut" $(( $(wc -c < "$c") * 2 / 3 ))
	begin "k. flamegraph of a cut capture: no END in the notes, user subtitle kept and escaped; --strict exit 1"
	run "$FG" --subtitle 'run <1> & co' --notes 'my notes' "$cut"
	want_rc 0
	want_err "fg_cut.cap: incomplete capture: no END chunk"
	[ "$(svg_subtitle "$T/out")" = "run &lt;1&gt; &amp; co (incomplete capture: see notes)" ] ||
		problem "subtitle '$(svg_subtitle "$T/out")'"
	case $(svg_notes "$T/out") in
	"my notes incomplete capture: $cut: no END chunk ("*) ;;
	*) problem "notes '$(svg_notes "$T/out")'" ;;
	esac
	run "$FG" --strict "$cut"
	want_rc 1
	want_err "incomplete capture (--strict): no END chunk"
	finish "k. flamegraph of a cut capture: no END in the notes, user subtitle kept and escaped; --strict exit 1"

	begin "k. flamegraph --metric on stack text: exit 1, the metric is the capture's"
	"$SF" "$c" > "$T/fg.folded" 2> /dev/null
	run "$FG" --metric samples "$T/fg.folded"
	want_rc 1
	want_err "--metric reads stackcap captures"
	run "$FG" --metric nonsense "$c"
	want_rc 2
	finish "k. flamegraph --metric on stack text: exit 1, the metric is the capture's"
fi

# l. A capture read where its program is gone (copied off a cluster): the
# program's frames read "name+0x...", said once on stderr, and nothing is
# counted as a bad line, since nothing of the capture was skipped.
if begin "l. a capture whose program is gone: frames as name+0x..., said, no bad lines"; then
	cp "$CPU_SHARES" "$T/gone_prog"
	"$SC" -o "$T/gone.cap" "$T/gone_prog" > /dev/null 2>&1 || problem "the capture failed"
	rm -f "$T/gone_prog"
	run "$SF" "$T/gone.cap"
	want_rc 0
	want_err "gone_prog: not found; frames shown as gone_prog+0x..."
	grep -q 'bad line' "$T/err" && problem "stderr counts bad lines: $(stderr_head)"
	grep -q ';gone_prog+0x[0-9a-f]* [0-9]' "$T/out" || problem "no gone_prog+0x frame in the fold"
	finish "l. a capture whose program is gone: frames as name+0x..., said, no bad lines"
fi

done_testing
