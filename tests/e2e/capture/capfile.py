"""capfile.py - a capture file's chunks, and damage done to them, for
run.sh. Parses the framing only (formats/capture.h: a 64-byte header, then
chunks of a 32-byte header - "CHNK", u16 type, u16 flags, u32 disk_len,
u32 raw_len, u64 seq, u32 crc32, u32 reserved - and disk_len bytes), and
checks each chunk's CRC the way the reader does, so the test knows where
the chunks are without trusting flamekit.

  capfile.py chunks FILE          "INDEX OFFSET SIZE TYPE SEQ" per chunk
                                  (SIZE includes the 32-byte header); exit 1
                                  when the file is not a whole, valid series
  capfile.py flip FILE OUT INDEX  OUT is FILE with one bit flipped in the
                                  middle of chunk INDEX's payload (its CRC
                                  field when it has none); prints the
                                  chunk's SIZE
  capfile.py middle FILE          the index of the chunk nearest the middle
                                  of the file (never the first or last)
  capfile.py cut FILE OUT N       OUT is the first N bytes of FILE
  capfile.py write SPEC OUT       OUT is a capture built from SPEC, a JSON
                                  list of chunks (write_capture below):
                                  Python frames and their tagged addresses
                                  without a Python run
  capfile.py meta FILE            "KEY=VALUE" per META record
  capfile.py folded FILE [allocs] the samples' (or allocations') stacks,
                                  root first, "frame;frame;... weight":
                                  Python frames (bit 63) as
                                  "py:QUALNAME:LINE@FILE", native ones as
                                  their module's file name; exit 1 when a
                                  Python frame id or a stack node is used
                                  before its chunk defines it, or an id is
                                  defined twice or out of order
  capfile.py pyframes FILE        "ID FILE QUALNAME NAME FIRSTLINE LINE" per
                                  PYFRAMES record
  capfile.py samples FILE         each sample's stack, in file order, as
                                  folded prints them (weight: the sample's)
"""
import json
import struct
import subprocess
import sys
import zlib

HEADER = 64
CHUNK_HEADER = 32
MAGIC = 0x4B4E4843


def chunks(data):
    out = []
    off = HEADER
    while off < len(data):
        if len(data) - off < CHUNK_HEADER:
            raise ValueError("truncated chunk header at %d" % off)
        magic, typ, flags, disk, raw, seq, crc, _ = struct.unpack_from("<IHHIIQII", data, off)
        if magic != MAGIC:
            raise ValueError("no chunk magic at %d" % off)
        body = data[off + CHUNK_HEADER : off + CHUNK_HEADER + disk]
        if len(body) != disk:
            raise ValueError("truncated chunk at %d" % off)
        if zlib.crc32(body, zlib.crc32(data[off : off + 24])) != crc:
            raise ValueError("CRC mismatch at %d" % off)
        out.append((off, CHUNK_HEADER + disk, typ, seq))
        off += CHUNK_HEADER + disk
    return out


# ---- writing captures (the Python-frame cases of pynames.sh) ----

PYTHON_BIT = 1 << 63
CHUNK_TYPES = {"meta": 1, "modules": 2, "stacks": 3, "threads": 4, "samples": 5,
               "allocs": 6, "end": 9, "pyframes": 10}


