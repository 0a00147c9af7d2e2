#!/usr/bin/python3
"""Generate samples/torch/memory_mlp_train.raw.json.gz: a PyTorch
"raw" memory timeline (the format ``export_memory_timeline("x.raw.json.gz")``
writes in torch >= 2.1) made from the allocator events of a real training
program profiled with torch 1.13.

How to re-run (from the repository root; needs Debian's torch,
``apt-get install -y python3-torch``, i.e. torch 1.13.1, CPU only, run with
/usr/bin/python3)::

    cd samples/torch && /usr/bin/python3 make_memory_timeline.py

Options: ``--out PATH`` (default: memory_mlp_train.raw.json.gz next to this
script), ``--steps N`` (default 6), ``--check FILE`` (only validate an
existing raw timeline and print a summary).

Why a conversion is needed
--------------------------
torch 1.13 has no ``export_memory_timeline`` and no memory profiler
(``torch/profiler/_memory_profiler.py`` arrived in 2.1), so there are no
categories to export.  What 1.13 *does* record with ``profile_memory=True``
(also in Debian's build, which lacks Kineto) is one ``[memory]`` event per
call of the CPU allocator.  The legacy ``function_events`` list only keeps
them as sizes folded into op rows, but the profiler result's
``kineto_results.experimental_event_tree()`` exposes each one as a
``_ProfilerEvent`` with tag ``_EventType.Allocation`` whose ``extra_fields``
(``_ExtraFields_Allocation``) are

    ptr              the address (int) handed out / given back
    alloc_size       bytes, positive for an allocation, negative for a free
    total_allocated  the allocator's running total after the event
    id               the tensor id (None when not tied to a tensor)
    device           cpu

and whose ``start_time_ns`` is the Unix-epoch time in ns (checked below
against ``time.time_ns()`` taken around the capture).  The same tree holds
every aten op (``_EventType.TorchOp``: name, start/end ns, input tensors
with ``storage_data_ptr``), the ``record_function`` markers (TorchOps with
scope USER_SCOPE) and the Python calls (``PyCall``).  So the sizes, addresses
and times in the output are real; the categories and the INCREMENT_VERSION
rows are ours.

Conversion
----------
* Allocations and frees are paired by address.  A free of an address whose
  allocation was not seen becomes a PREEXISTING row (t = -1) plus a DESTROY;
  an allocation of an address that is still live would be an
  INCREMENT_VERSION in torch (this never happened in our runs and is
  reported if it does).
* Parameters exist before the capture and are never freed: one PREEXISTING
  row per ``model.parameters()`` tensor, with its real ``nbytes``.
* INCREMENT_VERSION: for every top-level in-place aten op (an ``aten::*_``
  op with no aten op above it in the tree: torch's memory profiler also only
  looks at top-level ops) whose first tensor input is a parameter or a live
  allocation (by storage data pointer), one pair of rows at the op's start
  time, ``(-n, cat)`` then ``(+n, cat)``, as torch writes a version bump.
  Category never changes across versions here.
* Categories, the lifetime/phase heuristic of torch-formats.md section 3
  (first rule that matches wins).  Phases come from ``record_function``
  markers around each part of a step: ``data``, ``zero_grad``, ``forward``,
  ``backward``, ``optimizer``.

    PARAMETER        parameters (PREEXISTING; never allocated or freed here)
    (Unknown)        allocations made by the profiler's own record_function
                     machinery (a PyCall of torch/autograd/profiler.py above
                     them), allocations outside every phase marker
    TEMPORARY        allocated and freed inside one top-level aten op
    INPUT            allocated in the ``data`` phase (the batch)
    ACTIVATION       allocated in ``forward`` (outputs, loss)
    GRADIENT         allocated in ``backward`` and still live after the end
                     of that backward (parameter .grad, freed by the next
                     step's zero_grad(set_to_none=True))
    AUTOGRAD_DETAIL  allocated in ``backward`` and freed before its end
    OPTIMIZER_STATE  allocated in ``optimizer`` and still live after the end
                     of that optimizer phase (Adam exp_avg, exp_avg_sq, step)
    Unknown          the rest (e.g. optimizer-step scratch tensors freed
                     within the step but not within one op)

  The classification is checked at the end against the ground truth of
  the finished run: the data pointers of every ``p.grad`` must be GRADIENT
  allocations and those of every tensor in ``optimizer.state`` must be
  OPTIMIZER_STATE allocations.

Output: ``json.dump`` of the row list into ``gzip.open(path, "wt")``, like
torch; rows are ``[t_ns, action, signed_bytes, category_index]`` sorted by
``(t, action)`` (stable).  The result is validated before it is written.
"""

