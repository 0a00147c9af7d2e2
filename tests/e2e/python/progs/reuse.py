# 150 code objects made, run (5 ms of CPU each) and freed in turn: their
# addresses are reused, so a name cache keyed by address alone would name
# later functions after earlier ones. gen_I's function is f_I.
import time


def spin(sec):
    end = time.thread_time() + sec
    while time.thread_time() < end:
        pass


for i in range(150):
    src = "def f_%d():\n    spin(0.005)\nf_%d()\n" % (i, i)
    exec(compile(src, "gen_%d.py" % i, "exec"), {"spin": spin})
