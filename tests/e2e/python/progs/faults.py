# faulthandler sets its SIGSEGV handler after the shim's (pytest does the
# same): walks made to fault must still be caught by the shim, and with
# "crash" a real fault must still reach faulthandler and end the process.
import faulthandler
import sys
import time

faulthandler.enable()


def spin(sec):
    end = time.thread_time() + sec
    while time.thread_time() < end:
        pass


spin(0.4)
if len(sys.argv) > 1 and sys.argv[1] == "crash":
    import ctypes
    ctypes.string_at(0)
