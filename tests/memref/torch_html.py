#!/usr/bin/python3
"""Reference rendering of a PyTorch memory timeline, the way torch's
``export_memory_timeline("x.html")`` draws it, with matplotlib.

    /usr/bin/python3 tests/memref/torch_html.py IN.raw.json[.gz] OUT.html
        [--reserved GIB] [--json COALESCED.json]

Writes OUT.html (torch's exact HTML wrapper around a base64 PNG) and the
same PNG as OUT.png (OUT with ".html" replaced, or ".png" appended) for
looking at.  Used by hand to compare flamekit's cairo rendering with
matplotlib's look; not run in CI.  Needs matplotlib and numpy
(``apt-get install -y python3-matplotlib``).

Written from the description in /work/shared/specs/torch-formats.md
section 2 (not copied from torch):

* IN is a raw timeline: a JSON list of ``[t_ns, action, signed_bytes,
  category_index]`` rows (optionally gzipped).  A coalesced ``[times,
  sizes]`` file is accepted too and used as is.
* Coalescing: ``t = int(t / 1000)`` for t != -1 (float division, then
  truncation, as torch does); ``t_min`` = the first real time (torch's
  ``t_min == -1 or 0 < t < t_min`` rule); one row of 9 columns per distinct
  time, each a copy of the previous one, then every event adds its signed
  bytes to column ``category_index + 1`` (for raw rows this is exactly
  torch's PREEXISTING/CREATE +n, DESTROY -n, INCREMENT_VERSION -n on the
  old and +n on the new category); finally negative times become t_min.
* Plot: ``times -= min(times)``, x = times / 1e3 (ms), stacked =
  cumsum(sizes, axis=1) / 1024**3; a 20x12 in figure at dpi 80
  (1600x960 px); ``fill_between(x, stacked[:, i], stacked[:, i+1])`` for the
  8 categories in colour-dict order with alpha 0.7; ``fig.legend`` with the
  8 names; x label "Time (ms)", y label "Memory (GB)".
* Title: torch prints ``"Max memory allocated: {:.2f} GiB \\nMax memory
  reserved: {:.2f} GiB"`` from torch.cuda's process-lifetime peaks.  A raw
  file carries neither, so "allocated" is the maximum of the stacked total
  and only that line is printed, unless --reserved GIB is given, in which
  case torch's two-line title is printed with that value.
"""

import argparse
import base64
import gzip
import io
import json
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# _CATEGORY_TO_COLORS order; the index in this list is _CATEGORY_TO_INDEX
CATEGORIES = [
    ("PARAMETER", "darkgreen"),
    ("OPTIMIZER_STATE", "goldenrod"),
    ("INPUT", "black"),
    ("TEMPORARY", "mediumpurple"),
    ("ACTIVATION", "red"),
    ("GRADIENT", "mediumblue"),
    ("AUTOGRAD_DETAIL", "royalblue"),
    ("Unknown", "grey"),
]

HTML = """<html>
<head><meta charset="utf-8" /><title>GPU Memory Timeline HTML</title></head>
<body>
  <img src='data:image/png;base64,{}'>
</body>
</html>"""


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def is_coalesced(data):
    return (len(data) == 2 and isinstance(data[0], list)
            and isinstance(data[1], list)
            and all(isinstance(t, int) for t in data[0])
            and (not data[1] or isinstance(data[1][0], list)))


def coalesce(rows):
    """Raw rows -> [times (epoch us), sizes (9 columns each)]."""
    times, sizes = [], []
    t_min = -1
    for t, _action, nbytes, cat in rows:
        if t != -1:
            t = int(t / 1000)
        if t_min == -1 or 0 < t < t_min:
            t_min = t
        if not times:
            times.append(t)
            sizes.append([0] * 9)
        elif t != times[-1]:
            times.append(t)
            sizes.append(list(sizes[-1]))
        sizes[-1][cat + 1] += nbytes
    times = [t_min if t < 0 else t for t in times]
    return [times, sizes]


def render(times, sizes, reserved_gib=None):
    """Return (png_bytes, max_allocated_gib)."""
    times = np.array(times, dtype=np.int64)
    sizes = np.array(sizes, dtype=np.int64).reshape(-1, 9)
    if times.size:
        times = times - times.min()
    x = times / 1e3
    stacked = np.cumsum(sizes, axis=1) / 1024**3
    max_alloc = float(stacked[:, -1].max()) if len(stacked) else 0.0

    fig = plt.figure(figsize=(20, 12), dpi=80)
    axes = fig.gca()
    for i, (_name, colour) in enumerate(CATEGORIES):
        axes.fill_between(x, stacked[:, i], stacked[:, i + 1],
                          color=colour, alpha=0.7)
    fig.legend([name for name, _ in CATEGORIES])
    axes.set_xlabel("Time (ms)")
    axes.set_ylabel("Memory (GB)")
    if reserved_gib is None:
        title = "Max memory allocated: {:.2f} GiB".format(max_alloc)
    else:
        title = ("Max memory allocated: {:.2f} GiB \n"
                 "Max memory reserved: {:.2f} GiB").format(max_alloc,
                                                          reserved_gib)
    axes.set_title(title)
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    return buf.getvalue(), max_alloc


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("input", help="raw timeline (.raw.json or .raw.json.gz)")
    ap.add_argument("output", help="HTML file to write")
    ap.add_argument("--reserved", type=float, metavar="GIB",
                    help="print torch's two-line title with this reserved peak")
    ap.add_argument("--json", metavar="PATH",
                    help="also write the coalesced [times, sizes] JSON here")
    args = ap.parse_args()

    data = load(args.input)
    times, sizes = data if is_coalesced(data) else coalesce(data)
    if args.json:
        with open(args.json, "w") as f:
            json.dump([times, sizes], f)
    png, max_alloc = render(times, sizes, args.reserved)

    with open(args.output, "w") as f:
        f.write(HTML.format(base64.b64encode(png).decode("utf-8")))
    png_path = (args.output[:-5] if args.output.endswith(".html")
                else args.output) + ".png"
    with open(png_path, "wb") as f:
        f.write(png)
    print("%s: %d time points, max allocated %.4f GiB; wrote %s and %s"
          % (args.input, len(times), max_alloc, args.output, png_path),
          file=sys.stderr)


if __name__ == "__main__":
    main()
