#!/usr/bin/env python3
"""Independent Python reference for `memtimeline` (PyTorch memory timeline).

Input: a "raw timeline", i.e. the JSON list torch writes to *.raw.json.gz:
one row [t_ns, action, signed_bytes, category_index] per event, where
action is 1..4 (PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY) and
category_index is 0..7 in torch's _CATEGORY_TO_INDEX order (7 = Unknown).
An INCREMENT_VERSION event is two consecutive rows with the same t and
action 3: (-n, category before) then (+n, category after).

From the rows this rebuilds torch's timeline tuples and re-runs, statement
for statement, what torch/profiler/_memory_profiler.py does in
MemoryProfileTimeline._coalesce_timeline + export_memory_timeline (the
coalesced [times, sizes] JSON) and export_memory_timeline_raw (the raw rows).
Python's own json.dumps is the layout reference, and Python's own
int(t / 1000) (a correctly rounded int/int true division, then truncation) is
the ns -> us conversion, exactly as in torch.

Usage:
  reference.py coalesce IN.raw.json[.gz]   > OUT.json      (no trailing newline)
  reference.py raw      IN.raw.json[.gz]   > OUT.raw.json  (no trailing newline)
  reference.py selftest
  reference.py check INDIR OUTDIR          (used by compare.sh; TAP on stdout)
Inputs may be gzipped (detected by the 1f 8b magic bytes, not the name).
"""

import gzip
import json
import os
import sys

PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY = 1, 2, 3, 4
ACTIONS = (PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY)
# _CATEGORY_TO_INDEX order (the order of torch's _CATEGORY_TO_COLORS dict).
CATEGORY_NAMES = ("PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY",
                  "ACTIVATION", "GRADIENT", "AUTOGRAD_DETAIL", "Unknown")
NCAT = len(CATEGORY_NAMES)  # 8


# ----------------------------------------------------------------- reading

