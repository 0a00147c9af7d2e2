#!/usr/bin/python3
"""Generate the PyTorch ``export_stacks`` sample files in samples/torch/.

How to re-run (from the repository root; needs Debian's torch,
``apt-get install -y python3-torch``, i.e. torch 1.13.1, CPU only)::

    cd samples/torch && /usr/bin/python3 make_stacks.py

Running it from inside samples/torch/ keeps the script's own frames in the
stacks as ``make_stacks.py(LINE):_function`` instead of an absolute path.

What it writes (into the directory holding this script, overwriting):

    stacks_gelu_manual.txt       manual tanh-GELU built from many small
                                 elementwise ops, each an explicit torch
                                 call (torch.pow, torch.mul, torch.add,
                                 torch.tanh), on a 2048x2048 float32
                                 tensor, 20 times; checked against F.gelu
                                 (max abs diff <= 1e-5) before profiling
    stacks_gelu_manual_run2.txt  the same workload again, in another process,
                                 so the ``<built-in method ... at 0x7f...>``
                                 addresses differ from the first run
    stacks_gelu_fused.txt        F.gelu(x, approximate="tanh"), one fused op,
                                 same tensor, 20 times
    stacks_mlp_train.txt         2 training steps of a small MLP
                                 (3 Linear + 2 ReLU, cross-entropy, backward,
                                 Adam step; the first step creates Adam state)

Each file is exactly what ``torch.profiler.profile.export_stacks(path,
"self_cpu_time_total")`` wrote: one line per profiled op event, the Python
call stack root-first joined with ``;`` (spaces turned into ``_``), then a
space and the event's self CPU time in microseconds.  Lines are not
aggregated; identical stacks appear once per event.  Nothing is
post-processed.

What torch 1.13 puts in a stack: Python frames only (``file(LINE):_func``,
``nn.Module:_Linear_0`` for modules, ``<built-in_method_..._at_0x...>`` or
``<built-in_function_...>`` for C functions), never the aten op name.
Operators such as ``0.5 * x`` leave no frame at all (their events would end
at the enclosing Python function), which is why the manual GELU calls
torch.mul / torch.add / torch.pow / torch.tanh explicitly: each call gets a
``<built-in_method_mul_of_type_object_at_0x...>``-style leaf.  Calls of the
same function share one leaf (all four torch.mul calls end in the same
``..._mul_...`` frame).  For a function entered while profiling, LINE is the
line of its ``def``, not of the call.

Every workload runs in its own child process (``--workload NAME --out
PATH``), so the two manual-GELU runs really are separate processes.  Seeds
are fixed, so the stacks are reproducible; the timings and the 0x addresses
are not.
"""

import argparse
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# output file name -> workload name
OUTPUTS = [
    ("stacks_gelu_manual.txt", "gelu_manual"),
    ("stacks_gelu_manual_run2.txt", "gelu_manual"),
    ("stacks_gelu_fused.txt", "gelu_fused"),
    ("stacks_mlp_train.txt", "mlp_train"),
]

GELU_SIZE = 2048
GELU_REPEATS = 20
MLP_STEPS = 2


def gelu_manual_tanh_elementwise(x):
    """tanh-approximate GELU spelled out as many small elementwise ops.

    0.5*x*(1+tanh(sqrt(2/pi)*(x+0.044715*x^3))), but every op is an explicit
    torch function call rather than a ``*``/``+`` operator: torch 1.13 records
    Python frames only, and an operator (Tensor.__mul__ ...) leaves no frame,
    whereas ``torch.mul(...)`` shows up as a
    ``<built-in method mul of type object at 0x...>`` leaf.  8 ops per call:
    pow, mul, add, mul, tanh, add, mul, mul.
    """
    import torch
    x_cubed = torch.pow(x, 3)
    inner = torch.mul(x_cubed, 0.044715)
    inner = torch.add(x, inner)
    inner = torch.mul(inner, math.sqrt(2 / math.pi))
    t = torch.tanh(inner)
    t = torch.add(t, 1.0)
    half_x = torch.mul(x, 0.5)
    return torch.mul(half_x, t)


def run_gelu_manual_workload(x, repeats):
    y = None
    for _ in range(repeats):
        y = gelu_manual_tanh_elementwise(x)
    return y


