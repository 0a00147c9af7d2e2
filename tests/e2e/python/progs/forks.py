# A child forked after Python frames were captured: its own capture (a
# new file: ids start again) names its frames too.
import os
import time


def spin(sec):
    end = time.thread_time() + sec
    while time.thread_time() < end:
        pass


def parent_work():
    spin(0.2)


def child_work():
    spin(0.3)


parent_work()
pid = os.fork()
if pid == 0:
    child_work()
    os._exit(0)
os.waitpid(pid, 0)