def uv(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def sv(v):
    return uv((v << 1) ^ (v >> 63) if v < 0 else v << 1)


def text(v):
    b = v.encode("utf-8") if isinstance(v, str) else bytes(v)
    return uv(len(b)) + b


def address(a):
    """A stack address: an integer, or "py:ID" for Python frame ID."""
    if isinstance(a, str) and a.startswith("py:"):
        return PYTHON_BIT | int(a[3:])
    return int(a)


def payload(kind, body):
    """The payload of one chunk of the spec (see write_capture)."""
    if kind == "meta":
        return b"".join(text(k) + text(v) for k, v in body)
    if kind == "modules":
        return b"".join(text(p) + uv(s) + uv(e) + uv(b) + text(b"") for p, s, e, b in body)
    if kind == "pyframes":
        return b"".join(uv(i) + text(f) + text(q) + text(n) + uv(first) + uv(line)
                        for i, f, q, n, first, line in body)
    if kind == "stacks":
        first, nodes = body
        return uv(first) + b"".join(uv(p) + uv(address(a)) for p, a in nodes)
    if kind == "threads":
        return b"".join(uv(t) + text(n) for t, n in body)
    if kind == "samples":
        return uv(1000) + b"".join(uv(t) + uv(n) + uv(w) + sv(1) for t, n, w in body)
    if kind == "allocs":  # (kind 1, tid, address, size, node) or (kind 2, tid, address)
        out = uv(1000)
        for r in body:
            out += bytes([r[0]]) + sv(1) + uv(r[1]) + uv(r[2])
            if r[0] == 1:
                out += uv(r[3]) + uv(r[4])
        return out
    if kind == "end":
        return uv(0) * 4
    if kind == "raw":  # [type, hex bytes]: a payload as it is
        return bytes.fromhex(body[1])
    raise ValueError("unknown chunk kind %r" % kind)


def write_capture(spec, out_path):
    """spec: {"hz": N, "flags": N, "chunks": [[KIND, BODY], ...]}, KIND one of
    CHUNK_TYPES (or "raw": BODY [type, hex]). Chunks are stored (no zlib),
    numbered in order."""
    hz = spec.get("hz", 1000)
    head = bytearray(struct.pack("<8sIIIIQQIIQ", b"STKCAP01", 1, HEADER, 4242, 1,
                                 10**9, 1700000000 * 10**9, hz, spec.get("flags", 0), 0))
    head += struct.pack("<I", zlib.crc32(bytes(head))) + bytes(4)
    out = bytearray(head)
    for seq, (kind, body) in enumerate(spec["chunks"]):
        typ = body[0] if kind == "raw" else CHUNK_TYPES[kind]
        data = payload(kind, body)
        h = struct.pack("<IHHIIQ", MAGIC, typ, 0, len(data), len(data), seq)
        out += h + struct.pack("<II", zlib.crc32(data, zlib.crc32(h)), 0) + data
    with open(out_path, "wb") as f:
        f.write(out)
TYPES = {"META": 1, "MODULES": 2, "STACKS": 3, "SAMPLES": 5, "ALLOCS": 6, "PYFRAMES": 10}
PYTHON = 1 << 63


class Cursor:
    def __init__(self, b):
        self.b, self.i = b, 0

    def more(self):
        return self.i < len(self.b)

    def u8(self):
        self.i += 1
        return self.b[self.i - 1]

    def uv(self):
        v = shift = 0
        while True:
            c = self.u8()
            v |= (c & 127) << shift
            shift += 7
            if not c & 128:
                return v

    def sv(self):
        v = self.uv()
        return -(v >> 1) - 1 if v & 1 else v >> 1

    def str(self):
        n = self.uv()
        self.i += n
        return bytes(self.b[self.i - n : self.i]).decode("utf-8", "replace")


def unpack(flags, body):
    """A chunk's payload from its body as on disk: zlib (flag 1, older
    captures) or zstd (flag 2), which Python's standard library lacks, so
    the zstd command (Debian's zstd package, installed by make deps)
    decodes it."""
    if flags & 1:
        return zlib.decompress(body)
    if flags & 2:
        return subprocess.run(["zstd", "-dcq"], input=body, stdout=subprocess.PIPE,
                              check=True).stdout
    return body


def payloads(data):
    for off, size, typ, _ in chunks(data):
        flags = struct.unpack_from("<H", data, off + 6)[0]
        body = bytes(data[off + CHUNK_HEADER : off + size])
        yield typ, unpack(flags, body)


def decode(data, want_allocs=False, in_order=None):
    """(meta, pyframes, folded lines); raises ValueError on a use before
    definition."""
    meta, pyframes, nodes, modules, out = {}, {}, {}, [], {}

    def name(ip):
        if ip & PYTHON:
            f = pyframes.get(ip & ~PYTHON)
            if f is None:
                raise ValueError("Python frame id %d used before its PYFRAMES record" % (ip & ~PYTHON))
            return "py:%s:%d@%s" % (f[1], f[4], f[0])
        for path, lo, hi in modules:
            if lo <= ip < hi:
                return path.rsplit("/", 1)[-1]
        return "0x%x" % ip

    def stack(node):
        frames = []
        while node:
            if node not in nodes:
                raise ValueError("stack node %d used before its STACKS chunk" % node)
            node, ip = nodes[node]
            frames.append(name(ip))
        return ";".join(reversed(frames))

    for typ, p in payloads(data):
        c = Cursor(p)
        if typ == TYPES["META"]:
            while c.more():
                k = c.str()
                meta[k] = c.str()
        elif typ == TYPES["MODULES"]:
            while c.more():
                path, lo, hi, _, _ = c.str(), c.uv(), c.uv(), c.uv(), c.str()
                modules.append((path, lo, hi))
        elif typ == TYPES["PYFRAMES"]:
            while c.more():
                fid = c.uv()
                rec = (c.str(), c.str(), c.str(), c.uv(), c.uv())
                if fid in pyframes or fid != len(pyframes) + 1:
                    raise ValueError("PYFRAMES id %d defined twice or out of order" % fid)
                pyframes[fid] = rec
        elif typ == TYPES["STACKS"]:
            nid = c.uv()
            while c.more():
                parent, ip = c.uv(), c.uv()
                if ip & PYTHON and (ip & ~PYTHON) not in pyframes:
                    raise ValueError("Python frame id %d used before its PYFRAMES record" % (ip & ~PYTHON))
                nodes[nid] = (parent, ip)
                nid += 1
        elif typ == TYPES["SAMPLES"] and not want_allocs:
            c.uv()
            while c.more():
                _, node, weight, _ = c.uv(), c.uv(), c.uv(), c.sv()
                k = stack(node)
                if in_order is not None:
                    in_order.append((k, weight))
                out[k] = out.get(k, 0) + weight
        elif typ == TYPES["ALLOCS"] and want_allocs:
            c.uv()
            while c.more():
                # kinds 4 and 5: 1 and 2 on the thread of the record
                # before, their address a difference (one sv, no tid)
                kind, _ = c.u8(), c.sv()
                if kind in (4, 5):
                    c.sv()
                    kind -= 3
                else:
                    c.uv(), c.uv()
                if kind == 1:
                    size, node = c.uv(), c.uv()
                    k = stack(node)
                    out[k] = out.get(k, 0) + size
    return meta, pyframes, out


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, path = argv[1], argv[2]
    if cmd == "write":
        with open(path) as f:
            write_capture(json.load(f), argv[3])
        return 0
    with open(path, "rb") as f:
        data = bytearray(f.read())
    if cmd == "cut":
        with open(argv[3], "wb") as f:
            f.write(data[: int(argv[4])])
        return 0
    try:
        cs = chunks(data)
    except ValueError as e:
        print("capfile.py: %s: %s" % (path, e), file=sys.stderr)
        return 1
    if cmd in ("meta", "folded", "pyframes", "samples"):
        order = []
        try:
            meta, pyframes, folded = decode(data, len(argv) > 3 and argv[3] == "allocs", order)
        except (ValueError, IndexError) as e:
            print("capfile.py: %s: %s" % (path, e), file=sys.stderr)
            return 1
        if cmd == "meta":
            for k, v in meta.items():
                print("%s=%s" % (k, v))
        elif cmd == "samples":
            for k, v in order:
                print(k, v)
        elif cmd == "pyframes":
            for fid, f in sorted(pyframes.items()):
                print(fid, *f)
        else:
            for k, v in sorted(folded.items()):
                print(k, v)
        return 0
    if cmd == "chunks":
        for i, (off, size, typ, seq) in enumerate(cs):
            print(i, off, size, typ, seq)
    elif cmd == "middle":
        if len(cs) < 3:
            return 1
        mid = len(data) // 2
        best = min(range(1, len(cs) - 1), key=lambda i: abs(cs[i][0] + cs[i][1] // 2 - mid))
        print(best)
    elif cmd == "flip":
        off, size, _, _ = cs[int(argv[4])]
        if size > CHUNK_HEADER:
            at = off + CHUNK_HEADER + (size - CHUNK_HEADER) // 2
        else:
            at = off + 24
        data[at] ^= 0x10
        with open(argv[3], "wb") as f:
            f.write(data)
        print(size)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
