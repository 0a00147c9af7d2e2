#!/bin/sh
# shellcheck disable=SC2317 # helpers are called through "$@"
# End-to-end tests of the memtimeline command, in the language of
# tests/e2e/lib.sh: one "ok N - ..." or "not ok N - ..." line per case
# (failures add "# " lines), the plan "1..N" at the end. Runs every case
# (never stops at the first failure); exits 1 if any failed.
#
# Usage (from anywhere; paths are resolved against the repo root):
#   sh tests/e2e/mem/run.sh [BUILD_DIR]      # default: build (or build-san)
#   ONLY=gzip sh tests/e2e/mem/run.sh build  # only the cases that match
#
# Inputs are torch raw memory timelines in tests/e2e/mem/data/ (*.raw.json,
# what export_memory_timeline("x.raw.json.gz") writes, uncompressed); bad
# inputs are written by this script into a temporary directory. Expected
# outputs are in tests/e2e/mem/golden/.
#
# The goldens were written BY HAND from the algorithm in
# /work/shared/specs/torch-formats.md §2 (coalesced [times, sizes], raw rows),
# not copied from memtimeline's output; golden/README says how each one was
# worked out. There is no UPDATE_GOLDEN: to change a golden, edit it by hand
# and record the check in golden/README. Coalesced and raw JSON have no
# trailing newline (torch's json.dump); all comparisons are byte for byte.
#
set -u
LC_ALL=C
export LC_ALL

if [ $# -gt 1 ]; then
	echo "usage: sh tests/e2e/mem/run.sh [BUILD_DIR]" >&2
	exit 2
fi
root=$(cd "$(dirname "$0")/../../.." && pwd) || exit 2
cd "$root" || exit 2
BUILD=$(cd "${1:-build}" 2>/dev/null && pwd) || { echo "run.sh: no build directory '${1:-build}'" >&2; exit 2; }
MT=$BUILD/memtimeline
D=$root/tests/e2e/mem/data
G=$root/tests/e2e/mem/golden
[ -x "$MT" ] || { echo "Bail out! $MT is missing (run make first)"; exit 2; }
command -v python3 >/dev/null 2>&1 || { echo "Bail out! python3 is needed"; exit 2; }
command -v gzip >/dev/null 2>&1 || { echo "Bail out! gzip is needed"; exit 2; }

. "$root/tests/e2e/lib.sh"
# want_same GOLDEN_FILE FILE WHAT: FILE is byte for byte GOLDEN_FILE.
want_same() {
	if [ ! -f "$1" ]; then
		problem "no golden file $1"
	elif [ ! -f "$2" ]; then
		problem "$3 was not written"
	elif ! cmp -s "$1" "$2"; then
		problem "$3 differs from golden $(basename "$1"):"
		problem "  got      $(head -c 150 "$2" | tr '\n' '|')"
		problem "  expected $(head -c 150 "$1" | tr '\n' '|')"
	fi
}
is_gzip() { [ "$(od -An -tx1 -N2 "$1" 2>/dev/null | tr -d ' ')" = 1f8b ]; }

# expect_golden GOLDEN DESC -- CMD...: exit 0, stdout is byte for byte
# tests/e2e/mem/golden/GOLDEN, nothing on stderr.
expect_golden() {
	skipped "$2" expect_golden "$@" && return 0
	g=$G/$1 d=$2; shift 2; sep "$1"; shift
	begin; run "$@"; want_rc 0; want_same "$g" "$T/out" stdout
	[ -s "$T/err" ] && problem "stderr is not empty: $(stderr_head)"
	finish "$d"
}
# expect_file KIND FILE GOLDEN DESC -- CMD...: exit 0, nothing on stdout,
# and CMD wrote FILE: KIND plain (not gzip) or gz (gzip data, which gunzips
# to) byte for byte golden/GOLDEN. FILE is removed first.
expect_file() {
	skipped "$4" expect_file "$@" && return 0
	k=$1 f=$2 g=$G/$3 d=$4; shift 4; sep "$1"; shift
	rm -f "$f"
	begin; run "$@"; want_rc 0; want_no_out
	if [ ! -f "$f" ]; then
		problem "$f was not written"
	elif [ "$k" = gz ]; then
		if is_gzip "$f"; then
			gzip -dc < "$f" > "$T/gunzipped" 2> /dev/null || problem "$f: gzip -d failed"
			want_same "$g" "$T/gunzipped" "$f (gunzipped)"
		else
			problem "$f is not gzip data"
		fi
	else
		is_gzip "$f" && problem "$f is gzip data, expected plain text"
		want_same "$g" "$f" "$f"
	fi
	finish "$d"
}
# expect_bad TEXT DESC -- CMD...: bad input: exit 1, TEXT on stderr, nothing
# on stdout, and no output file: CMD runs with "-o $T/never.json" added, and
# that file must not exist afterwards (neither empty nor partial).
expect_bad() {
	skipped "$2" expect_bad "$@" && return 0
	t=$1 d=$2; shift 2; sep "$1"; shift
	rm -f "$T/never.json"
	begin; run "$@" -o "$T/never.json"; want_rc 1; [ -z "$t" ] || want_err "$t"; want_no_out
	[ -e "$T/never.json" ] && problem "-o $T/never.json was created ($(wc -c < "$T/never.json") bytes)"
	finish "$d"
}
# expect_html DESC FILE -- CMD...: exit 0 and FILE ("-": stdout) is torch's
# HTML page: torch's wrapper byte for byte up to the base64 data, a PNG of
# 1600x960 (IHDR) with valid chunk CRCs ending in IEND, then "'>\n", and the
# page ends with "</body>\n</html>" (no final newline, like torch's).
expect_html() {
	skipped "$1" expect_html "$@" && return 0
	d=$1 f=$2; shift 2; sep "$1"; shift
	[ "$f" = - ] || rm -f "$f"
	begin; run "$@"; want_rc 0
	if [ "$f" = - ]; then f=$T/out; else want_no_out; fi
	if [ ! -f "$f" ]; then
		problem "$f was not written"
	else
		cp "$f" "$T/page.html"
		printf '<html>\n<head><meta charset="utf-8" /><title>GPU Memory Timeline HTML</title></head>\n<body>\n  <img src='"'"'data:image/png;base64,' > "$T/wrapper"
		head -c "$(wc -c < "$T/wrapper")" "$T/page.html" > "$T/page_head"
		cmp -s "$T/wrapper" "$T/page_head" || problem "the page does not start with torch's wrapper: $(head -c 160 "$T/page.html" | tr '\n' '|')"
		python3 - "$T/page.html" > "$T/pngcheck" 2>&1 <<'EOF' || problem "$(tail -n 1 "$T/pngcheck")"
import base64, binascii, struct, sys
page = open(sys.argv[1], 'rb').read()
lines = page.split(b'\n')
pre = b"  <img src='data:image/png;base64,"
if len(lines) < 4 or not lines[3].startswith(pre) or not lines[3].endswith(b"'>"):
    sys.exit("line 4 is not \"  <img src='data:image/png;base64,...'>\"")
png = base64.b64decode(lines[3][len(pre):-2], validate=True)
if png[:8] != b'\x89PNG\r\n\x1a\n':
    sys.exit('the image is not a PNG (signature %r)' % png[:8])
pos, chunks = 8, []
while pos < len(png):
    (ln,) = struct.unpack('>I', png[pos:pos + 4])
    kind, data = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + ln]
    (crc,) = struct.unpack('>I', png[pos + 8 + ln:pos + 12 + ln])
    if binascii.crc32(kind + data) != crc:
        sys.exit('PNG chunk %r at byte %d: bad CRC' % (kind, pos))
    chunks.append((kind, data))
    pos += 12 + ln
if not chunks or chunks[0][0] != b'IHDR' or chunks[-1][0] != b'IEND':
    sys.exit('PNG chunks do not run IHDR ... IEND: %r' % [c[0] for c in chunks])
w, h = struct.unpack('>II', chunks[0][1][:8])
if (w, h) != (1600, 960):
    sys.exit('PNG is %dx%d, expected 1600x960 (figsize 20x12 at dpi 80)' % (w, h))
if not page.endswith(b'</body>\n</html>'):
    sys.exit('the page does not end with "</body>\\n</html>" (no final newline): %r' % page[-20:])
EOF
	fi
	finish "$d"
}

