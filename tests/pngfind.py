#!/usr/bin/env python3
"""pngfind.py BIG.png SMALL.png...: where each SMALL picture lies, pixel for
pixel, inside BIG: one "X Y" line per SMALL (its top-left pixel; the
leftmost, then topmost place), or "none". Both are 8-bit RGB PNG files as
tcplot and tcreorder write them; decoded here with zlib alone, so that the
tests need no imaging library."""
import struct
import sys
import zlib


def read_png(path):
    """(width, height, rows): rows a list of bytes, 3 per pixel."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: not a PNG file")
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            if depth != 8 or colour != 2:
                sys.exit(f"{path}: not 8-bit RGB")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride, rows, prev = 3 * width, [], bytearray(3 * width)
    for y in range(height):
        line = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind, cur = line[0], bytearray(line[1:])
        for i in range(stride):
            a = cur[i - 3] if i >= 3 else 0
            b = prev[i]
            c = prev[i - 3] if i >= 3 else 0
            if kind == 1:
                cur[i] = (cur[i] + a) & 255
            elif kind == 2:
                cur[i] = (cur[i] + b) & 255
            elif kind == 3:
                cur[i] = (cur[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                cur[i] = (cur[i] + pred) & 255
        rows.append(bytes(cur))
        prev = cur
    return width, height, rows


def find(big, small):
    bw, bh, brows = big
    sw, sh, srows = small
    for y in range(bh - sh + 1):
        start = brows[y].find(srows[0])
        while start >= 0:
            if start % 3 == 0 and all(brows[y + k][start:start + 3 * sw] == srows[k]
                                      for k in range(sh)):
                return f"{start // 3} {y}"
            start = brows[y].find(srows[0], start + 1)
    return "none"


big = read_png(sys.argv[1])
for path in sys.argv[2:]:
    print(find(big, read_png(path)))
