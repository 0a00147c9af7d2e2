#!/usr/bin/env python3
"""Runs a shell command N times (default 1) and prints "SECONDS MAXRSS_KB
CPU_SECONDS": the fastest wall time (the least disturbed run on a shared
machine), the peak resident memory of the command's processes, and the
least CPU time (user + system) a run took: what one core costs, whatever
else the machine runs. Used by bench.sh only.

Usage: measure.py [-n N] COMMAND
"""
import resource
import subprocess
import sys
import time

args = sys.argv[1:]
runs = 1
if args[:1] == ["-n"]:
    runs, args = int(args[1]), args[2:]
best = best_cpu = None
for _ in range(runs):
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
print(f"{best:.3f} {rss} {best_cpu:.3f}")
