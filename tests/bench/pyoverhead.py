#!/usr/bin/env python3
"""What Python frames cost, for make bench: a pure-Python loop (function
calls and arithmetic, a fixed amount of work) run plainly, under stackcap
--no-python and under stackcap (Python frames on), at the default rate,
best of N each, interleaved in a new order each round so machine noise
hits all three. Wall time and
the program's CPU time (user + sys, from wait4: the sampling handler runs
on the program's thread, the writer on its own) are both shown.

Usage: pyoverhead.py RUNS BUILD OUTDIR [PYTHON]
"""
import os
import random
import subprocess
import sys
import time

runs, build, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
python = sys.argv[4] if len(sys.argv) > 4 else "/usr/bin/python3"
cap = os.path.join(out, "pyoverhead.stackcap")
loop = """
def leaf(i):
    return (i * 7) % 13

def middle(n):
    s = 0
    for i in range(n):
        s += leaf(i)
    return s

def outer():
    return sum(middle(1000) for _ in range(20000))

outer()
"""
work = [python, "-c", loop]
modes = {
    "plain": work,
    "stackcap --no-python": [f"{build}/stackcap", "--no-python", "-o", cap] + work,
    "stackcap (Python frames)": [f"{build}/stackcap", "-o", cap] + work,
}


def timed(cmd):
    t = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"pyoverhead.py: {cmd[0]} failed ({status})")
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime


best = {k: (float("inf"), float("inf")) for k in modes}
# Each round in its own order, as overhead.py does: in one fixed order the
# plain run was 27 % slower than both captures in every one of 5 rounds.
order = list(modes.items())
shuffle = random.Random(16)
for _ in range(runs):
    shuffle.shuffle(order)
    for name, cmd in order:
        if os.path.exists(cap):
            os.unlink(cap)
        wall, cpu = timed(cmd)
        best[name] = (min(best[name][0], wall), min(best[name][1], cpu))
base_wall, base_cpu = best["plain"]
for name, (wall, cpu) in best.items():
    extra = "" if name == "plain" else (
        f"  overhead {100 * (wall / base_wall - 1):+.1f}% wall, {100 * (cpu / base_cpu - 1):+.1f}% CPU")
    print(f"stackcap: pure-Python loop ({python}), {name}: {wall:.3f}s wall, {cpu:.3f}s CPU{extra}")
if os.path.exists(cap):
    os.unlink(cap)
