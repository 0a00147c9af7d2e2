"""Questions the GPU suite (tests/e2e/gpu/run.sh) asks of stackfold's output.

    gpucheck.py calls TABLE.csv NAME=N...   each row NAME has N calls, and
                                            no row is left unnamed (other=N
                                            for the rest together)
    gpucheck.py share FOLDED REGEX MIN      the value of the lines matching
                                            REGEX is at least MIN % of all
    gpucheck.py sum FOLDED [REGEX]          prints the total (of the lines
                                            matching REGEX)
    gpucheck.py kernels TRACE.json          prints the kernel events of a
                                            Chrome trace (cat "kernel")
    gpucheck.py launches TABLE.csv          prints the kernel launches of a
                                            --by kernel table (copies and
                                            sets, "[...]" rows, left out)

Each prints what it found; the exit status is 0 when it holds.
"""
import csv
import gzip
import json
import re
import sys


def folded(path):
    for line in open(path, errors="surrogateescape"):
        stack, _, value = line.rstrip("\n").rpartition(" ")
        yield stack, float(value)


def table(path):
    return {r["name"]: int(r["calls"]) for r in csv.DictReader(open(path, errors="surrogateescape"))}


def calls(path, wants):
    rows = table(path)
    want = dict(w.split("=", 1) for w in wants)
    ok = True
    for name, n in want.items():
        got = sum(v for k, v in rows.items() if k not in want) if name == "other" else rows.get(name, 0)
        if got != int(n):
            print("%s: %d calls, expected %s" % (name, got, n))
            ok = False
    if "other" not in want:
        extra = sorted(set(rows) - set(want))
        if extra:
            print("rows not expected: %s" % ", ".join(extra[:8]))
            ok = False
    print(" ".join("%s=%d" % kv for kv in sorted(rows.items()))[:400])
    return ok


def share(path, regex, least):
    pat = re.compile(regex)
    total = matched = 0.0
    for stack, v in folded(path):
        total += v
        if pat.search(stack):
            matched += v
    pct = 100 * matched / total if total else 0
    print("%.2f%% of %.3f" % (pct, total))
    return total > 0 and pct >= float(least)


def total(path, regex=None):
    pat = re.compile(regex) if regex else None
    print("%.3f" % sum(v for s, v in folded(path) if pat is None or pat.search(s)))
    return True


def kernels(path):
    opener = gzip.open if path.endswith(".gz") else open
    doc = json.load(opener(path, "rt"))
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    print(sum(1 for e in events if e.get("cat") == "kernel" and e.get("ph") == "X"))
    return True


def launches(path):
    print(sum(n for name, n in table(path).items() if not name.startswith("[")))
    return True


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    ok = {"calls": lambda: calls(args[0], args[1:]), "share": lambda: share(*args),
          "sum": lambda: total(*args), "kernels": lambda: kernels(*args),
          "launches": lambda: launches(*args)}[cmd]()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
