#!/usr/bin/env python3
"""Runs a shell command N times (default 1) and prints "SECONDS MAXRSS_KB":
the fastest wall time (the least disturbed run on a shared machine) and the
peak resident memory of the command's processes. Used by bench.sh only.

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
best = None
for _ in range(runs):
    start = time.perf_counter()
    rc = subprocess.call(args[0], shell=True)
    elapsed = time.perf_counter() - start
    if rc != 0:
        sys.exit(rc)
    best = elapsed if best is None else min(best, elapsed)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"{best:.3f} {rss}")