def gelu_fused_functional(x):
    """tanh-approximate GELU as the single fused aten::gelu op."""
    import torch.nn.functional as F
    return F.gelu(x, approximate="tanh")


def run_gelu_fused_workload(x, repeats):
    y = None
    for _ in range(repeats):
        y = gelu_fused_functional(x)
    return y


def build_mlp():
    import torch.nn as nn
    return nn.Sequential(
        nn.Linear(256, 512), nn.ReLU(),
        nn.Linear(512, 256), nn.ReLU(),
        nn.Linear(256, 10),
    )


def mlp_train_step(model, optimizer, inputs, targets):
    import torch.nn.functional as F
    optimizer.zero_grad()
    logits = model(inputs)
    loss = F.cross_entropy(logits, targets)
    loss.backward()
    optimizer.step()
    return loss


def run_mlp_train_workload(model, optimizer, inputs, targets, steps):
    loss = None
    for _ in range(steps):
        loss = mlp_train_step(model, optimizer, inputs, targets)
    return loss


def make_profiler():
    from torch.profiler import ProfilerActivity, profile
    # torch 1.13 records verbose Python stacks by default, so no
    # experimental_config=torch._C._profiler._ExperimentalConfig(verbose=True)
    # is needed (checked: it gives the same stacks).  Later torch versions
    # may write an empty stacks file without it.
    return profile(activities=[ProfilerActivity.CPU], with_stack=True,
                   record_shapes=True)


def check_gelu_manual(x, y, tol=1e-5):
    """Exit unless the manual GELU matches F.gelu(approximate="tanh")."""
    import torch.nn.functional as F
    err = (y - F.gelu(x, approximate="tanh")).abs().max().item()
    if not err <= tol:
        raise SystemExit("error: manual GELU differs from F.gelu "
                         "(approximate='tanh') by %g > %g" % (err, tol))
    print("ok: manual GELU matches F.gelu(approximate='tanh'), "
          "max abs diff %.3g <= %g" % (err, tol))


def profile_workload(name, out_path):
    import torch
    torch.manual_seed(0)
    if name in ("gelu_manual", "gelu_fused"):
        x = torch.randn(GELU_SIZE, GELU_SIZE)
        fn = (run_gelu_manual_workload if name == "gelu_manual"
              else run_gelu_fused_workload)
        y = fn(x, 1)  # warm-up, not profiled
        if name == "gelu_manual":
            check_gelu_manual(x, y)
        with make_profiler() as prof:
            fn(x, GELU_REPEATS)
    elif name == "mlp_train":
        model = build_mlp()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        inputs = torch.randn(64, 256)
        targets = torch.randint(0, 10, (64,))
        with make_profiler() as prof:
            run_mlp_train_workload(model, optimizer, inputs, targets,
                                   MLP_STEPS)
    else:
        raise SystemExit("unknown workload: %s" % name)
    prof.export_stacks(out_path, "self_cpu_time_total")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workload", choices=sorted({w for _, w in OUTPUTS}),
                    help="run one workload in this process (internal)")
    ap.add_argument("--out", help="output path for --workload")
    args = ap.parse_args()

    if args.workload:
        if not args.out:
            ap.error("--workload needs --out")
        profile_workload(args.workload, args.out)
        return

    script = os.path.basename(__file__) if os.getcwd() == HERE else __file__
    for fname, workload in OUTPUTS:
        out = os.path.join(HERE, fname)
        print("writing %s (workload %s)" % (out, workload))
        subprocess.run([sys.executable, script, "--workload", workload,
                        "--out", out], check=True)
        if os.path.getsize(out) == 0:
            sys.exit("error: %s is empty" % out)

    # The point of the second manual-GELU run: its 0x addresses should differ.
    def addresses(fname):
        with open(os.path.join(HERE, fname)) as f:
            return set(re.findall(r"_at_0x[0-9a-f]+", f.read()))
    a = addresses("stacks_gelu_manual.txt")
    b = addresses("stacks_gelu_manual_run2.txt")
    if a and a.isdisjoint(b):
        print("ok: run2 addresses all differ from run1 (%s vs %s)"
              % (sorted(a), sorted(b)))
    else:
        print("warning: run1 and run2 share addresses: %s"
              % sorted(a & b))


if __name__ == "__main__":
    main()
