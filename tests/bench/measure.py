#!/usr/bin/env python3
"""Runs a shell command once and prints "SECONDS MAXRSS_KB" for it (wall time,
peak resident memory of the largest child). Used by bench.sh only."""
import resource
import subprocess
import sys
import time

start = time.perf_counter()
rc = subprocess.call(sys.argv[1], shell=True)
elapsed = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"{elapsed:.3f} {rss}")
sys.exit(rc)
