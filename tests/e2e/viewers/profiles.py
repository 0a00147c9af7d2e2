"""Checks stackfold's viewer outputs against its folded text, independently
of the C writers: exact decimal sums, every stack and value.

  profiles.py speedscope FILE.json FOLDED[@HZ]...
      FILE.json is speedscope's file format (the fields its schema requires,
      types, indices in range, endValue = the weights' sum) and holds one
      sampled profile per FOLDED, in order, with exactly its stacks and values.
      FOLDED@HZ: an evented profile instead (events in time order, each close
      matching the frame open innermost), whose time per stack is FOLDED's
      samples times 10^6/HZ us (to 0.01 us per event, the text's rounding).
  profiles.py pprof RAW TYPE:UNIT:FACTOR=FOLDED...
      RAW is `go tool pprof -raw` of a profile; its sample types are exactly
      the TYPE/UNIT given, in order, and each type's samples (stacks rebuilt
      from the locations, root first) are FOLDED's stacks with their values
      times FACTOR (1000: us to ns). A stack absent from a type is 0 there.

Prints nothing and exits 0 when all holds; else the first difference, exit 1.
"""
import json
import re
import sys
from collections import Counter
from decimal import Decimal


def fail(msg):
    print(msg)
    sys.exit(1)


def folded(path):
    """{stack: Decimal} of a folded text file (summed, zeros dropped)."""
    out = Counter()
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            line = line.rstrip("\n")
            m = re.fullmatch(r"(.*) ([0-9.]+)", line)
            if m and Decimal(m.group(2)) != 0:
                out[m.group(1)] += Decimal(m.group(2))
    return out


def compare(what, got, want):
    if got == want:
        return
    for k in sorted(set(got) | set(want)):
        if got.get(k, 0) != want.get(k, 0):
            fail(f"{what}: stack {k!r}: {got.get(k, 0)}, folded {want.get(k, 0)}"
                 f" ({len(got)} stacks vs {len(want)})")


def speedscope(path, expect):
    with open(path, "rb") as f:
        doc = json.loads(f.read().decode("utf-8"), parse_float=Decimal, parse_int=Decimal)
    if doc.get("$schema") != "https://www.speedscope.app/file-format-schema.json":
        fail("no speedscope $schema")
    for key, kind in (("shared", dict), ("profiles", list), ("name", str),
                      ("activeProfileIndex", Decimal), ("exporter", str)):
        if not isinstance(doc.get(key), kind):
            fail(f"{key}: missing or not a {kind.__name__}")
    frames = doc["shared"]["frames"]
    if not all(isinstance(fr, dict) and isinstance(fr.get("name"), str) for fr in frames):
        fail("a frame without a string name")
    if len({fr["name"] for fr in frames}) != len(frames):
        fail("a frame name listed twice")
    profiles = doc["profiles"]
    if len(profiles) != len(expect):
        fail(f"{len(profiles)} profiles, expected {len(expect)}: "
             + ", ".join(p.get("name", "?") for p in profiles))
    for k, (p, want_path) in enumerate(zip(profiles, expect)):
        what = f"profile {k + 1} ({p.get('name')})"
        if "@" in want_path:
            evented(what, p, frames, *want_path.rsplit("@", 1))
            continue
        if p.get("type") != "sampled" or p.get("unit") not in (
                "none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"):
            fail(f"{what}: type {p.get('type')}, unit {p.get('unit')}")
        samples, weights = p.get("samples"), p.get("weights")
        if not isinstance(samples, list) or not isinstance(weights, list) \
                or len(samples) != len(weights):
            fail(f"{what}: samples and weights are not lists of one length")
        if p.get("startValue") != 0 or p.get("endValue") != sum(weights, Decimal(0)):
            fail(f"{what}: startValue {p.get('startValue')}, endValue {p.get('endValue')}, "
                 f"weights sum to {sum(weights, Decimal(0))}")
        got = Counter()
        for s, w in zip(samples, weights):
            if not all(isinstance(i, Decimal) and 0 <= i < len(frames) for i in s):
                fail(f"{what}: a frame index out of range: {s}")
            got[";".join(frames[int(i)]["name"] for i in s)] += w
        want = folded(want_path)
        compare(what, got, want)
        if p["endValue"] != sum(want.values(), Decimal(0)):
            fail(f"{what}: endValue {p['endValue']} is not the folded total")


