"""validate.py - checks a Chrome trace the way its viewers need it, for
tests/e2e/export/run.sh: what Perfetto's JSON importer and chrome://tracing
(catapult) rely on, written from the Trace Event Format document, without
trusting flamekit.

  validate.py TRACE[.gz]      prints "ok: N events (...)" or the problems
                              (at most 20), exit 1 when there are any

Checks: strict JSON (no NaN, no duplicate keys in an event), the object form
with a traceEvents list; every event's ph known; pid/tid integers; ts (and
dur) numbers with at most 3 decimals (ns); X events with name, ts, dur >= 0;
on each (pid, tid) track the X slices nest (none crosses another's end) and
B/E pairs balance and nest with them; async b/e pair by (cat, id); each flow
"f" (bp "e") follows an "s" with its id and lies at the start of a slice on
its track, each "s" at the start of a cuda_runtime/cuda_driver slice on its;
GPU ops carry device/stream/correlation args equal to their pid/tid; runtime
calls carry cbid and correlation; [memory] instants carry torch's args; M
events name processes and threads with a string; C events have numeric
args.
"""
import collections
import decimal
import gzip
import json
import re
import sys

problems = []


def problem(msg):
    if len(problems) < 20:
        problems.append(msg)
    else:
        problems.append(None)


DECIMAL = re.compile(r"^-?\d+(\.\d{1,3})?$")


def number(text):
    if not DECIMAL.match(text):
        problem("a time with more than 3 decimals or an exponent: %s" % text)
    return decimal.Decimal(text)  # exact: ends are compared with starts


