#!/usr/bin/env python3
"""Runs a shell command N times (default 1) and prints "SECONDS MAXRSS_KB
CPU_SECONDS": the fastest wall time (the least disturbed run on a shared
machine), the peak resident memory of the command's processes, and the
least CPU time (user + system) a run took: what one core costs, whatever
else the machine runs. Used by bench.sh only.

With --anchor ANCHOR, ANCHOR runs before each run of COMMAND and its
fastest wall time is printed fourth: a ratio to an anchor (wc -l) measured
in turn, so the machine's drift between two blocks of runs does not move
it. ANCHOR must use little memory: the peak is over both.

Usage: measure.py [-n N] [--anchor ANCHOR] COMMAND
"""
import resource
import subprocess
import sys
import time

args = sys.argv[1:]
runs = 1
if args[:1] == ["-n"]:
    runs, args = int(args[1]), args[2:]
anchor = None
if args[:1] == ["--anchor"]:
    anchor, args = args[1], args[2:]
best = best_cpu = best_anchor = None
for _ in range(runs):
    if anchor is not None:
        start = time.perf_counter()
        if subprocess.call(anchor, shell=True) != 0:
            sys.exit(1)
        elapsed = time.perf_counter() - start
        best_anchor = elapsed if best_anchor is None else min(best_anchor, elapsed)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    rc = subprocess.call(args[0], shell=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        sys.exit(rc)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    best = elapsed if best is None else min(best, elapsed)
    best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"{best:.3f} {rss} {best_cpu:.3f}" + ("" if anchor is None else f" {best_anchor:.3f}"))
