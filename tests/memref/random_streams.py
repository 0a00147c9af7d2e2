#!/usr/bin/env python3
"""Random valid PyTorch raw memory timelines for the memref comparison.

  random_streams.py N SEED OUTDIR

Writes OUTDIR/sNNNN-KIND.raw.json (some .raw.json.gz) for N streams. Each is
a JSON list of [t_ns, action, signed_bytes, category_index] rows, valid the
way torch writes them: sorted by (t, action); PREEXISTING rows at t = -1;
every DESTROY / INCREMENT_VERSION refers to a live allocation of the same
size and category; INCREMENT_VERSION is a (-n, cat_before), (+n, cat_after)
pair of rows. Kinds (cycled, so small N still covers them all): empty list,
PREEXISTING only, t < 1000 ns, many events inside one microsecond, Unix-epoch
times (~1.7e18 ns, where float division differs from integer division),
epoch times with ns parts picked near the rounding edges, and mixed.
Whitespace varies between files (torch's json.dump spacing, compact, one row
per line, indent=2, odd spacing); the numbers are always plain integers.
"""

import gzip
import json
import os
import random
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference as ref  # noqa: E402  (validation only)

KINDS = ("empty", "preexisting", "tiny", "onemicro", "epoch", "epochedge", "mixed")
EPOCH_LO = 1_690_000_000_000_000_000
EPOCH_HI = 1_760_000_000_000_000_000


def rand_size(r):
    x = r.random()
    if x < 0.06:
        return 0
    if x < 0.30:
        return r.randrange(1, 4096)
    if x < 0.75:
        return 512 * r.randrange(1, 1 << 16)
    if x < 0.95:
        return r.randrange(1, 1 << 32)
    return r.randrange(1 << 32, (1 << 40) + 1)


def rand_cat(r):
    # Favour Unknown (7) a little, like real CPU/Key-only captures.
    return 7 if r.random() < 0.2 else r.randrange(8)