# Follow-up checks on the output of the previous expect_* (lib.sh has the
# usual ones).
# then_file_golden FILE GOLDEN DESC: FILE (written by the last command) is
# byte for byte golden/GOLDEN.
then_file_golden() { selected "$3" || return 0; begin; want_same "$G/$2" "$1" "$1"; finish "$3" nosan; }
# then_html_contains TEXT DESC: the last page checked by expect_html has TEXT.
then_html_contains() {
	selected "$2" || return 0
	begin; grep -qF -- "$1" "$T/page.html" || problem "the page lacks '$1'"; finish "$2" nosan
}

# Command wrappers, usable after "--" (lib.sh has feed, pipe_in, to_full).
# fsize_limit CMD...: CMD under a 4-block file size limit, SIGXFSZ ignored,
# so writes past it fail with EFBIG (a full disk, as far as CMD can tell).
fsize_limit() { (trap '' XFSZ; ulimit -f 4 && "$@"); }

# ---------------------------------- 1. coalesced JSON, checked by hand --
# Each golden below was computed by hand from the spec's algorithm; the
# working is in tests/e2e/mem/golden/README (one section per golden).

# spec §2 "Example": the coalesced line and the raw rows are copied from the
# spec text itself.
expect_golden torch_example.json "torch's documented example: coalesced JSON as in the spec" -- "$MT" "$D/torch_example.raw.json"
expect_golden torch_example.raw.json "torch's documented example: raw rows as in the spec (--raw)" -- "$MT" --raw "$D/torch_example.raw.json"
# [] -> times = [], sizes = [] -> json.dump gives "[[], []]".
expect_golden empty.json "empty timeline [] gives [[], []]" -- "$MT" "$D/empty.raw.json"
expect_golden empty.raw.json "empty timeline, --raw gives []" -- "$MT" --raw "$D/empty.raw.json"
# two PREEXISTING rows: one row at t=-1; t_min stays -1, so times stay -1.
expect_golden preexisting_only.json "only PREEXISTING rows: one row, time stays -1" -- "$MT" "$D/preexisting_only.raw.json"
# 100 ns and 999 ns -> 0 us, 1000/1999 ns -> 1 us; t_min = 0.
expect_golden sub_us.json "events under 1000 ns: time 0 us, t_min 0" -- "$MT" "$D/sub_us.raw.json"
# same with a PREEXISTING row: its -1 becomes t_min = 0 (times [0, 0, 1]).
expect_golden sub_us_pre.json "PREEXISTING + events under 1000 ns: -1 becomes t_min 0" -- "$MT" "$D/sub_us_pre.raw.json"
# four events in the 5000 us row, coalesced to the state after the last.
expect_golden same_us.json "several events in one microsecond: one row, the state after the last" -- "$MT" "$D/same_us.raw.json"
# int(t/1000) in Python is the correctly rounded t/1000 truncated: it differs
# from t//1000 for the 1st time and from C's (double)t/1000.0 for the 2nd
# (see golden/README, with the exact fractions).
expect_golden epoch_rounding.json "epoch ns: microseconds as Python's int(t/1000), not t//1000 nor (double)t/1000.0" -- "$MT" "$D/epoch_rounding.raw.json"
# INCREMENT_VERSION GRADIENT -> OPTIMIZER_STATE: column 6 -> column 2.
expect_golden version_category.json "INCREMENT_VERSION that changes category moves the bytes" -- "$MT" "$D/version_category.raw.json"
expect_golden version_category.raw.json "INCREMENT_VERSION written back as its two raw rows (--raw)" -- "$MT" --raw "$D/version_category.raw.json"
expect_golden peak_leaks.json "hand-made 12-event timeline (multi-line input): coalesced" -- "$MT" "$D/peak_leaks.raw.json"
expect_golden peak_leaks.raw.json "hand-made 12-event timeline: --raw is the input, respaced like json.dump" -- "$MT" --raw "$D/peak_leaks.raw.json"
expect_golden peak_leaks.json "two inputs are merged in time order" -- "$MT" "$D/merge_a.raw.json" "$D/merge_b.raw.json"
expect_golden peak_leaks.json "two inputs given latest first: same timeline, no warning" -- "$MT" "$D/merge_b.raw.json" "$D/merge_a.raw.json"
expect_golden torch_example.json "--device cpu: a torch raw file holds one device, all of it is drawn" -- "$MT" --device cpu "$D/torch_example.raw.json"
expect_golden torch_example.json "--device cuda:1: same" -- "$MT" --device cuda:1 "$D/torch_example.raw.json"