import argparse
import collections
import gzip
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "memory_mlp_train.raw.json.gz")

# torch._memory_profiler's _CATEGORY_TO_INDEX (colour-dict order)
CATS = ["PARAMETER", "OPTIMIZER_STATE", "INPUT", "TEMPORARY", "ACTIVATION",
        "GRADIENT", "AUTOGRAD_DETAIL", "Unknown"]
C = {name: i for i, name in enumerate(CATS)}
PREEXISTING, CREATE, INCREMENT_VERSION, DESTROY = 1, 2, 3, 4
PHASES = ("data", "zero_grad", "forward", "backward", "optimizer")

# the training program
IN_FEATURES, HIDDEN, CLASSES, BATCH = 256, 512, 10, 1024


# --------------------------------------------------------------------------
# validation (usable on any raw timeline)

def validate(rows):
    """Raise ValueError unless rows is a valid raw memory timeline."""
    live = collections.Counter()           # (category, bytes) -> count
    prev = None
    seen_real = False
    i = 0
    while i < len(rows):
        r = rows[i]
        if (not isinstance(r, list) or len(r) != 4
                or not all(type(v) is int for v in r)):
            raise ValueError("row %d: not 4 ints: %r" % (i, r))
        t, a, n, c = r
        if a not in (1, 2, 3, 4) or not 0 <= c <= 7:
            raise ValueError("row %d: bad action/category %r" % (i, r))
        if prev is not None and (t, a) < prev:
            raise ValueError("row %d: not sorted by (t, action) %r" % (i, r))
        prev = (t, a)
        if a == PREEXISTING:
            if t != -1 or seen_real:
                raise ValueError("row %d: PREEXISTING must come first, t=-1" % i)
            if n <= 0:
                raise ValueError("row %d: PREEXISTING bytes must be > 0" % i)
            live[(c, n)] += 1
        else:
            seen_real = True
            if t < 0:
                raise ValueError("row %d: negative time" % i)
            if a == CREATE:
                if n <= 0:
                    raise ValueError("row %d: CREATE bytes must be > 0" % i)
                live[(c, n)] += 1
            elif a == DESTROY:
                if n >= 0 or live[(c, -n)] == 0:
                    raise ValueError("row %d: DESTROY of no live (cat %d, %d B)"
                                     % (i, c, -n))
                live[(c, -n)] -= 1
            else:
                if i + 1 >= len(rows):
                    raise ValueError("row %d: INCREMENT_VERSION pair cut" % i)
                t2, a2, n2, c2 = rows[i + 1]
                if a2 != 3 or t2 != t or n >= 0 or n2 != -n:
                    raise ValueError("rows %d-%d: bad INCREMENT_VERSION pair"
                                     % (i, i + 1))
                if live[(c, -n)] == 0:
                    raise ValueError("row %d: INCREMENT_VERSION of no live "
                                     "(cat %d, %d B)" % (i, c, -n))
                live[(c, -n)] -= 1
                live[(c2, n2)] += 1
                i += 1
        i += 1
    return live


def summary(rows):
    per_cat = [0] * 8
    peak = cur = 0
    peak_cat = [0] * 8
    acts = collections.Counter(r[1] for r in rows)
    ncat = collections.Counter(CATS[r[3]] for r in rows)
    times = [r[0] for r in rows if r[0] != -1]
    for t, a, n, c in rows:
        per_cat[c] += n
        cur += n
        if cur > peak:
            peak, peak_cat = cur, list(per_cat)
    out = ["rows %d: PREEXISTING %d, CREATE %d, INCREMENT_VERSION %d (pairs "
           "%d), DESTROY %d" % (len(rows), acts[1], acts[2], acts[3],
                                acts[3] // 2, acts[4])]
    if times:
        out.append("time %d .. %d ns (%.3f ms)" % (min(times), max(times),
                                                 (max(times) - min(times)) / 1e6))
    out.append("peak total %d B (%.2f MiB); at the peak: %s" % (
        peak, peak / 2**20,
        ", ".join("%s %.2f MiB" % (CATS[i], v / 2**20)
                  for i, v in enumerate(peak_cat) if v)))
    out.append("rows per category: " + ", ".join(
        "%s %d" % (k, ncat[k]) for k in CATS if ncat[k]))
    out.append("live at end: " + ", ".join(
        "%s %.2f MiB" % (CATS[i], v / 2**20) for i, v in enumerate(per_cat) if v))
    return "\n".join(out)


# --------------------------------------------------------------------------
# capture

def run_training(steps):
    import torch
    from torch.profiler import profile, ProfilerActivity, record_function

    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(IN_FEATURES, HIDDEN), torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, HIDDEN), torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, CLASSES))
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    # a fixed "teacher" so that the loss means something
    teacher = torch.randn(IN_FEATURES, CLASSES)
    params = [(p.data_ptr(), p.numel() * p.element_size())
              for p in model.parameters()]

    t_before = time.time_ns()
    with profile(activities=[ProfilerActivity.CPU], profile_memory=True,
                 record_shapes=True, with_stack=True) as prof:
        for step in range(steps):
            with record_function("data"):
                x = torch.randn(BATCH, IN_FEATURES)
                y = torch.argmax(x @ teacher, dim=1)
            with record_function("zero_grad"):
                opt.zero_grad(set_to_none=True)
            with record_function("forward"):
                logits = model(x)
                loss = torch.nn.functional.cross_entropy(logits, y)
            with record_function("backward"):
                loss.backward()
            with record_function("optimizer"):
                opt.step()
            print("step %d loss %.4f" % (step, loss.item()), file=sys.stderr)
    t_after = time.time_ns()

    truth = {
        "grad": {p.grad.data_ptr() for p in model.parameters()},
        "opt_state": {v.data_ptr() for st in opt.state.values()
                      for v in st.values() if torch.is_tensor(v)},
    }
    tree = prof.profiler.kineto_results.experimental_event_tree()
    return tree, params, truth, (t_before, t_after)


