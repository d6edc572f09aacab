"""png.py -- what t/real/70-chromium.t compares of two screenshots.

usage: png.py FILE          one line: WIDTHxHEIGHT, bit depth and colour
                            type, and the SHA-256 of the decoded pixels
       png.py FILE1 FILE2   one line: how many pixels differ (same size
                            only), and the largest difference in a channel

The standard library only (zlib): non-interlaced PNGs of 8 bits per
channel, as Chromium writes them.  A file that is not one prints
"png: ..." with the reason, and the script exits 1.
"""
import hashlib
import struct
import sys
import zlib

CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}


def decode(path):
    """(width, height, depth, colour type, channels, rows of bytes)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + n
    if ihdr is None:
        raise ValueError("no IHDR")
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or interlace or ctype not in CHANNELS:
        raise ValueError("depth %d, colour type %d, interlace %d: not read here" % (depth, ctype, interlace))
    bpp = CHANNELS[ctype]
    raw = zlib.decompress(b"".join(idat))
    stride = w * bpp
    if len(raw) != h * (stride + 1):
        raise ValueError("%d bytes of pixels for %dx%d" % (len(raw), w, h))
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[i] = (line[i] + pred) & 255
            elif ftype != 0:
                raise ValueError("row %d: filter %d" % (y, ftype))
        rows.append(bytes(line))
        prev = line
    return w, h, depth, ctype, bpp, rows


def main(argv):
    try:
        imgs = [decode(p) for p in argv]
    except (OSError, ValueError, zlib.error, struct.error) as e:
        print("png: %s" % e)
        return 1
    if len(imgs) == 1:
        w, h, depth, ctype, _, rows = imgs[0]
        print("%dx%d depth %d colour %d pixels %s" % (w, h, depth, ctype,
                                                      hashlib.sha256(b"".join(rows)).hexdigest()))
        return 0
    (w1, h1, _, c1, bpp, r1), (w2, h2, _, c2, _, r2) = imgs
    if (w1, h1, c1) != (w2, h2, c2):
        print("png: %dx%d colour %d against %dx%d colour %d" % (w1, h1, c1, w2, h2, c2))
        return 1
    differ, worst = 0, 0
    for a, b in zip(r1, r2):
        if a == b:
            continue
        for x in range(w1):
            d = max(abs(a[x * bpp + k] - b[x * bpp + k]) for k in range(bpp))
            if d:
                differ += 1
                worst = max(worst, d)
    print("%d of %d pixels differ, by at most %d" % (differ, w1 * h1, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