# ------------------------------------- 2. suffix dispatch, as in torch --

E=$D/torch_example.raw.json
expect_file plain "$T/x.json" torch_example.json "-o x.json: coalesced JSON" -- "$MT" "$E" -o "$T/x.json"
expect_file plain "$T/x.raw.json" torch_example.json "-o x.raw.json: coalesced JSON, not raw (torch: raw only for raw.json.gz)" -- "$MT" "$E" -o "$T/x.raw.json"
expect_file gz "$T/x.json.gz" torch_example.json "-o x.json.gz: gzipped coalesced JSON" -- "$MT" "$E" -o "$T/x.json.gz"
expect_file gz "$T/x.raw.json.gz" torch_example.raw.json "-o x.raw.json.gz: gzipped raw rows" -- "$MT" "$E" -o "$T/x.raw.json.gz"
expect_file gz "$T/xraw.json.gz" torch_example.raw.json "-o xraw.json.gz: raw rows (torch tests endswith(\"raw.json.gz\"))" -- "$MT" "$E" -o "$T/xraw.json.gz"
expect_file gz "$T/x.gz" torch_example.json "-o x.gz: gzipped coalesced JSON" -- "$MT" "$E" -o "$T/x.gz"
expect_file gz "$T/x.html.gz" torch_example.json "-o x.html.gz: gzipped coalesced JSON (torch tests .html before .gz)" -- "$MT" "$E" -o "$T/x.html.gz"
expect_file plain "$T/x.HTML" torch_example.json "-o x.HTML: coalesced JSON (suffixes are case-sensitive, like endswith)" -- "$MT" "$E" -o "$T/x.HTML"
expect_html "-o x.html: torch's HTML page" "$T/x.html" -- "$MT" "$E" -o "$T/x.html"
expect_file plain "$T/r.json" torch_example.raw.json "--raw -o r.json: raw rows, plain" -- "$MT" --raw "$E" -o "$T/r.json"
expect_file gz "$T/r.gz" torch_example.raw.json "--raw -o r.gz: raw rows, gzipped" -- "$MT" --raw "$E" -o "$T/r.gz"
expect_file gz "$T/j.raw.json.gz" torch_example.json "--json -o j.raw.json.gz: coalesced JSON, gzipped" -- "$MT" --json "$E" -o "$T/j.raw.json.gz"
expect_file plain "$T/j.html" torch_example.json "--json -o j.html: coalesced JSON" -- "$MT" --json "$E" -o "$T/j.html"
expect_html "--html -o h.json: HTML whatever the name" "$T/h.json" -- "$MT" --html "$E" -o "$T/h.json"
expect_html "--html -o h.html.gz: HTML, not compressed (only JSON and raw rows are)" "$T/h.html.gz" -- "$MT" --html "$E" -o "$T/h.html.gz"
expect_html "--html: HTML on standard output" - -- "$MT" --html "$E"
expect_golden torch_example.raw.json "--raw --raw: the same format twice is fine" -- "$MT" --raw --raw "$E"
expect_golden torch_example.json "-o -: standard output" -- "$MT" "$E" -o -
expect_golden torch_example.raw.json "--raw -o -: raw rows on standard output, not gzipped" -- "$MT" --raw -o - "$E"
expect_golden peak_leaks.json "'-' reads standard input (a file)" -- feed "$D/peak_leaks.raw.json" "$MT" -
expect_golden peak_leaks.json "'-' reads standard input (a pipe)" -- pipe_in "$D/peak_leaks.raw.json" "$MT" -
gzip -c "$D/peak_leaks.raw.json" > "$T/pl.raw.json.gz"
expect_golden peak_leaks.json "gzip input file" -- "$MT" "$T/pl.raw.json.gz"
cp "$T/pl.raw.json.gz" "$T/pl_gzip_no_suffix.json"
expect_golden peak_leaks.json "gzip input without a .gz name (detected by content)" -- "$MT" "$T/pl_gzip_no_suffix.json"
expect_golden peak_leaks.json "gzip data through a pipe on '-'" -- pipe_in "$T/pl.raw.json.gz" "$MT" -
expect_file gz "$T/rt.raw.json.gz" peak_leaks.raw.json "round trip 1/3: raw -> -o rt.raw.json.gz" -- "$MT" "$D/peak_leaks.raw.json" -o "$T/rt.raw.json.gz"
expect_golden peak_leaks.json "round trip 2/3: rt.raw.json.gz read again gives the same coalesced JSON" -- "$MT" "$T/rt.raw.json.gz"
expect_golden peak_leaks.raw.json "round trip 3/3: and the same raw rows" -- "$MT" --raw "$T/rt.raw.json.gz"
expect_file gz "$T/vc.raw.json.gz" version_category.raw.json "version_category -> vc.raw.json.gz" -- "$MT" "$D/version_category.raw.json" -o "$T/vc.raw.json.gz"
expect_golden version_category.json "vc.raw.json.gz read again: same coalesced JSON" -- "$MT" "$T/vc.raw.json.gz"

# ------------------------------------------------------------- 3. HTML --