def epoch_ns_edge(r):
    """Epoch ns whose us conversion is touchy: ns part in 870..999 (where the
    rounded quotient may reach the next integer), or just after 000."""
    base = r.randrange(EPOCH_LO // 1000, EPOCH_HI // 1000) * 1000
    x = r.random()
    if x < 0.7:
        return base + r.randrange(860, 1000)
    if x < 0.85:
        return base + r.randrange(0, 130)
    return base + r.randrange(1000)


class Time:
    """Non-decreasing time source for one stream."""

    def __init__(self, r, kind):
        self.r = r
        self.kind = kind
        if kind == "tiny":
            self.t = r.choice((0, 0, 1, r.randrange(1000)))
        elif kind == "onemicro":
            self.t = r.choice((r.randrange(0, 10**9), r.randrange(EPOCH_LO, EPOCH_HI)))
            self.t -= self.t % 1000
            self.hi = self.t + 999
        elif kind == "epochedge":
            self.t = epoch_ns_edge(r)
        elif kind == "epoch":
            self.t = r.randrange(EPOCH_LO, EPOCH_HI)
        else:  # mixed: sometimes small, sometimes epoch
            self.t = r.choice((r.randrange(0, 5000), r.randrange(0, 10**12),
                               r.randrange(EPOCH_LO, EPOCH_HI)))

    def next(self):
        r = self.r
        if r.random() < 0.25:  # same timestamp as the previous event
            return self.t
        if self.kind == "tiny":
            self.t += r.choice((1, 1, 7, 100, 250, 999, 1000, 1001))
        elif self.kind == "onemicro":
            self.t = min(self.hi, self.t + r.randrange(0, 40))
        elif self.kind == "epochedge":
            step = r.choice((1, 13, 999, 1000, 10**3 * r.randrange(1, 50), 10**6))
            t = self.t + step
            if r.random() < 0.5:  # snap the ns part to the rounding edge
                t = t - t % 1000 + r.randrange(860, 1000)
                if t < self.t:
                    t += 1000
            self.t = t
        else:
            x = r.random()
            if x < 0.35:
                self.t += r.randrange(1, 1000)          # same or next us
            elif x < 0.8:
                self.t += r.randrange(1000, 200_000)    # a few us
            elif x < 0.97:
                self.t += r.randrange(200_000, 50_000_000)
            else:
                self.t += r.randrange(10**9, 10**11)    # a long gap
        return self.t


def gen_timeline(r, kind):
    """Timeline tuples (t, action, n, cat_before, cat_after), valid & sorted."""
    if kind == "empty":
        return []
    ev = []
    live = []  # [n, cat] of live allocations, in no particular order
    npre = r.choice((0, 0, 1, 2, r.randrange(3, 30)))
    if kind == "preexisting":
        npre = r.randrange(1, 40)
    for _ in range(npre):
        n, c = rand_size(r), rand_cat(r)
        ev.append((-1, ref.PREEXISTING, n, c, c))
        live.append([n, c])
    if kind == "preexisting":
        return ev
    nev = r.choice((1, 2, 5, r.randrange(5, 60), r.randrange(60, 600),
                    r.randrange(60, 600), r.randrange(600, 3000)))
    clock = Time(r, kind)
    p_destroy = r.choice((0.2, 0.35, 0.5))  # some streams leak a lot
    for _ in range(nev):
        t = clock.next()
        x = r.random()
        if not live or x < 0.45:
            n, c = rand_size(r), rand_cat(r)
            ev.append((t, ref.CREATE, n, c, c))
            live.append([n, c])
        elif x < 0.45 + p_destroy:
            k = r.randrange(len(live))
            n, c = live[k]
            live[k] = live[-1]
            live.pop()
            ev.append((t, ref.DESTROY, n, c, c))
        else:
            k = r.randrange(len(live))
            n, c = live[k]
            c2 = c if r.random() < 0.4 else rand_cat(r)  # keep or change
            live[k][1] = c2
            ev.append((t, ref.INCREMENT_VERSION, n, c, c2))
    # torch sorts by (t, action.value); Python's sort is stable, so one
    # allocation's events stay in CREATE < INCREMENT_VERSION < DESTROY order.
    ev.sort(key=lambda e: (e[0], e[1]))
    ref.validate_timeline(ev)
    return ev


def dump(rows, style):
    if style == "torch":
        return json.dumps(rows)
    if style == "compact":
        return json.dumps(rows, separators=(",", ":"))
    if style == "lines":
        return "[\n" + ",\n".join(json.dumps(x) for x in rows) + "\n]\n"
    if style == "indent":
        return json.dumps(rows, indent=2)
    if style == "odd":  # tabs, CRLF, spaces before commas, leading space
        body = ("\t,\r\n ".join("[ " + " ,".join(str(v) for v in x) + "\t]" for x in rows))
        return " \r\n[" + body + " ]\r\n\t"
    raise ValueError(style)


STYLES = ("torch", "torch", "torch", "compact", "lines", "indent", "odd")


def main(argv):
    if len(argv) != 4:
        sys.stderr.write("usage: random_streams.py N SEED OUTDIR\n")
        return 2
    count, seed, outdir = int(argv[1]), int(argv[2]), argv[3]
    os.makedirs(outdir, exist_ok=True)
    master = random.Random(seed)
    for i in range(count):
        r = random.Random(master.getrandbits(64))
        kind = KINDS[i % len(KINDS)]
        rows = [list(e) for e in ref.raw_events(gen_timeline(r, kind))]
        style = r.choice(STYLES)
        text = dump(rows, style)
        assert ref.parse_rows(text) == rows
        gz = r.random() < 0.3
        name = "s%04d-%s-%s.raw.json%s" % (i, kind, style, ".gz" if gz else "")
        data = text.encode()
        if gz:
            data = gzip.compress(data, mtime=0)
        with open(os.path.join(outdir, name), "wb") as f:
            f.write(data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