def read_bytes(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


def _no_float(s):
    raise ValueError("non-integer number %r" % s)


def _no_constant(s):
    raise ValueError("non-JSON constant %r" % s)


def parse_rows(data):
    """JSON text/bytes -> list of [t, action, signed_bytes, cat] int rows."""
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    rows = json.loads(data, parse_float=_no_float, parse_constant=_no_constant)
    if not isinstance(rows, list):
        raise ValueError("top level is not a JSON list")
    for i, r in enumerate(rows):
        if (not isinstance(r, list) or len(r) != 4
                or any(type(v) is not int for v in r)):
            raise ValueError("row %d is not a list of 4 integers: %r" % (i, r))
        if r[1] not in ACTIONS:
            raise ValueError("row %d: unknown action %d" % (i, r[1]))
        if not 0 <= r[3] < NCAT:
            raise ValueError("row %d: category index %d out of range" % (i, r[3]))
    return rows


def load_rows(path):
    return parse_rows(read_bytes(path))


# -------------------------------------------------- rows <-> timeline tuples

def rows_to_timeline(rows):
    """Raw rows -> torch timeline tuples (t, action, n, cat_before, cat_after).

    n is the positive byte count (torch's `numbytes`); cat_before is the
    category index of (key, version), cat_after that of (key, version + 1)
    (only meaningful for INCREMENT_VERSION; equal to cat_before otherwise).
    """
    out = []
    i = 0
    while i < len(rows):
        t, a, b, c = rows[i]
        if a in (PREEXISTING, CREATE):
            if b < 0:
                raise ValueError("row %d: negative bytes for action %d" % (i, a))
            out.append((t, a, b, c, c))
            i += 1
        elif a == DESTROY:
            if b > 0:
                raise ValueError("row %d: positive bytes for DESTROY" % i)
            out.append((t, a, -b, c, c))
            i += 1
        else:  # INCREMENT_VERSION: two rows
            if i + 1 >= len(rows):
                raise ValueError("row %d: INCREMENT_VERSION without its second row" % i)
            t2, a2, b2, c2 = rows[i + 1]
            if a2 != INCREMENT_VERSION or t2 != t or b > 0 or b2 != -b:
                raise ValueError("rows %d,%d: not an INCREMENT_VERSION pair" % (i, i + 1))
            out.append((t, a, b2, c, c2))
            i += 2
    return out


def validate_timeline(timeline):
    """Semantic validity (used to check the generator): sorted by (t, action),
    PREEXISTING only at t=-1 and other events at t>=0, and every DESTROY /
    INCREMENT_VERSION matches a live (bytes, category) allocation."""
    live = {}
    prev = None
    for k, (t, a, n, cb, ca) in enumerate(timeline):
        if (a == PREEXISTING) != (t == -1):
            raise ValueError("event %d: PREEXISTING iff t == -1 violated" % k)
        if t < -1:
            raise ValueError("event %d: t < -1" % k)
        if prev is not None and (t, a) < prev:
            raise ValueError("event %d: not sorted by (t, action)" % k)
        prev = (t, a)
        if a in (PREEXISTING, CREATE):
            live[(n, cb)] = live.get((n, cb), 0) + 1
        else:
            if live.get((n, cb), 0) == 0:
                raise ValueError("event %d: no live %d bytes in category %d" % (k, n, cb))
            live[(n, cb)] -= 1
            if a == INCREMENT_VERSION:
                live[(n, ca)] = live.get((n, ca), 0) + 1
    return True


# ------------------------------------------------------- torch's algorithms

def coalesce(timeline):
    """MemoryProfileTimeline._coalesce_timeline, with a one-device timeline."""
    times = []
    sizes = []

    def update(cat_index, delta):
        sizes[-1][cat_index + 1] += int(delta)

    t_min = -1
    for t, action, numbytes, cat_before, cat_after in timeline:
        if t != -1:
            t = int(t / 1000)
        if t_min == -1 or (t < t_min and t > 0):
            t_min = t
        if len(times) == 0:
            times.append(t)
            sizes.append([0] + [0 for _ in range(NCAT)])
        elif t != times[-1]:
            times.append(t)
            sizes.append(sizes[-1].copy())
        if action in (PREEXISTING, CREATE):
            update(cat_before, numbytes)
        elif action == INCREMENT_VERSION:
            update(cat_before, -numbytes)
            update(cat_after, numbytes)
        elif action == DESTROY:
            update(cat_before, -numbytes)
        else:
            raise ValueError("Unknown action: %r" % (action,))
    times = [t_min if t < 0 else t for t in times]
    return times, sizes


def raw_events(timeline):
    """MemoryProfileTimeline.export_memory_timeline_raw's list of tuples."""
    ev = []
    for t, action, numbytes, cat_before, cat_after in timeline:
        if action in (PREEXISTING, CREATE):
            ev.append((t, action, numbytes, cat_before))
        elif action == INCREMENT_VERSION:
            ev.append((t, action, -numbytes, cat_before))
            ev.append((t, action, numbytes, cat_after))
        elif action == DESTROY:
            ev.append((t, action, -numbytes, cat_before))
        else:
            raise ValueError("Unknown action: %r" % (action,))
    return ev


def coalesce_text(rows):
    times, sizes = coalesce(rows_to_timeline(rows))
    return json.dumps([times, sizes])  # == json.dump(..., f): no newline


def raw_text(rows):
    return json.dumps(raw_events(rows_to_timeline(rows)))


# ------------------------------------------------------------------ selftest

def selftest():
    fails = []

    def expect(name, got, want):
        if got != want:
            fails.append("%s:\n  got  %s\n  want %s" % (name, got, want))

    # The spec's worked example (torch-formats.md section 2): parameter 4096 B
    # pre-existing, activation 1024 B created at 1000500 ns, temporary 256 B
    # created/destroyed at 1000900/1000950 ns, parameter mutated at 2000000 ns.
    timeline = [(-1, PREEXISTING, 4096, 0, 0),
                (1000500, CREATE, 1024, 4, 4),
                (1000900, CREATE, 256, 3, 3),
                (1000950, DESTROY, 256, 3, 3),
                (2000000, INCREMENT_VERSION, 4096, 0, 0)]
    raw = ("[[-1, 1, 4096, 0], [1000500, 2, 1024, 4], [1000900, 2, 256, 3], "
           "[1000950, 4, -256, 3], [2000000, 3, -4096, 0], [2000000, 3, 4096, 0]]")
    coal = ("[[1000, 1000, 2000], [[0, 4096, 0, 0, 0, 0, 0, 0, 0], "
            "[0, 4096, 0, 0, 0, 1024, 0, 0, 0], [0, 4096, 0, 0, 0, 1024, 0, 0, 0]]]")
    validate_timeline(timeline)
    expect("example raw", json.dumps(raw_events(timeline)), raw)
    rows = parse_rows(raw)
    expect("example rows->timeline", rows_to_timeline(rows), timeline)
    expect("example coalesce", coalesce_text(rows), coal)
    expect("example raw round trip", raw_text(rows), raw)
    # Whitespace-free and gzipped input parse the same.
    expect("compact input", coalesce_text(parse_rows(raw.replace(" ", ""))), coal)
    expect("gzip input", coalesce_text(parse_rows(
        gzip.decompress(gzip.compress(raw.encode())))), coal)

    # Empty timeline.
    expect("empty coalesce", coalesce_text([]), "[[], []]")
    expect("empty raw", raw_text([]), "[]")
    # Only PREEXISTING: times stay -1 (single row).
    expect("preexisting only", coalesce_text([[-1, 1, 5, 7], [-1, 1, 3, 2]]),
           "[[-1], [[0, 0, 0, 3, 0, 0, 0, 0, 5]]]")
    # t < 1000 ns -> 0 us; 0 becomes t_min via the t_min == -1 branch and
    # then sticks (0 < t < t_min never holds).
    expect("tiny t", coalesce_text([[-1, 1, 8, 1], [999, 2, 4, 3], [5000, 4, -4, 3]]),
           "[[0, 0, 5], [[0, 0, 8, 0, 0, 0, 0, 0, 0], [0, 0, 8, 0, 4, 0, 0, 0, 0], "
           "[0, 0, 8, 0, 0, 0, 0, 0, 0]]]")
    # INCREMENT_VERSION moving bytes between categories; zero-byte pair.
    expect("increment moves", coalesce_text(
        [[1000, 2, 10, 4], [2000, 3, -10, 4], [2000, 3, 10, 5], [2000, 3, 0, 7], [2000, 3, 0, 1]]),
        "[[1, 2], [[0, 0, 0, 0, 0, 10, 0, 0, 0], [0, 0, 0, 0, 0, 0, 10, 0, 0]]]")
    # Epoch ns where Python's correctly rounded t/1000 rounds up to the next
    # integer while exact integer division and (double)t/1000.0 do not.
    t = 1700000000000000875
    assert t // 1000 == 1700000000000000 and int(float(t) / 1000.0) == 1700000000000000
    expect("float division", coalesce_text([[t, 2, 1, 0]]),
           "[[1700000000000001], [[0, 1, 0, 0, 0, 0, 0, 0, 0]]]")
    # A value whose float division truncates below exact: none exist for
    # true division (the quotient is correctly rounded and rounding can only
    # reach, not pass, the next integer) -- check a few exact multiples.
    for t in (1700000000000000000, 1759999999999999000, 1234567):
        expect("exact multiple %d" % t, int(t / 1000), t // 1000)
    # Large sizes stay exact integers.
    big = 2 ** 40 + 12345
    expect("large sizes", coalesce_text([[-1, 1, big, 6], [3000, 2, big, 6]]),
           "[[3, 3], [[0, 0, 0, 0, 0, 0, 0, %d, 0], [0, 0, 0, 0, 0, 0, 0, %d, 0]]]"
           % (big, 2 * big))

    if fails:
        print("selftest FAILED:\n" + "\n".join(fails))
        return 1
    print("selftest ok")
    return 0


# ------------------------------------------------------- compare.sh backend

def _first_diff(a, b):
    n = min(len(a), len(b))
    for i in range(n):
        if a[i] != b[i]:
            return i
    return n if len(a) != len(b) else -1


def _snip(s, i, w=50):
    lo = max(0, i - w)
    return ("..." if lo else "") + repr(s[lo:i + w])[1:-1] + ("..." if i + w < len(s) else "")


def _structural(kind, want, got):
    """Name the first differing element when both sides parse as JSON."""
    try:
        g = json.loads(got)
        w = json.loads(want)
    except ValueError as e:
        return "output is not valid JSON (%s)" % e
    if kind == "coalesce":
        if not (isinstance(g, list) and len(g) == 2):
            return "output is not [times, sizes]"
        (wt, ws), (gt, gs) = w, g
        for i, (x, y) in enumerate(zip(wt, gt)):
            if x != y:
                return "times[%d]: want %r, got %r" % (i, x, y)
        if len(wt) != len(gt):
            return "len(times): want %d, got %d" % (len(wt), len(gt))
        for i, (x, y) in enumerate(zip(ws, gs)):
            if x != y:
                return "sizes[%d]: want %r, got %r" % (i, x, y)
        if len(ws) != len(gs):
            return "len(sizes): want %d, got %d" % (len(ws), len(gs))
    else:
        if not isinstance(g, list):
            return "output is not a list"
        for i, (x, y) in enumerate(zip(w, g)):
            if x != y:
                return "row %d: want %r, got %r" % (i, x, y)
        if len(w) != len(g):
            return "rows: want %d, got %d" % (len(w), len(g))
    return "same JSON value, different bytes (layout/whitespace)"


def check(indir, outdir, max_diag=5):
    """Compare memtimeline's outputs (written by compare.sh as
    OUTDIR/NAME.json, OUTDIR/NAME.raw.json.gz, with exit status in
    OUTDIR/NAME.rc-coalesce / .rc-raw and stderr in .err-*) against the
    reference for every input in INDIR. Prints TAP; returns 0."""
    names = sorted(f for f in os.listdir(indir)
                   if f.endswith(".raw.json") or f.endswith(".raw.json.gz"))
    fails = {"coalesce": [], "raw": []}
    for name in names:
        stem = name[:-len(".raw.json.gz")] if name.endswith(".gz") else name[:-len(".raw.json")]
        rows = load_rows(os.path.join(indir, name))
        for kind in ("coalesce", "raw"):
            want = coalesce_text(rows) if kind == "coalesce" else raw_text(rows)
            out = os.path.join(outdir, stem + (".json" if kind == "coalesce" else ".raw.json.gz"))
            rcfile = os.path.join(outdir, stem + ".rc-" + kind)
            errfile = os.path.join(outdir, stem + ".err-" + kind)
            rc = open(rcfile).read().strip() if os.path.exists(rcfile) else "?"
            why = None
            if rc != "0":
                err = open(errfile, errors="replace").read().strip() if os.path.exists(errfile) else ""
                why = "exit status %s: %s" % (rc, err.splitlines()[0] if err else "(no stderr)")
            elif not os.path.exists(out):
                why = "no output file"
            else:
                data = open(out, "rb").read()
                if kind == "raw":
                    if data[:2] != b"\x1f\x8b":
                        why = "output is not gzip"
                    else:
                        try:
                            data = gzip.decompress(data)
                        except (OSError, EOFError) as e:
                            why = "gzip error: %s" % e
                if why is None:
                    got = data.decode("utf-8", errors="replace")
                    if got != want:
                        i = _first_diff(want, got)
                        why = ("%s; first difference at byte %d (want %d bytes, got %d)\n"
                               "    want: %s\n    got:  %s"
                               % (_structural(kind, want, got), i, len(want), len(got),
                                  _snip(want, i), _snip(got, i)))
            if why is not None:
                fails[kind].append((name, why))
    n = len(names)
    for kind in ("coalesce", "raw"):
        f = fails[kind]
        print("%s - memref %s (%d streams)" % ("not ok" if f else "ok", kind, n))
        if f:
            print("# memref %s: %d of %d streams differ" % (kind, len(f), n))
        for name, why in f[:max_diag]:
            for k, line in enumerate(why.splitlines()):
                print("# %s%s" % ((name + ": ") if k == 0 else "", line))
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "selftest":
        return selftest()
    if len(argv) == 3 and argv[1] in ("coalesce", "raw"):
        rows = load_rows(argv[2])
        text = coalesce_text(rows) if argv[1] == "coalesce" else raw_text(rows)
        sys.stdout.write(text)
        return 0
    if len(argv) == 4 and argv[1] == "check":
        return check(argv[2], argv[3])
    sys.stderr.write("usage: reference.py coalesce|raw IN.raw.json[.gz] | selftest "
                     "| check INDIR OUTDIR\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