expect_html "HTML of the hand-made timeline" "$T/pl.html" -- "$MT" "$D/peak_leaks.raw.json" -o "$T/pl.html"
then_html_contains '<h2>Peak: 11.13 KiB at 0.800 ms</h2>' "HTML: the report gives the peak (11400 B at 1800 us - 1000 us)"
then_html_contains '<p>12 events: 2 PREEXISTING, 6 CREATE, 0 INCREMENT_VERSION, 4 DESTROY, over 2.500 ms.</p>' "HTML: the report counts the events"
then_html_contains '<tr class="total"><td>total</td><td class="n">11.13 KiB</td><td></td><td class="n">3.66 KiB</td></tr>' "HTML: totals at the peak and at the end"
# No input text reaches the page (raw rows hold only integers); still, the
# report's text between tags must hold no stray '<' or '>'.
begin
sed -n '/^<section id="flamekit-report">$/,/^<\/section>$/p' "$T/page.html" | sed 's/<[a-z/][^<>]*>//g' > "$T/report_text"
[ -s "$T/page.html" ] && ! grep -q '<section id="flamekit-report">' "$T/page.html" && problem "no report section"
grep -n '[<>]' "$T/report_text" > "$T/stray" && problem "stray '<' or '>' in the report text: $(head -n 2 "$T/stray" | tr '\n' '|')"
finish "HTML: no stray '<' or '>' in the report text" nosan
expect_html "HTML of an empty timeline" "$T/empty.html" -- "$MT" "$D/empty.raw.json" -o "$T/empty.html"
then_html_contains '<h2>Peak: 0 B before the first event</h2>' "HTML of an empty timeline: peak 0 B"
expect_html "HTML of a PREEXISTING-only timeline (every time -1)" "$T/pre.html" -- "$MT" "$D/preexisting_only.raw.json" -o "$T/pre.html"
then_html_contains '<h2>Peak: 300 B before the first event</h2>' "HTML of a PREEXISTING-only timeline: peak 300 B"

# ------------------------------------- 4. --summary, --peak-stacks, --leaks --
# peak_leaks.raw.json: peak 11400 B right after the CREATE at 1800000 ns
# (golden/README has the running totals); leaks: INPUT 2000 + GRADIENT 700 +
# Unknown 50 created and never destroyed.

expect_golden peak_leaks.summary.txt "--summary of the hand-made timeline" -- "$MT" --summary "$D/peak_leaks.raw.json"
expect_golden peak_leaks.peak.txt "--peak-stacks: live bytes at the peak, one folded line per category" -- "$MT" --peak-stacks "$D/peak_leaks.raw.json"
expect_golden peak_leaks.leaks.txt "--leaks: created and still live at the end" -- "$MT" --leaks "$D/peak_leaks.raw.json"
rm -f "$T/peak.txt"
expect_stdout 0 "" "--peak-stacks=FILE alone: nothing on standard output (the timeline is not asked for)" -- "$MT" --peak-stacks="$T/peak.txt" "$D/peak_leaks.raw.json"
then_file_golden "$T/peak.txt" peak_leaks.peak.txt "--peak-stacks=FILE: FILE holds the peak stacks"
rm -f "$T/peak.txt"
expect_golden peak_leaks.json "--peak-stacks=FILE --json: the timeline on standard output" -- "$MT" --peak-stacks="$T/peak.txt" --json "$D/peak_leaks.raw.json"

# The peak as a flame graph in the timeline's colours: every frame under a
# category in that category's colour over white (red for ACTIVATION: r 255,
# g = b), bytes shown in MiB with the exact count.
begin
printf 'ACTIVATION;forward;relu 6332420\nPARAMETER;init 2648104\nelsewhere 1000\n' |
	"$BUILD/flamegraph" --colors torchmem --bytes > "$T/mem.svg" 2> "$T/err"
rc=$?; want_rc 0
python3 - "$T/mem.svg" > "$T/colours" 2>&1 <<'EOF2' || problem "$(tail -n 3 "$T/colours")"
import re, sys
svg = open(sys.argv[1]).read()
frames = dict(re.findall(r'<title>([^ <]+) \([^<]*</title><rect [^>]*fill="rgb\((\d+,\d+,\d+)\)"', svg))
def rgb(name): return tuple(int(x) for x in frames[name].split(','))
for name in ('ACTIVATION', 'forward', 'relu'):
    r, g, b = rgb(name)
    assert r == 255 and g == b and g > 60, (name, r, g, b)   # red over white
for name in ('PARAMETER', 'init'):
    r, g, b = rgb(name)
    assert r == b and g > r, (name, r, g, b)                 # darkgreen over white
