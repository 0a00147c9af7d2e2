# Frames pushed and popped as fast as possible while sampled at a high
# rate: recursion 500 deep across the interpreter's stack chunks,
# exceptions unwinding it, generators, code made and freed, 40 short
# threads. Must exit 0 with a clean capture.
import sys
import threading
import time

sys.setrecursionlimit(5000)


def down(n):
    if n == 0:
        raise ValueError("bottom")
    return down(n - 1)


def gen(n):
    for i in range(n):
        yield i


def churn(sec):
    end = time.thread_time() + sec
    k = 0
    while time.thread_time() < end:
        try:
            down(500)
        except ValueError:
            pass
        sum(gen(200))
        exec(compile("def g_%d(): return %d\ng_%d()" % (k, k, k), "churn.py", "exec"), {})
        k += 1


threads = [threading.Thread(target=churn, args=(0.02,)) for _ in range(40)]
for t in threads:
    t.start()
churn(0.5)
for t in threads:
    t.join()