def no_dupes(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        problem("duplicate keys in an object: %s" % keys)
    return dict(pairs)


def reject_constant(c):
    raise ValueError("not JSON: %s" % c)


path = sys.argv[1]
raw = (gzip.open if path.endswith(".gz") else open)(path, "rb").read()
# Times as exact decimals, as the viewers' integer ns are.
doc = json.loads(raw.decode("utf-8"), parse_float=number, object_pairs_hook=no_dupes,
                 parse_constant=reject_constant)
if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
    print("not the object form with a traceEvents list")
    sys.exit(1)
if doc.get("displayTimeUnit") not in (None, "ns", "ms"):
    problem("displayTimeUnit %r" % doc.get("displayTimeUnit"))

events = doc["traceEvents"]
KNOWN = set("XBEibesftMCnNODPRc")
tracks = collections.defaultdict(list)  # (pid, tid) -> [(ts, end, order, kind, ev)]
asyncs = collections.defaultdict(list)
starts, ends = {}, []
counts = collections.Counter()
MEMORY_ARGS = {"Device Type", "Device Id", "Addr", "Bytes", "Total Allocated"}

for i, e in enumerate(events):
    ph = e.get("ph")
    counts[ph] += 1
    if ph not in KNOWN or len(ph) != 1:
        problem("event %d: unknown ph %r" % (i, ph))
        continue
    if not isinstance(e.get("pid"), int) or (ph != "C" and ph != "M" and not isinstance(e.get("tid"), int)):
        problem("event %d: pid/tid not integers: %r" % (i, e))
        continue
    if ph != "M" and not isinstance(e.get("ts"), (int, decimal.Decimal)):
        problem("event %d: no numeric ts" % i)
        continue
    if ph == "M":
        if e.get("name") in ("process_name", "thread_name") and not isinstance(e.get("args", {}).get("name"), str):
            problem("event %d: %s without a string args.name" % (i, e.get("name")))
        continue
    if not isinstance(e.get("name"), str):
        problem("event %d: no name" % i)
    key = (e["pid"], e.get("tid"))
    ts = e["ts"]
    if ph == "X":
        dur = e.get("dur")
        if not isinstance(dur, (int, decimal.Decimal)) or dur < 0:
            problem("event %d: X without a duration >= 0" % i)
            continue
        tracks[key].append((ts, ts + dur, i, "X", e))
        cat, args = e.get("cat"), e.get("args", {})
        if cat in ("kernel", "gpu_memcpy", "gpu_memset"):
            if args.get("device") != e["pid"] or args.get("stream") != e["tid"] or \
                    not isinstance(args.get("correlation"), int):
                problem("event %d: GPU op without device/stream/correlation args of its track" % i)
            if cat != "kernel" and not isinstance(args.get("bytes"), int):
                problem("event %d: %s without bytes" % (i, cat))
        if cat in ("cuda_runtime", "cuda_driver") and not (
                isinstance(args.get("cbid"), int) and isinstance(args.get("correlation"), int)):
            problem("event %d: CUDA call without cbid and correlation" % i)
    elif ph in "BE":
        tracks[key].append((ts, ts, i, ph, e))
    elif ph in "be":
        asyncs[(e.get("cat"), e.get("id"))].append((ph, ts, i))
    elif ph == "s":
        if e.get("id") in starts:
            problem("event %d: a second flow start with id %r" % (i, e.get("id")))
        starts[e.get("id")] = (key, ts, i)
    elif ph == "f":
        if e.get("bp") != "e":
            problem("event %d: flow end without bp e" % i)
        ends.append((e.get("id"), key, ts, i))
    elif ph == "i":
        if e.get("s", "t") not in ("t", "p", "g"):
            problem("event %d: instant scope %r" % (i, e.get("s")))
        if e.get("name") == "[memory]" and not MEMORY_ARGS <= set(e.get("args", {})):
            problem("event %d: [memory] without %s" % (i, sorted(MEMORY_ARGS)))
    elif ph == "C":
        args = e.get("args")
        if not isinstance(args, dict) or not args or \
                not all(isinstance(v, (int, decimal.Decimal)) for v in args.values()):
            problem("event %d: counter without numeric args" % i)

# Slices and B/E ranges nest on each track. X sorts by (ts, -dur, file
# order), as the viewers nest them; a B or E at a time comes in file order
# among the slices starting then.
slice_starts = collections.defaultdict(dict)
for key, items in tracks.items():
    items.sort(key=lambda x: (x[0], 0 if x[3] == "E" else 1, -(x[1] - x[0]) if x[3] == "X" else 0, x[2]))
    stack = []  # open: (end, kind, i)
    for ts, end, i, kind, e in items:
        while stack and stack[-1][1] == "X" and stack[-1][0] <= ts:
            stack.pop()
        if kind == "E":
            if not stack or stack[-1][1] != "B":
                problem("track %s: E at %s (event %d) closes no B (or crosses a slice)" % (key, ts, i))
            else:
                stack.pop()
            continue
        if stack and stack[-1][1] == "X" and end > stack[-1][0]:
            problem("track %s: slice event %d [%s, %s] crosses the end of event %d" % (key, i, ts, end, stack[-1][2]))
        stack.append((end, kind, i))
        if kind == "X":
            slice_starts[key].setdefault(ts, []).append(e)
    if any(s[1] == "B" for s in stack):
        problem("track %s: B without E" % (key,))

for (cat, ident), items in asyncs.items():
    kinds = [p for p, _, _ in sorted(items, key=lambda x: (x[1], x[2]))]
    if kinds.count("b") != kinds.count("e") or (kinds and kinds[0] != "b"):
        problem("async %s/%s: b/e do not pair: %s" % (cat, ident, kinds))

used = set()
for ident, key, ts, i in ends:
    if ident not in starts:
        problem("event %d: flow end %r with no start" % (i, ident))
        continue
    skey, sts, si = starts[ident]
    if sts > ts:
        problem("event %d: flow %r ends before it starts" % (i, ident))
    if not slice_starts[key].get(ts):
        problem("event %d: flow end at %s starts no slice on %s" % (i, ts, key))
    if not any(e.get("cat") in ("cuda_runtime", "cuda_driver") for e in slice_starts[skey].get(sts, [])):
        problem("event %d: flow %r starts at no CUDA call" % (si, ident))
    used.add(ident)
for ident in starts:
    if ident not in used:
        problem("flow start %r has no end" % (ident,))

if problems:
    for p in problems:
        if p is None:
            print("... more problems")
            break
        print(p)
    sys.exit(1)
print("ok: %d events (%s)" % (len(events), " ".join("%s=%d" % kv for kv in sorted(counts.items()))))