assert rgb('relu') != rgb('ACTIVATION'), 'deeper frames are fainter'
r, g, b = rgb('elsewhere')
assert r == 0, ('no category: the mem palette', r, g, b)
assert 'ACTIVATION (6.04 MiB = 6,332,420 bytes, ' in svg, 'MiB in the tooltip'
assert 'elsewhere (1,000 bytes, ' in svg, 'small counts stay in bytes'
EOF2
finish "flamegraph --colors torchmem --bytes: category colours of the plot, MiB tooltips with exact bytes"
then_file_golden "$T/peak.txt" peak_leaks.peak.txt "--peak-stacks=FILE --json: FILE holds the peak stacks"
rm -f "$T/s.txt" "$T/l.txt" "$T/o.json"
expect_exit 0 "--summary=FILE --leaks=FILE -o FILE: all to files" -- "$MT" --summary="$T/s.txt" --leaks="$T/l.txt" -o "$T/o.json" "$D/peak_leaks.raw.json"
then_stdout_empty "all to files: standard output is empty"
then_file_golden "$T/s.txt" peak_leaks.summary.txt "--summary=FILE written"
then_file_golden "$T/l.txt" peak_leaks.leaks.txt "--leaks=FILE written"
then_file_golden "$T/o.json" peak_leaks.json "-o FILE written alongside"
expect_golden peak_leaks.summary.txt "--summary=- is standard output" -- "$MT" --summary=- "$D/peak_leaks.raw.json"
expect_golden torch_example.peak.txt "torch's example: peak stacks (5376 B at 1000900 ns)" -- "$MT" --peak-stacks "$E"
expect_golden torch_example.leaks.txt "torch's example: the mutated PREEXISTING parameter is not a leak" -- "$MT" --leaks "$E"
expect_stdout_contains 0 "peak:      5.25 KiB (5376 bytes) at 0.000 ms" "torch's example: summary peak" -- "$MT" --summary "$E"
# same_us: 300 B live for 100 ns inside the 5000 us row; the coalesced rows
# (torch's plot) never show more than 250 B, the peak is taken per event time.
expect_golden same_us.peak.txt "peak inside one microsecond: taken per ns, not per coalesced row" -- "$MT" --peak-stacks "$D/same_us.raw.json"
expect_golden version_category.leaks.txt "a leak that changed category is reported in its last category" -- "$MT" --leaks "$D/version_category.raw.json"
expect_golden preexisting_only.peak.txt "PREEXISTING-only: peak stacks are the pre-existing bytes" -- "$MT" --peak-stacks "$D/preexisting_only.raw.json"
expect_stdout 0 "" "PREEXISTING-only: no leaks (nothing was created)" -- "$MT" --leaks "$D/preexisting_only.raw.json"
expect_stdout_contains 0 "peak:      300 B (300 bytes) before the first event" "PREEXISTING-only: summary says before the first event" -- "$MT" --summary "$D/preexisting_only.raw.json"
expect_stdout_contains 0 "peak:      0 B (0 bytes) before the first event" "empty timeline: summary peak 0 B" -- "$MT" --summary "$D/empty.raw.json"
expect_stdout 0 "" "empty timeline: no peak stacks" -- "$MT" --peak-stacks "$D/empty.raw.json"
expect_usage "only one output can go to standard output" "--summary --peak-stacks: two outputs on stdout" -- "$MT" --summary --peak-stacks "$E"
expect_usage "only one output can go to standard output" "--peak-stacks --leaks: two outputs on stdout" -- "$MT" --peak-stacks --leaks "$E"
expect_usage "only one output can go to standard output" "--summary --json: the timeline and the summary on stdout" -- "$MT" --summary --json "$E"
expect_usage "only one output can go to standard output" "--summary -o -: two outputs on stdout" -- "$MT" --summary -o - "$E"
expect_usage "only one output can go to standard output" "--leaks=- --summary: two outputs on stdout" -- "$MT" --leaks=- --summary "$E"

# ------------------------------------------------------- 5. bad input --
# Every case runs with "-o $T/never.json" (expect_bad) and checks that the
# file is not created. Messages are "FILE: event N: reason" (N counts rows
# from 1), "FILE: byte N: malformed JSON (...)" for syntax errors.

