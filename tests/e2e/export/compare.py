"""compare.py - folded stacks of a capture against those of its exported
trace read back (tests/e2e/export/run.sh).

  compare.py gpu CAPTURE_FOLDED TRACE_FOLDED
      the same stacks with the same values (exact decimals). Two differences
      are the formats', not the export's, and are allowed for: a GPU op
      without its launch is "[no host stack]" in a capture and "[launch not
      in trace]" in a trace, and JSON holds names as UTF-8 only (a byte that
      is not UTF-8 is U+FFFD, one per byte, as Python decodes it).
  compare.py cpu CAPTURE_FOLDED TRACE_FOLDED
      every capture stack in the trace within 1 us (a capture rounds each
      stack's CPU time to whole microseconds, the trace has it to the ns);
      the trace's other stacks end in a CUDA call and weigh 0.001 us each
      (the 1 ns an API call is laid out as).
  compare.py threads SAMPLES_FOLDED TRACE HZ
      per thread of the capture (SAMPLES_FOLDED: stackfold --threads
      --metric samples, roots "name-TID"), the trace's outermost slices on
      that thread add up to exactly its sampled CPU time, weights x 10^9 /
      HZ ns rounded, plus 1 ns per CUDA call on it.
Prints what differs; exit 1 if anything does.
"""
import collections
import decimal
import gzip
import json
import sys


def load(path):
    out = {}
    with open(path, "rb") as f:
        for line in f:
            text = line.decode("utf-8", "replace").rstrip("\n")
            stack, _, value = text.rpartition(" ")
            stack = stack.replace("[no host stack]", "[launch not in trace]")
            out[stack] = out.get(stack, 0) + decimal.Decimal(value)
    return out


def threads(samples_path, trace_path, hz):
    weights = collections.Counter()
    for stack, value in load(samples_path).items():
        weights[int(stack.split(";", 1)[0].rsplit("-", 1)[1])] += int(value)
    op = gzip.open if trace_path.endswith(".gz") else open
    doc = json.load(op(trace_path, "rb"), parse_float=decimal.Decimal)
    slices, calls = collections.defaultdict(list), collections.Counter()
    for i, e in enumerate(doc["traceEvents"]):
        if e["ph"] == "X" and e.get("cat") in ("cpu_op", "cuda_runtime", "cuda_driver"):
            slices[e["tid"]].append((e["ts"], -e["dur"], i))
            calls[e["tid"]] += e["cat"] != "cpu_op"
    bad = []
    for tid in sorted(set(weights) | set(slices)):
        top, end = decimal.Decimal(0), None
        for ts, neg, _ in sorted(slices[tid]):
            if end is None or ts >= end:  # outside every open slice
                top += -neg
                end = ts - neg
        want = decimal.Decimal((weights[tid] * 10**9 + hz // 2) // hz + calls[tid]) / 1000
        if top != want:
            bad.append("thread %d: outermost slices %s us, samples and calls %s us" % (tid, top, want))
        else:
            print("thread %d: %s us in %d calls and samples of weight %d" % (tid, top, calls[tid], weights[tid]))
    return bad


mode = sys.argv[1]
if mode == "threads":
    bad = threads(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    for b in bad:
        print(b)
    sys.exit(1 if bad else 0)
cap, trace = load(sys.argv[2]), load(sys.argv[3])
bad = []
if mode == "gpu":
    for k in sorted(set(cap) | set(trace)):
        if cap.get(k) != trace.get(k):
            bad.append("%s: capture %s, trace %s" % (k[-120:], cap.get(k), trace.get(k)))
else:
    calls = ("cudaLaunchKernel", "cudaMemcpyAsync", "cudaMemsetAsync", "cudaMalloc",
             "CUDA runtime call", "CUDA driver call", "cuLaunchKernel")
    for k, v in cap.items():
        if abs(trace.get(k, 0) - v) >= 1:
            bad.append("%s: capture %s, trace %s" % (k[-120:], v, trace.get(k)))
    for k, v in trace.items():
        if k not in cap and not (k.rsplit(";", 1)[-1].startswith(calls) and v < 1):
            bad.append("%s: only in the trace (%s)" % (k[-120:], v))
print("%d capture stacks, %d trace stacks, %d differ" % (len(cap), len(trace), len(bad)))
for b in bad[:10]:
    print(b)
sys.exit(1 if bad else 0)
