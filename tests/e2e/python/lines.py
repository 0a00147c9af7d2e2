"""lines.py - every code object of a few standard modules (and the code
objects inside them), as lines for pyline.c: "FIRSTLINENO HEX_LINETABLE
LINE0 LINE1 ..." with the line of each code unit as co_lines() gives it
(0: none). pyline.c decodes each table with the shim's decoder and counts
the differences."""
import argparse
import json
import threading
import types
import zlib  # noqa: F401 (a C module: no code objects, nothing to add)


def codes(co):
    yield co
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            yield from codes(c)


def main():
    for mod in (argparse, json.decoder, json.encoder, threading, types):
        with open(mod.__file__) as f:
            top = compile(f.read(), mod.__file__, "exec")
        for co in codes(top):
            units = len(co.co_code) // 2
            line = [0] * units
            for start, end, ln in co.co_lines():
                for u in range(start // 2, min(end // 2, units)):
                    line[u] = ln or 0
            print(co.co_firstlineno, co.co_linetable.hex() or "-", *line)


main()