w() { printf '%s' "$2" > "$T/$1"; } # w NAME TEXT: writes an input file
w trunc.json '[[1, 2, 3, 4], [2, 2'
expect_bad "trunc.json: byte 20: malformed JSON (parse error: premature EOF)" "malformed JSON: truncated" -- "$MT" "$T/trunc.json"
w garbage.json '[[1, 2, 3, 4]] x'
expect_bad "garbage.json: byte 16: malformed JSON (parse error: trailing garbage)" "malformed JSON: trailing garbage" -- "$MT" "$T/garbage.json"
w twolists.json '[[1, 2, 3, 4]] []'
expect_bad "twolists.json: byte 16: malformed JSON" "malformed JSON: a second list after the first" -- "$MT" "$T/twolists.json"
w object.json '{"rows": []}'
expect_bad "object.json: not a torch raw memory timeline: a JSON object where the list of rows should start" "not a list: a JSON object" -- "$MT" "$T/object.json"
w number.json '5'
expect_bad "number.json: not a torch raw memory timeline: a number" "not a list: a number" -- "$MT" "$T/number.json"
w flat.json '[1, 2, 3, 4]'
expect_bad "flat.json: event 1: 1 where a row was expected" "not a list of rows: a flat list" -- "$MT" "$T/flat.json"
expect_bad "torch_example.json: event 1: a row has 3 values, expected 4" "a coalesced [times, sizes] file is refused (its times read as row 1)" -- "$MT" "$G/torch_example.json"
w nested.json '[[[1000], [0, 1, 0, 0, 0, 0, 0, 0, 0]]]'
expect_bad "nested.json: event 1: a list inside a row" "a list inside a row" -- "$MT" "$T/nested.json"
w string.json '[[1, 2, 3, 4], [1, 2, "3", 4]]'
expect_bad "string.json: event 2: a string in a row (rows hold 4 integers)" "a string in a row" -- "$MT" "$T/string.json"
w null.json '[[1, 2, null, 4]]'
expect_bad "null.json: event 1: a null in a row" "a null in a row" -- "$MT" "$T/null.json"
w float.json '[[1, 2, 3.5, 4]]'
expect_bad "float.json: event 1: 3.5 is not an integer" "a float in a row" -- "$MT" "$T/float.json"
w floatint.json '[[1.0, 2, 3, 4]]'
expect_bad "floatint.json: event 1: " "an integral float (1.0) in a row" -- "$MT" "$T/floatint.json"
then_stderr_contains "is not an integer" "an integral float: 'is not an integer'"
w three.json '[[1, 2, 3, 4], [1, 2, 3]]'
expect_bad "three.json: event 2: a row has 3 values, expected 4" "a row with 3 values" -- "$MT" "$T/three.json"
w five.json '[[1, 2, 3, 4, 5]]'
expect_bad "five.json: event 1: a row has more than 4 values" "a row with 5 values" -- "$MT" "$T/five.json"
w emptyrow.json '[[]]'
expect_bad "emptyrow.json: event 1: a row has 0 values" "an empty row" -- "$MT" "$T/emptyrow.json"
w act0.json '[[1, 2, 3, 4], [2, 0, 3, 4]]'
expect_bad "act0.json: event 2: unknown action 0" "unknown action 0" -- "$MT" "$T/act0.json"
w act5.json '[[1, 5, 3, 4]]'
expect_bad "act5.json: event 1: unknown action 5" "unknown action 5" -- "$MT" "$T/act5.json"
w catm1.json '[[1, 2, 3, -1]]'
expect_bad "catm1.json: event 1: unknown category -1" "unknown category -1" -- "$MT" "$T/catm1.json"
w cat8.json '[[1, 2, 3, 8]]'
expect_bad "cat8.json: event 1: unknown category 8" "unknown category 8" -- "$MT" "$T/cat8.json"
w negcreate.json '[[1, 2, -3, 4]]'
expect_bad "negcreate.json: event 1: CREATE with a negative size (-3)" "CREATE with a negative size" -- "$MT" "$T/negcreate.json"
w negpre.json '[[-1, 1, -3, 4]]'
expect_bad "negpre.json: event 1: PREEXISTING with a negative size (-3)" "PREEXISTING with a negative size" -- "$MT" "$T/negpre.json"
w posdestroy.json '[[1, 2, 3, 4], [2, 4, 3, 4]]'
expect_bad "posdestroy.json: event 2: DESTROY with a positive size (3" "DESTROY with a positive size" -- "$MT" "$T/posdestroy.json"
w ivalone.json '[[1, 3, -3, 4], [2, 2, 3, 4]]'
expect_bad "ivalone.json: event 2: CREATE after the first row of an INCREMENT_VERSION pair" "INCREMENT_VERSION first row without its second (another row follows)" -- "$MT" "$T/ivalone.json"
w ivend.json '[[1, 2, 3, 4], [1, 3, -3, 4]]'
expect_bad "ivend.json: event 3: the input ends inside an INCREMENT_VERSION pair" "INCREMENT_VERSION first row at the end of the input" -- "$MT" "$T/ivend.json"
w ivbytes.json '[[1, 3, -3, 4], [1, 3, 4, 4]]'
expect_bad "ivbytes.json: event 2: INCREMENT_VERSION second row [1, 3, 4, ...] does not match the first [1, 3, -3, ...]" "INCREMENT_VERSION pair: sizes do not match" -- "$MT" "$T/ivbytes.json"
w ivtime.json '[[1, 3, -3, 4], [2, 3, 3, 4]]'
expect_bad "ivtime.json: event 2: INCREMENT_VERSION second row [2, 3, 3, ...] does not match the first [1, 3, -3, ...]" "INCREMENT_VERSION pair: times do not match" -- "$MT" "$T/ivtime.json"
w ivpos.json '[[1, 3, 3, 4], [1, 3, -3, 4]]'
expect_bad "ivpos.json: event 1: INCREMENT_VERSION pair starts with a positive size" "INCREMENT_VERSION pair in the wrong order (+ then -)" -- "$MT" "$T/ivpos.json"
w ivcount.json '[[1, 2, 5, 3], [2, 3, -5, 3], [2, 3, 5, 4], [3, 4, -5, 4], [4, 9, 1, 1]]'
expect_bad "ivcount.json: event 5: unknown action 9" "event numbers count both rows of an INCREMENT_VERSION" -- "$MT" "$T/ivcount.json"
w tm1.json '[[-1, 2, 3, 4]]'
expect_bad "tm1.json: event 1: CREATE at time -1 (only PREEXISTING rows have no time)" "time -1 on a CREATE" -- "$MT" "$T/tm1.json"
w tm5.json '[[-5, 1, 3, 4]]'
expect_bad "tm5.json: event 1: negative time -5" "time -5" -- "$MT" "$T/tm5.json"
w huge.json '[[1, 2, 9223372036854775808, 4]]'
expect_bad "huge.json: event 1: 9223372036854775808 is out of range for 64 bits" "a size past 2^63-1" -- "$MT" "$T/huge.json"
w ovf.json '[[1000, 2, 9223372036854775807, 3], [2000, 2, 1, 3]]'
expect_bad "ovf.json: event 2: live bytes do not fit in 64 bits" "live bytes past 2^63-1: error" -- "$MT" "$T/ovf.json"
w ovftotal.json '[[1000, 2, 9223372036854775807, 3], [2000, 2, 1, 4]]'
expect_bad "ovftotal.json: event 2:" "the total of two categories past 2^63-1: error" -- "$MT" "$T/ovftotal.json"
w empty.json ''
expect_bad "memtimeline: $T/empty.json: empty input" "empty file" -- "$MT" "$T/empty.json"
expect_bad "memtimeline: <stdin>: empty input" "empty standard input" -- feed "$T/empty.json" "$MT" -
w blank.json '  
'
expect_bad "blank.json: byte " "file of blanks: malformed JSON" -- "$MT" "$T/blank.json"
expect_bad "<stdin>: event 2: a string in a row" "bad row on standard input is reported as <stdin>" -- pipe_in "$T/string.json" "$MT" -
mkdir "$T/adir"
expect_bad "adir: is a directory" "a directory" -- "$MT" "$T/adir"
expect_bad "nosuch.json: No such file or directory" "a missing file" -- "$MT" "$T/nosuch.json"
gzip -c "$D/peak_leaks.raw.json" > "$T/whole.gz"
head -c 40 "$T/whole.gz" > "$T/cut.gz"
expect_bad "cut.gz: truncated gzip data" "a truncated .gz" -- "$MT" "$T/cut.gz"
head -c $(($(wc -c < "$T/whole.gz") - 4)) "$T/whole.gz" > "$T/notrailer.gz"
expect_bad "notrailer.gz: truncated gzip data" "a .gz without its trailer (the JSON inside is complete)" -- "$MT" "$T/notrailer.gz"
expect_bad "<stdin>: truncated gzip data" "a truncated .gz on standard input" -- pipe_in "$T/cut.gz" "$MT" -
{ cat "$T/whole.gz"; echo junk; } > "$T/junk.gz"
expect_bad "junk.gz: trailing garbage after gzip data" "a .gz with trailing garbage" -- "$MT" "$T/junk.gz"
expect_bad "three.json: event 2:" "a bad second input: nothing written" -- "$MT" "$D/peak_leaks.raw.json" "$T/three.json"
expect_bad "three.json: event 2:" "bad input with --html and --summary=FILE: nothing written" -- "$MT" --html "$T/three.json" --summary="$T/never_summary.txt"
begin; [ -e "$T/never_summary.txt" ] && problem "--summary=FILE was created"; finish "bad input: --summary=FILE not created either" nosan
printf 'old' > "$T/keep.json"
expect_exit 1 "bad input with -o an existing file" -- "$MT" "$T/three.json" -o "$T/keep.json"
begin; [ "$(cat "$T/keep.json")" = old ] || problem "keep.json was changed to '$(head -c 60 "$T/keep.json")'"; finish "bad input: an existing -o file is left as it was" nosan

