#!/usr/bin/env python3
"""captures.py - damage a real capture N times (one flipped byte, a cut, or
a run of bytes overwritten) and classify what stackfold and memtimeline
then say: "identical" (the same output as for the whole capture) or
"reported" (different output, and stderr says what was lost). Anything
else is a silent difference: the case fails.

Usage: python3 tests/mutate/captures.py BUILD CAPTURE [N [SEED]]
Prints one line per class with its count; exits 1 on a silent difference.
"""
import os
import random
import subprocess
import sys
import tempfile

REPORTS = ("incomplete capture", "did not decode", "damaged", "not a stackcap capture",
           "truncated", "chunk")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, timeout=60)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def outputs(build, path):
    """What a user reads: the folded CPU time and allocations, the memory summary."""
    got = []
    for args in (["--metric", "self_cpu_time_total"], ["--metric", "alloc_bytes"]):
        got.append(run([build + "/stackfold", "-q"] + args + [path]))
    got.append(run([build + "/memtimeline", "--summary", path]))
    return got


def main():
    build, capture = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 20261123)
    whole = open(capture, "rb").read()
    base = outputs(build, capture)
    counts = {"identical": 0, "reported": 0, "silent": 0}
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "m.stackcap")
        for i in range(n):
            data = bytearray(whole)
            how = rng.choice(("flip", "cut", "smear"))
            at = rng.randrange(len(data))
            if how == "flip":
                data[at] ^= 1 << rng.randrange(8)
            elif how == "cut":
                del data[at:]
            else:
                for k in range(at, min(len(data), at + rng.randrange(1, 64))):
                    data[k] = rng.randrange(256)
            open(path, "wb").write(data)
            got = outputs(build, path)
            same = all(g[0] == b[0] and g[1] == b[1] for g, b in zip(got, base))
            # -q silences notes: ask again, loudly, what was lost.
            _, _, err = run([build + "/stackfold", path])
            if same:
                counts["identical"] += 1
            elif any(r in err for r in REPORTS) or any(g[0] != 0 for g in got):
                counts["reported"] += 1
            else:
                counts["silent"] += 1
                print("silent difference: %s at %d (seed run %d)" % (how, at, i))
    for k, v in counts.items():
        print("%s: %d" % (k, v))
    sys.exit(1 if counts["silent"] else 0)


main()
