"""Independent sums of a torch trace, for the sum checks of tests/e2e/trace/run.sh:
prints "cpu_roots_ns gpu_ns" where cpu_roots_ns is the total duration of the
outermost CPU events of every host thread (what self CPU time per stack must
sum to; a complete event without a category is a CPU op, as torch without
Kineto writes them) and gpu_ns the total duration of kernels, copies and sets (what GPU
time per launching stack must sum to). Times are read from the JSON text as
exact decimals (never through a float)."""
import decimal, gzip, json, sys

CPU = {"cpu_op", "Operator", "user_annotation", "python_function", "cuda_runtime",
       "Runtime", "cuda_driver"}
GPU = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}

def ns(x):
    return int((decimal.Decimal(x) * 1000).to_integral_value(decimal.ROUND_HALF_UP))

path = sys.argv[1]
raw = (gzip.open if path.endswith(".gz") else open)(path, "rb").read()
doc = json.loads(raw, parse_float=decimal.Decimal, parse_int=decimal.Decimal, strict=False)
events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
threads, gpu = {}, 0
for e in events:
    if e.get("ph") != "X" or "ts" not in e or "dur" not in e:
        continue
    # torch without Kineto writes its ops with no category at all
    if e.get("cat", "cpu_op") in CPU:
        threads.setdefault((str(e["pid"]), str(e["tid"])), []).append((ns(e["ts"]), max(ns(e["dur"]), 0)))
    elif e.get("cat") in GPU:
        gpu += max(ns(e["dur"]), 0)
roots = 0
for evs in threads.values():
    evs.sort(key=lambda x: (x[0], -x[1]))
    end = None
    for ts, dur in evs:
        if end is None or ts >= end:
            roots += dur
            end = ts + dur
print(roots, gpu)