def evented(what, p, frames, want_path, hz):
    if p.get("type") != "evented" or p.get("unit") != "microseconds":
        fail(f"{what}: type {p.get('type')}, unit {p.get('unit')}: not evented in us")
    events = p.get("events")
    if not isinstance(events, list) or not events:
        fail(f"{what}: no events")
    got, open_, last = Counter(), [], p.get("startValue")
    if not isinstance(last, Decimal) or not isinstance(p.get("endValue"), Decimal):
        fail(f"{what}: startValue, endValue not numbers")
    for e in events:
        at, fr = e.get("at"), e.get("frame")
        if e.get("type") not in ("O", "C") or not isinstance(at, Decimal) \
                or not isinstance(fr, Decimal) or not 0 <= fr < len(frames):
            fail(f"{what}: a bad event {e}")
        if at < last:
            fail(f"{what}: events out of time order at {at}")
        if open_:
            got[";".join(frames[int(i)]["name"] for i in open_)] += at - last
        last = at
        if e["type"] == "O":
            open_.append(fr)
        elif not open_ or open_.pop() != fr:
            fail(f"{what}: a close of frame {fr} that is not the innermost open one")
    if open_ or last != p["endValue"]:
        fail(f"{what}: frames left open, or the last event is not at endValue")
    tick = Decimal(10) ** 6 / Decimal(hz)
    want = folded(want_path)
    slack = Decimal("0.001") * len(events)
    for k in sorted(set(got) | set(want)):
        if abs(got.get(k, 0) - want.get(k, 0) * tick) > slack:
            fail(f"{what}: stack {k!r}: {got.get(k, 0)} us in time order, "
                 f"folded {want.get(k, 0)} samples = {want.get(k, 0) * tick} us")


def pprof(path, expect):
    text = open(path, encoding="utf-8", errors="surrogateescape").read()
    m = re.search(r"^Samples:\n(.*?)\n(.*?)^Locations\n(.*?)(?:^Mappings|\Z)", text,
                  re.S | re.M)
    if not m:
        fail("no Samples / Locations in the -raw output")
    types = [t.replace("[dflt]", "") for t in m.group(1).split()]
    want_types = [e.split("=", 1)[0].rsplit(":", 1)[0].replace(":", "/") for e in expect]
    if types != want_types:
        fail(f"sample types {types}, expected {want_types}")
    names = {}
    for line in m.group(3).splitlines():
        # "     3: 0x0 M=1 NAME :0 s=0()"
        loc = re.fullmatch(r"\s*(\d+): 0x[0-9a-f]+ M=\d+ (.*) :\d+ s=\d+\(.*\)", line)
        if not loc:
            fail(f"a location line not understood: {line!r}")
        names[loc.group(1)] = loc.group(2)
    got = [Counter() for _ in types]
    for line in m.group(2).splitlines():
        s = re.fullmatch(r"\s*([0-9 ]+):((?: \d+)*) ?", line)
        if not s:
            fail(f"a sample line not understood: {line!r}")
        values = s.group(1).split()
        stack = ";".join(names[i] for i in reversed(s.group(2).split()))
        for t, v in enumerate(values):
            if int(v):
                got[t][stack] += Decimal(v)
    for t, e in enumerate(expect):
        factor = Decimal(e.split("=", 1)[0].rsplit(":", 1)[1])
        want = Counter({k: v * factor for k, v in folded(e.split("=", 1)[1]).items()})
        compare(f"pprof type {types[t]}", got[t], want)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("speedscope", "pprof"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    (speedscope if sys.argv[1] == "speedscope" else pprof)(sys.argv[2], sys.argv[3:])


main()
