# f1, f2 and f3 spin 0.2, 0.4 and 0.6 s of this thread's CPU time: shares
# 1:2:3 whatever the machine's load. The hot line is spin's loop test.
import time


def spin(sec):
    end = time.thread_time() + sec
    while time.thread_time() < end:  # SPIN_LINE
        pass


def f1():
    spin(0.2)  # F1_LINE


def f2():
    spin(0.4)  # F2_LINE


def f3():
    spin(0.6)  # F3_LINE


f1()
f2()
f3()