# Write errors.
expect_stderr_contains 1 "<stdout>: write error" "write error on standard output (/dev/full): exit 1" -- to_full "$MT" "$E"
expect_stderr_contains 1 "<stdout>: write error" "write error on standard output, --html: exit 1" -- to_full "$MT" --html "$E"
expect_stderr_contains 1 "<stdout>: write error" "write error on standard output, --summary: exit 1" -- to_full "$MT" --summary "$E"
ln -s /dev/full "$T/full.raw.json.gz"
expect_stderr_contains 1 "full.raw.json.gz: write error" "write error on a gzipped -o: exit 1" -- "$MT" "$E" -o "$T/full.raw.json.gz"
expect_stderr_contains 1 "No such file or directory" "-o in a missing directory: exit 1" -- "$MT" "$E" -o "$T/nodir/x.json"
python3 -c 'import json; print(json.dumps([[1000 * i, 2, 8, i % 8] for i in range(1, 3001)]))' > "$T/big.raw.json"
rm -f "$T/fsz.json" "$T/fsz.html"
expect_stderr_contains 1 "fsz.json: write error: File too large" "write error (file size limit) on -o x.json: exit 1" -- fsize_limit "$MT" "$T/big.raw.json" -o "$T/fsz.json"
# A write error leaves no partial output file (outputs appear complete or
# not at all: formats/outfile.h).
begin; [ -e "$T/fsz.json" ] && problem "a partial $T/fsz.json ($(wc -c < "$T/fsz.json") bytes) is left behind"; finish "write error on -o x.json: no partial file left behind" nosan
expect_stderr_contains 1 "fsz.html: write error: File too large" "write error (file size limit) on -o x.html: exit 1" -- fsize_limit "$MT" "$T/big.raw.json" -o "$T/fsz.html"
begin; [ -e "$T/fsz.html" ] && problem "a partial $T/fsz.html ($(wc -c < "$T/fsz.html") bytes) is left behind"; finish "write error on -o x.html: no partial file left behind" nosan

# Warnings: counted, reported, and the timeline still written.
expect_stderr_contains 0 "out_of_order.raw.json: 2 events out of time order; sorted by (time, action)" "events out of time order: exit 0, a warning" -- "$MT" "$D/out_of_order.raw.json"
then_stderr_contains "memtimeline: 1 warning" "events out of time order: counted as 1 warning"
begin; want_same "$G/out_of_order.json" "$T/out" stdout; finish "events out of time order: output as for the sorted input (by hand)" nosan
expect_golden out_of_order.json "the sorted input: same output, no warning" -- "$MT" "$D/out_of_order_sorted.raw.json"
expect_golden out_of_order.raw.json "events out of time order, --raw: rows sorted by (time, action)" -- "$MT" -q --raw "$D/out_of_order.raw.json"
expect_bad "out_of_order.raw.json: 2 events out of time order" "--strict: events out of time order are an error" -- "$MT" --strict "$D/out_of_order.raw.json"
expect_golden out_of_order.json "-q: events out of time order, nothing on stderr" -- "$MT" -q "$D/out_of_order.raw.json"
expect_stderr_contains 0 "not_live.raw.json: event 2: DESTROY of 7 bytes (TEMPORARY) that are not live" "DESTROY of bytes never created: exit 0, a warning" -- "$MT" "$D/not_live.raw.json"
then_stderr_contains "not_live.raw.json: event 4: DESTROY of 5 bytes (TEMPORARY) that are not live" "second DESTROY of the same bytes: not live"
then_stderr_contains "not_live.raw.json: event 5: INCREMENT_VERSION of 9 bytes (OPTIMIZER_STATE) that are not live" "INCREMENT_VERSION of bytes never created: not live"
then_stderr_lacks "event 3:" "the DESTROY of live bytes is not reported"
then_stderr_contains "memtimeline: 3 warnings" "not live: 3 warnings counted"
begin; want_same "$G/not_live.json" "$T/out" stdout; finish "not live: the timeline is kept as torch would (negative sizes)" nosan
expect_stdout_contains 0 "warnings:  3" "-q --summary: warnings still counted" -- "$MT" -q --summary "$D/not_live.raw.json"
then_stderr_empty "-q: nothing on stderr"
expect_bad "not_live.raw.json: event 2: DESTROY of 7 bytes (TEMPORARY) that are not live" "--strict: DESTROY of bytes never created is an error" -- "$MT" --strict "$D/not_live.raw.json"
then_stderr_lacks "event 4:" "--strict: stops at the first warning"
expect_bad "" "--strict -q: still exit 1, no output" -- "$MT" --strict -q "$D/not_live.raw.json"
then_stderr_empty "--strict -q: nothing on stderr"
w many.json '[[1000, 2, 5, 3], [2000, 4, -7, 3], [3000, 4, -7, 3], [4000, 4, -7, 3], [5000, 4, -7, 3], [6000, 4, -7, 3], [7000, 4, -7, 3], [8000, 4, -7, 3]]'
expect_stderr_contains 0 "memtimeline: 7 warnings (the first 5 shown)" "7 warnings: the first 5 shown, all counted" -- "$MT" "$T/many.json"
then_lines err '^.*many\.json: event [0-9]+: DESTROY' 5 "7 warnings: 5 lines shown"
w first.json '[[1000, 2, 5, 3], [2000, 2, 6, 3]]'
w second.json '[[3000, 4, -5, 3], [4000, 4, -9, 3]]'
expect_stderr_contains 0 "second.json: event 2: DESTROY of 9 bytes (TEMPORARY) that are not live" "a warning in the second input names it, rows counted from its start" -- "$MT" "$T/first.json" "$T/second.json"
w disorder.json '[[2000, 2, 5, 3], [1000, 4, -7, 3]]'
expect_stderr_contains 0 "disorder.json: 1 event out of time order" "out of order and not live: exit 0" -- "$MT" "$T/disorder.json"
# Warnings after sorting still name the file and the row as read.
then_lines err '^[^ ]*disorder\.json: .*DESTROY of 7 bytes \(TEMPORARY\) that are not live' 1 "out of order and not live: the warning names the file"

