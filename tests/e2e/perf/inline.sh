#!/bin/sh
# stackfold --inline [--context] on perf script input: stackcollapse-perf.pl
# replaces each frame by what `addr2line -a PC -e MOD -i -f -s -C` prints
# (and falls back to `nm MOD` for "func+0xOFF" frames addr2line knows
# nothing of); stackfold must give the same text without running either.
#
# A program with two levels of inlining (inline_prog.c) is built here, and
# a perf script file made with one sample per instruction of its code, so
# every address is tried. The expected output comes from the real addr2line,
# run once per address as the script runs it, joined by this script; a few
# frames are also checked against the source by hand (lines 8, 15, 21 of
# inline_prog.c). With STACKCOLLAPSE_PERF set, the script itself is run too
# (skipped without it). In the language of tests/e2e/lib.sh.
set -u
BUILD=${1:-build}
root=$(cd "$(dirname "$0")/../../.." && pwd)
here=$root/tests/e2e/perf
SF=$BUILD/stackfold
. "$root/tests/e2e/lib.sh"

for tool in cc objdump addr2line nm strip; do
	command -v $tool > /dev/null 2>&1 || skip_all "$tool is not installed"
done
cc -O2 -g -o "$T/prog" "$here/inline_prog.c" || bail_out "cannot build inline_prog.c"
prog=$T/prog

# "ADDR SYMBOL OFFSET" for every instruction of the program's own functions.
objdump -d --no-show-raw-insn "$prog" | awk '
	/^[0-9a-f]+ <[^>]+>:$/ { sym = $2; gsub(/[<>:]/, "", sym); base = strtonum("0x" $1); next }
	/^ +[0-9a-f]+:/ && sym != "" { a = $1; sub(/:$/, "", a); printf "%s %s %x\n", a, sym, strtonum("0x" a) - base }
' > "$T/insns" 2> /dev/null
if [ ! -s "$T/insns" ]; then # mawk has no strtonum: let the shell do the sums
	objdump -d --no-show-raw-insn "$prog" | awk '
		/^[0-9a-f]+ <[^>]+>:$/ { sym = $2; gsub(/[<>:]/, "", sym); base = $1; next }
		/^ +[0-9a-f]+:/ && sym != "" { a = $1; sub(/:$/, "", a); print a, sym, base }
	' | while read -r a sym base; do printf '%s %s %x\n' "$a" "$sym" $((0x$a - 0x$base)); done > "$T/insns"
fi
count=$(wc -l < "$T/insns")
[ "$count" -gt 20 ]
check "the program has code to sample ($count instructions)" $?

# One sample per instruction, leaf only, as perf script prints it.
perf_file() { # MODULE PC-PREFIX [INSNS]
	while read -r a sym off; do
		printf 'prog 1 1.000000: 1 cpu-clock:\n\t%s%s %s+0x%s (%s)\n\n' "$2" "$a" "$sym" "$off" "$1"
	done < "${3:-$T/insns}"
}
perf_file "$prog" "" > "$T/p.txt"

# The oracle: addr2line per address, the script's join, the script's sums.
expect() { # CONTEXT(0|1) MODULE [INSNS]
	while read -r a sym off; do
		frames=$(addr2line -a "$a" -e "$2" -i -f -s -C 2> /dev/null | sed 1d |
			sed 's/ (discriminator [^)]*)//' |
			awk -v ctx="$1" 'NR % 2 { f = $0; next }
				{ item = ctx ? f ":" $0 : f; out = (out == "" ? item : item ";" out) }
				END { print out }')
		case $frames in ""|"??"|"??:??:0") frames=$sym ;; esac
		echo "prog;$frames"
	done < "${3:-$T/insns}" | sort | uniq -c | awk '{ c = $1; sub(/^ *[0-9]+ /, ""); print $0, c }' |
		LC_ALL=C sort
}
# (The oracle runs addr2line once per address: only for the cases that
# ONLY leaves in.)
if wanted "--inline: addr2line's frames at each of $count addresses"; then
	expect 0 "$prog" > "$T/want"
	"$SF" --inline "$T/p.txt" | LC_ALL=C sort > "$T/got"
	cmp -s "$T/want" "$T/got"
	check "--inline: addr2line's frames at each of $count addresses" $?
fi
if wanted "--inline --context: addr2line's frames and lines at each address"; then
	expect 1 "$prog" > "$T/want_ctx"
	"$SF" --inline --context "$T/p.txt" | LC_ALL=C sort > "$T/got_ctx"
	cmp -s "$T/want_ctx" "$T/got_ctx"
	check "--inline --context: addr2line's frames and lines at each address" $?
fi