def tag_of(e):
    return str(e.tag).rsplit(".", 1)[-1]


def collect(tree):
    """Walk the event tree; return (allocs, markers, top_ops).

    allocs:  [(t, ptr, size, top_op, is_bookkeeping, walk_index)]
    markers: [(start, end, name)] of the record_function phase markers
    top_ops: [(start, end, name, first_input_ptr)] top-level aten ops
    """
    allocs, markers, top_ops = [], [], []
    stack = [(r, None, False) for r in reversed(tree)]
    n = 0
    while stack:
        e, top, book = stack.pop()
        tag = tag_of(e)
        if tag == "PyCall" and e.name.startswith("torch/autograd/profiler.py"):
            book = True
        if tag == "TorchOp":
            scope = str(e.extra_fields.scope)
            if scope.endswith("USER_SCOPE") and e.name in PHASES:
                markers.append((e.start_time_ns, e.end_time_ns, e.name))
            elif top is None and e.name.startswith("aten::"):
                top = (e.start_time_ns, e.end_time_ns, e.name)
                first = None
                for tm in e.extra_fields.inputs.tensor_metadata:
                    if tm is not None:
                        first = tm.storage_data_ptr
                        break
                top_ops.append(top + (first,))
        elif tag == "Allocation":
            f = e.extra_fields
            allocs.append((e.start_time_ns, f.ptr, f.alloc_size, top, book, n))
            n += 1
        for c in reversed(e.children):
            stack.append((c, top, book))
    return allocs, markers, top_ops


