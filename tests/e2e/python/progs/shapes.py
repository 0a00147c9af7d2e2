# Shapes of Python stacks, 0.3 s of CPU each: deep recursion, a generator
# driven by sum(), a callback from C (sorted's key), zlib.compress (the GIL
# released inside zlib) and a second thread.
import sys
import threading
import time
import zlib


def busy(sec):
    end = time.thread_time() + sec
    while time.thread_time() < end:
        pass


def recurse(depth):
    if depth == 0:
        busy(0.3)
        return 0
    return recurse(depth - 1) + 1


def numbers():
    end = time.thread_time() + 0.3
    while time.thread_time() < end:
        yield 1


def by_cpu(x):
    busy(0.003)
    return -x


def compress_loop():
    data = bytes(range(256)) * 4096
    end = time.thread_time() + 0.3
    while time.thread_time() < end:
        zlib.compress(data, 9)


def worker():
    busy(0.3)


def main():
    recurse(70)
    sum(numbers())
    sorted(range(100), key=by_cpu)
    compress_loop()
    t = threading.Thread(target=worker, name="worker")
    t.start()
    t.join()
    end = sys.argv[1] if len(sys.argv) > 1 else ""
    if end == "os_exit":
        import os
        busy(0.1)
        os._exit(3)
    if end == "sys_exit":
        busy(0.1)
        sys.exit(4)


main()
