#!/usr/bin/env python3
"""chunks_from_capture.py - a stackcap capture as fuzz_chunks.c's input:
the header's flags byte, then each good chunk as type (1 byte), payload
length (2 bytes, little-endian) and the inflated payload (cut to 65535
bytes). Layout: formats/CAPTURE.md.

Usage: python3 tests/fuzz/chunks_from_capture.py CAPTURE OUT
"""
import struct
import subprocess
import sys
import zlib

HEADER = 64
CHUNK_HEADER = 32
MAGIC = 0x4B4E4843


def main():
    data = open(sys.argv[1], "rb").read()
    if data[:8] != b"STKCAP01":
        sys.exit(sys.argv[1] + ": not a capture")
    flags = struct.unpack_from("<I", data, 44)[0]
    out = bytearray([flags & 0xFF])
    at = HEADER
    while at + CHUNK_HEADER <= len(data):
        magic, ctype, cflags, disk, raw = struct.unpack_from("<IHHII", data, at)
        if magic != MAGIC or at + CHUNK_HEADER + disk > len(data):
            break
        body = data[at + CHUNK_HEADER:at + CHUNK_HEADER + disk]
        if cflags & 2:  # zstd: the command decodes it (no module in the standard library)
            payload = subprocess.run(["zstd", "-dcq"], input=body, stdout=subprocess.PIPE,
                                     check=True).stdout
        else:
            payload = zlib.decompress(body) if cflags & 1 else body
        payload = payload[:0xFFFF]
        out += struct.pack("<BH", ctype & 0xFF, len(payload)) + payload
        at += CHUNK_HEADER + disk
    open(sys.argv[2], "wb").write(out)


main()