# By hand: the multiply is square() (line 8), inlined into sum_squares()
# (its call on line 15), inlined into work() (line 21).
imul=$(objdump -d --no-show-raw-insn "$prog" | sed -n '/<work>:/,/^$/p' | awk '/imul/ { sub(/:$/, "", $1); print $1; exit }')
printf 'prog 1 1.0: 7 cpu-clock:\n\t%s work+0x0 (%s)\n\n' "$imul" "$prog" > "$T/one.txt"
[ "$("$SF" --inline "$T/one.txt")" = "prog;work;sum_squares;square 7" ]
check "by hand: work;sum_squares;square for the inlined multiply" $?
[ "$("$SF" --inline --context "$T/one.txt")" = \
  "prog;work:inline_prog.c:21;sum_squares:inline_prog.c:15;square:inline_prog.c:8 7" ]
check "by hand: --context gives the call lines 21 and 15 and the line 8" $?
[ "$("$SF" --context "$T/one.txt")" = "prog;work 7" ]
check "--context alone changes nothing (as in the script)" $?

# Runtime addresses (no section there): the script looks func up in nm and
# asks again at its address plus the offset: the same frames as at the
# file address, for the functions nm lists.
nm "$prog" | awk 'NF == 3 { print $3 }' > "$T/nm"
awk 'NR == FNR { known[$1] = 1; next } known[$2]' "$T/nm" "$T/insns" > "$T/insns_nm"
perf_file "$prog" "7f00000" "$T/insns_nm" > "$T/runtime.txt"
if wanted "runtime addresses: found again through nm, func+offset"; then
	expect 0 "$prog" "$T/insns_nm" > "$T/want_rt"
	"$SF" --inline "$T/runtime.txt" | LC_ALL=C sort > "$T/got_rt"
	[ -s "$T/insns_nm" ] && cmp -s "$T/want_rt" "$T/got_rt"
	check "runtime addresses: found again through nm, func+offset" $?
fi

# A stripped copy: no DWARF, no symbols: addr2line says ?? and perf's
# names stay.
strip -o "$T/stripped" "$prog"
perf_file "$T/stripped" "" > "$T/s.txt"
if wanted "a stripped binary: perf's own names, like addr2line's ??"; then
	"$SF" "$T/s.txt" | LC_ALL=C sort > "$T/plain"
	"$SF" --inline "$T/s.txt" | LC_ALL=C sort > "$T/got_s"
	expect 0 "$T/stripped" > "$T/want_s"
	cmp -s "$T/want_s" "$T/got_s" && cmp -s "$T/plain" "$T/got_s"
	check "a stripped binary: perf's own names, like addr2line's ??" $?
fi

# A missing binary: perf's names, and one note on stderr.
perf_file "$T/gone" "" > "$T/g.txt"
"$SF" --inline "$T/g.txt" 2> "$T/err" | LC_ALL=C sort > "$T/got_g"
"$SF" "$T/g.txt" | LC_ALL=C sort > "$T/plain_g"
cmp -s "$T/plain_g" "$T/got_g" && [ "$(grep -c "$T/gone: no such file" "$T/err")" = 1 ]
check "a missing binary: perf's names, one note naming it" $?
"$SF" -q --inline "$T/g.txt" 2> "$T/err" > /dev/null
[ ! -s "$T/err" ]
check "-q: the note is not printed" $?

# Modules the script never hands to addr2line keep their names.
printf 'pp 1 1.000000: 1 cpu-clock:\n\t1 do_thing+0x1 ([kernel.kallsyms])\n\t2 vdso_x+0x2 ([vdso])\n\t3 jit_fn (/tmp/perf-12.map)\n\t4 [unknown] ([unknown])\n\n' > "$T/k.txt"
[ "$("$SF" --inline "$T/k.txt")" = "pp;[unknown];jit_fn;vdso_x;do_thing 1" ]
check "kernel, [vdso], JIT map and [unknown] modules: untouched" $?

# --lines is for captures.
"$SF" --lines "$T/one.txt" > /dev/null 2> "$T/err"
[ $? = 1 ] && grep -q -- '--lines reads captures' "$T/err"
check "--lines on perf input: a clear error" $?

pl=${STACKCOLLAPSE_PERF:-}
if [ -z "$pl" ]; then
	skip "identical to stackcollapse-perf.pl --inline [--context] on these files" "STACKCOLLAPSE_PERF is not set"
elif [ ! -f "$pl" ]; then
	skip "identical to stackcollapse-perf.pl --inline [--context] on these files" "STACKCOLLAPSE_PERF=$pl is not a file"
elif wanted "identical to stackcollapse-perf.pl --inline [--context] on these files"; then
	ok=0
	for o in "--inline" "--inline --context"; do
		for f in p.txt runtime.txt s.txt; do
			perl "$pl" $o "$T/$f" 2> /dev/null > "$T/pl"
			"$SF" -q $o "$T/$f" > "$T/c"
			cmp -s "$T/pl" "$T/c" || ok=1
		done
	done
	check "identical to stackcollapse-perf.pl --inline [--context] on these files" $ok
fi
done_testing
