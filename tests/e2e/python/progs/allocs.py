# 2000 x 100 kB kept: 200 MB allocated on one line. With "threads", then
# prints how many threads the process has (a single-threaded program under
# --alloc-sample: the shim's writer runs on its thread, so 1).
import os
import sys


def make_lists():
    keep = []
    for _ in range(2000):
        keep.append(bytearray(100000))  # ALLOC_LINE
    return keep


kept = make_lists()
if sys.argv[1:] == ["threads"]:
    print("threads", len(os.listdir("/proc/self/task")))
