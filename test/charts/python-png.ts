/**
 * An independent PNG check in Python's standard library (zlib + struct), so our decoder is not the only judge of
 * our encoder: walks every chunk, checks every CRC, reads IHDR, inflates IDAT, reverses all five filter types and
 * returns the SHA-256 of the RGBA pixels. `writeRgbPng` goes the other way: Python encodes an RGB PNG with the
 * Average and Paeth filters (which our encoder never writes), to test our decoder on bytes it did not produce.
 */
import { execFileSync } from 'node:child_process';

export interface PythonPngReport {
  chunks: { type: string; length: number; crcOk: boolean }[];
  width: number;
  height: number;
  bitDepth: number;
  colourType: number;
  interlace: number;
  filterTypes: number[];
  rgbaSha256: string;
}

const INSPECT = String.raw`
import hashlib, json, struct, sys, zlib
data = sys.stdin.buffer.read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'bad signature'
pos, chunks, idat, ihdr = 8, [], b'', None
while pos < len(data):
    length, ctype = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    crc, = struct.unpack('>I', data[pos + 8 + length:pos + 12 + length])
    chunks.append({'type': ctype.decode('ascii'), 'length': length, 'crcOk': zlib.crc32(ctype + body) == crc})
    if ctype == b'IHDR': ihdr = struct.unpack('>IIBBBBB', body)
    if ctype == b'IDAT': idat += body
    pos += 12 + length
w, h, depth, ctype, _, _, interlace = ihdr
bpp = 4 if ctype == 6 else 3
stride = w * bpp
raw = zlib.decompress(idat)
assert len(raw) == h * (stride + 1), 'bad IDAT length'
prev, rows, filters = bytearray(stride), [], []
for y in range(h):
    f = raw[y * (stride + 1)]
    cur = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    filters.append(f)
    for i in range(stride):
        a = cur[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 0: p = 0
        elif f == 1: p = a
        elif f == 2: p = b
        elif f == 3: p = (a + b) // 2
        elif f == 4:
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
        else: raise ValueError('filter %d' % f)
        cur[i] = (cur[i] + p) & 255
    rows.append(bytes(cur))
    prev = cur
pixels = b''.join(rows)
if bpp == 3:
    pixels = b''.join(pixels[i:i + 3] + b'\xff' for i in range(0, len(pixels), 3))
print(json.dumps({'chunks': chunks, 'width': w, 'height': h, 'bitDepth': depth, 'colourType': ctype,
                  'interlace': interlace, 'filterTypes': sorted(set(filters)),
                  'rgbaSha256': hashlib.sha256(pixels).hexdigest()}))
`;

export function inspectWithPython(png: Uint8Array): PythonPngReport {
  return JSON.parse(execFileSync('python3', ['-c', INSPECT], { input: png, encoding: 'utf8' })) as PythonPngReport;
}

/** Pixel (x, y) is (x·7 mod 256, y·11 mod 256, (x+y)·3 mod 256); row y uses filter 3 or 4 alternately. */
const WRITE_RGB = String.raw`
import struct, sys, zlib
w, h = int(sys.argv[1]), int(sys.argv[2])
px = lambda x, y, ch: ((x * 7) % 256, (y * 11) % 256, ((x + y) * 3) % 256)[ch] if 0 <= x and 0 <= y else 0
raw = bytearray()
for y in range(h):
    f = 3 if y % 2 == 0 else 4
    raw.append(f)
    for x in range(w):
        for ch in range(3):
            a, b, c = px(x - 1, y, ch), px(x, y - 1, ch), px(x - 1, y - 1, ch)
            if f == 3: pred = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            raw.append((px(x, y, ch) - pred) & 255)
def chunk(t, body): return struct.pack('>I', len(body)) + t + body + struct.pack('>I', zlib.crc32(t + body))
sys.stdout.buffer.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
                        + chunk(b'IDAT', zlib.compress(bytes(raw))) + chunk(b'IEND', b''))
`;

export function writeRgbPngWithPython(width: number, height: number): Uint8Array {
  return execFileSync('python3', ['-c', WRITE_RGB, String(width), String(height)]);
}

/** The pixel writeRgbPngWithPython puts at (x, y), as RGBA. */
export function pythonRgbPixel(x: number, y: number): [number, number, number, number] {
  return [(x * 7) % 256, (y * 11) % 256, ((x + y) * 3) % 256, 255];
}