def convert(tree, params, truth, window):
    allocs, markers, top_ops = collect(tree)
    markers.sort()
    counts = collections.Counter(name for _, _, name in markers)
    t0, t1 = window
    assert all(t0 <= a[0] <= t1 for a in allocs), "times are not epoch ns"

    def phase_at(t):
        for s, e, name in markers:
            if s <= t <= e:
                return (s, e, name)
        return None

    # order: by time; at equal times free a live pointer before reusing it
    allocs.sort(key=lambda a: (a[0], a[5]))
    by_t = collections.OrderedDict()
    for a in allocs:
        by_t.setdefault(a[0], []).append(a)

    live = {}        # ptr -> record
    records = []     # every allocation, in order
    stats = collections.Counter()
    param_ptrs = dict(params)

    for t, group in by_t.items():
        frees_first = [a for a in group if a[2] < 0 and a[1] in live]
        rest = [a for a in group if not (a[2] < 0 and a[1] in live)]
        for _, ptr, size, top, book, _ in frees_first + \
                [a for a in rest if a[2] > 0] + [a for a in rest if a[2] < 0]:
            if size > 0:
                if ptr in live:
                    stats["alloc of a live address"] += 1
                rec = {"ptr": ptr, "n": size, "t_alloc": t, "t_free": None,
                       "top": top, "book": book, "pre": False, "bumps": []}
                live[ptr] = rec
                records.append(rec)
            else:
                rec = live.pop(ptr, None)
                if rec is None:
                    stats["free of an unseen allocation"] += 1
                    rec = {"ptr": ptr, "n": -size, "t_alloc": -1, "t_free": t,
                           "top": None, "book": book, "pre": True, "bumps": []}
                    records.append(rec)
                elif rec["n"] != -size:
                    raise SystemExit("free size %d != alloc size %d at %#x"
                                     % (-size, rec["n"], ptr))
                rec["t_free"] = t

    # categories
    for rec in records:
        ph = None if rec["pre"] else phase_at(rec["t_alloc"])
        tf = rec["t_free"]
        if rec["pre"]:
            cat = "PARAMETER" if rec["ptr"] in param_ptrs else "Unknown"
        elif rec["book"] or ph is None:
            cat = "Unknown"
        elif (tf is not None and rec["top"] is not None
              and rec["top"][0] <= tf <= rec["top"][1]):
            cat = "TEMPORARY"
        elif ph[2] == "data":
            cat = "INPUT"
        elif ph[2] == "forward":
            cat = "ACTIVATION"
        elif ph[2] == "backward":
            cat = "GRADIENT" if tf is None or tf > ph[1] else "AUTOGRAD_DETAIL"
        elif ph[2] == "optimizer":
            cat = "OPTIMIZER_STATE" if tf is None or tf > ph[1] else "Unknown"
        else:
            cat = "Unknown"
        rec["cat"] = C[cat]

    # INCREMENT_VERSION: top-level in-place aten ops writing a tracked tensor
    spans = collections.defaultdict(list)
    for rec in records:
        spans[rec["ptr"]].append(rec)
    pre_params = [{"ptr": p, "n": n, "cat": C["PARAMETER"], "t_alloc": -1,
                   "t_free": None, "pre": True, "bumps": []}
                  for p, n in params]
    for rec in pre_params:
        spans[rec["ptr"]].append(rec)
    for s, e, name, first in top_ops:
        op = name[len("aten::"):]
        if not (op.endswith("_") and not op.startswith("_")) or first is None:
            continue
        for rec in spans.get(first, ()):
            if rec["t_alloc"] < s and (rec["t_free"] is None or rec["t_free"] > s):
                rec["bumps"].append(s)
                stats["in-place version bumps"] += 1
                break

    # truth check
    final = {rec["ptr"]: rec for rec in records + pre_params
             if rec["t_free"] is None}
    bad = []
    for kind, want in (("grad", "GRADIENT"), ("opt_state", "OPTIMIZER_STATE")):
        for ptr in truth[kind]:
            rec = final.get(ptr)
            if rec is None or rec["cat"] != C[want]:
                bad.append((kind, ptr, rec and CATS[rec["cat"]]))
    stats["ground-truth tensors checked"] = sum(len(v) for v in truth.values())
    if bad:
        raise SystemExit("heuristic disagrees with the final state: %r" % bad)

    # rows
    entries = []   # (t, action, seq, rows)
    seq = 0
    for rec in pre_params + records:
        c, n = rec["cat"], rec["n"]
        if rec["pre"]:
            entries.append((-1, PREEXISTING, seq, [[-1, PREEXISTING, n, c]]))
        else:
            entries.append((rec["t_alloc"], CREATE, seq,
                            [[rec["t_alloc"], CREATE, n, c]]))
        for tb in rec["bumps"]:
            seq += 1
            entries.append((tb, INCREMENT_VERSION, seq,
                            [[tb, INCREMENT_VERSION, -n, c],
                             [tb, INCREMENT_VERSION, n, c]]))
        if rec["t_free"] is not None:
            seq += 1
            entries.append((rec["t_free"], DESTROY, seq,
                            [[rec["t_free"], DESTROY, -n, c]]))
        seq += 1
    entries.sort(key=lambda x: (x[0], x[1], x[2]))
    rows = [r for ent in entries for r in ent[3]]
    return rows, stats, counts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--check", metavar="FILE",
                    help="only validate FILE (.json or .json.gz) and summarise")
    args = ap.parse_args()

    if args.check:
        op = gzip.open if args.check.endswith(".gz") else open
        with op(args.check, "rt") as f:
            rows = json.load(f)
        validate(rows)
        print("valid\n" + summary(rows))
        return

    tree, params, truth, window = run_training(args.steps)
    rows, stats, counts = convert(tree, params, truth, window)
    validate(rows)
    with gzip.open(args.out, "wt") as f:
        json.dump(rows, f)
    print("wrote %s (%d bytes)" % (args.out, os.path.getsize(args.out)))
    print("markers: %s" % dict(counts))
    for k, v in sorted(stats.items()):
        print("%s: %d" % (k, v))
    print(summary(rows))


if __name__ == "__main__":
    main()
