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
"""
import struct
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


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    cmd, path = argv[1], argv[2]
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