# A failing second output: the timeline was already written to -o FILE when
# --summary=FILE cannot be opened (exit 1; FILE stays, complete).
expect_stderr_contains 1 "nodir/s.txt: No such file or directory" "--summary=FILE in a missing directory: exit 1" -- "$MT" "$E" -o "$T/first.json" --summary="$T/nodir/s.txt"

# ------------------------------ 5b. large files: the parallel reader --
# Plain files of 16 MiB or more are parsed in parts, in parallel; the result
# and the error messages must be those of one sequential parse. gen_big
# writes ~18 MB: 650,000 events, every 7th an INCREMENT_VERSION pair (never
# split between parts), in json.dump spacing. With FLAMEKIT_THREADS=2 the
# file is split before row 371430 (the first non-INCREMENT_VERSION row after
# the middle byte), so LATE_ROW 371430 puts an out-of-order event right at
# the part boundary.
gen_big() { # gen_big BAD_ROW LATE_ROW (0: none)
	awk -v bad="$1" -v late="$2" 'BEGIN {
		printf "["; t = 1000000000; r = 0
		for (i = 1; i <= 650000; i++) {
			t += 777; c = i % 8; sep = r ? ", " : ""
			if (i % 7 == 0) {
				printf "%s[%d, 3, -64, %d], [%d, 3, 64, %d]", sep, t, c, t, (c + 1) % 8; r += 2
			} else if (r + 1 == bad) {
				printf "%s[%d, 2, 64, 9]", sep, t; r++
			} else if (r + 1 == late) {
				printf "%s[%d, 2, 64, %d]", sep, t - 5000, c; r++
			} else {
				printf "%s[%d, %d, %d, %d]", sep, t, i % 3 ? 2 : 4, i % 3 ? 64 : -64, c; r++
			}
		}
		printf "]"
	}'
}
with_threads() { n_threads=$1; shift; FLAMEKIT_THREADS=$n_threads "$@"; } # with_threads N CMD...
gen_big 0 0 > "$T/big.raw.json"
expect_exit 0 "large file, one thread (reference)" -- with_threads 1 "$MT" -q "$T/big.raw.json"
keep "$T/big1.json"
expect_exit 0 "large file, 4 threads" -- with_threads 4 "$MT" -q "$T/big.raw.json"
begin; cmp -s "$T/big1.json" "$T/out" || problem "coalesced JSON differs from the one-thread run"; finish "large file: 4 threads give the one-thread coalesced JSON" nosan
expect_exit 0 "large file, 4 threads, --raw" -- with_threads 4 "$MT" -q --raw "$T/big.raw.json"
begin; cmp -s "$T/big.raw.json" "$T/out" || problem "raw rows differ from the input"; finish "large file: --raw gives back the input byte for byte" nosan
gen_big 600001 0 > "$T/bigbad.raw.json"
expect_bad "bigbad.raw.json: event 600001: unknown category 9" "large file, 4 threads: a bad row deep inside, its row number" -- with_threads 4 "$MT" "$T/bigbad.raw.json"
gen_big 0 371430 > "$T/biglate.raw.json"
expect_stderr_contains 0 "biglate.raw.json: 1 event out of time order" "large file, 2 threads: an out-of-order event at the part boundary is counted once" -- with_threads 2 "$MT" --raw "$T/biglate.raw.json"
keep "$T/biglate2.json"
expect_stderr_contains 0 "biglate.raw.json: 1 event out of time order" "large file, one thread: the same warning" -- with_threads 1 "$MT" --raw "$T/biglate.raw.json"
begin; cmp -s "$T/biglate2.json" "$T/out" || problem "sorted raw rows differ between 2 threads and 1"; finish "large file: same sorted rows with 2 threads and 1" nosan

# --------------------------------------------------- 6. usage errors --

expect_usage "no input" "no input" -- "$MT"
expect_usage "no input" "no input, options only" -- "$MT" --summary -q
expect_usage "--device: 'gpu' is not cpu, cuda or cuda:N" "--device gpu" -- "$MT" --device gpu "$E"
expect_usage "--device: 'cuda:x' is not cpu, cuda or cuda:N" "--device cuda:x" -- "$MT" --device cuda:x "$E"
expect_usage "--device: 'cuda:' is not" "--device cuda:" -- "$MT" --device cuda: "$E"
expect_usage "--html, --json and --raw exclude each other" "--html with --raw" -- "$MT" --html --raw "$E"
expect_usage "--html, --json and --raw exclude each other" "--json with --raw" -- "$MT" --json --raw "$E"
expect_usage "memtimeline: unknown option '--nosuch'" "unknown option" -- "$MT" --nosuch "$E"
then_stderr_lacks "unrecognized" "an unknown option is said once (not getopt's line too)"
expect_usage "memtimeline: option '-o' needs a value" "-o without its argument" -- "$MT" "$E" -o
expect_stdout_contains 0 "Usage: memtimeline" "--help: exit 0, usage on stdout" -- "$MT" --help
expect_stdout_contains 0 "memtimeline (flamekit)" "--version: exit 0" -- "$MT" --version

done_testing
