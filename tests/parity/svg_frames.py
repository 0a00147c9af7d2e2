#!/usr/bin/env python3
"""Prints the frames of a flame graph SVG as sorted lines, so two SVGs can be
compared regardless of frame order (flamegraph.pl writes frames in Perl hash
order, which is random per run).

Each line: title | x | y | width | height | fill | text-x | text-y | label
Usage: svg_frames.py FILE.svg
"""
import re
import sys

FRAME = re.compile(
    r'<g[^>]*>\n<title>(.*?)</title><rect x="([^"]*)" y="([^"]*)" width="([^"]*)" '
    r'height="([^"]*)" fill="([^"]*)" rx="2" ry="2" />\n<text  x="([^"]*)" y="([^"]*)" >(.*?)</text>\n</g>',
    re.S)


def frames(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        svg = f.read()
    start = svg.find('<g id="frames">')
    return sorted(" | ".join(m.groups()) for m in FRAME.finditer(svg, start))


if __name__ == "__main__":
    for line in frames(sys.argv[1]):
        print(line)
