/**
 * Reading PNGs back: a decoder for 8-bit RGB/RGBA non-interlaced PNGs (what encodePng writes, checked chunk by
 * chunk), and the pixel checks the digest guard runs before sending: a chart whose pixels are all background (or
 * only gridlines and axes) is never sent as if it were fine.
 */
import { crc32, inflateSync } from 'node:zlib';
import { parseColor, type Rgba } from './color.ts';
import { PNG_SIGNATURE, type RasterImage } from './png.ts';

export class PngDecodeError extends Error {
  override name = 'PngDecodeError';
}

export function decodePng(bytes: Uint8Array): RasterImage {
  if (bytes.length < 8 || PNG_SIGNATURE.some((b, i) => bytes[i] !== b)) throw new PngDecodeError('not a PNG');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let header: { width: number; height: number; channels: number } | undefined;
  const idat: Uint8Array[] = [];
  for (let at = 8; ; ) {
    if (at + 12 > bytes.length) throw new PngDecodeError('truncated: no IEND chunk');
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    if (at + 12 + length > bytes.length) throw new PngDecodeError(`truncated ${type} chunk`);
    const body = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(body, crc32(bytes.subarray(at + 4, at + 8))) !== view.getUint32(at + 8 + length)) {
      throw new PngDecodeError(`bad CRC in ${type} chunk`);
    }
    at += 12 + length;
    if (type === 'IHDR') header = readHeader(body);
    else if (type === 'IDAT') idat.push(body);
    else if (type === 'IEND') break;
  }
  if (!header) throw new PngDecodeError('no IHDR chunk');
  const { width, height, channels } = header;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1)) {
    throw new PngDecodeError(`image data holds ${raw.length} bytes, ${width}×${height} needs ${height * (stride + 1)}`);
  }
  const pixels = unfilter(raw, height, stride, channels);
  if (channels === 4) return { width, height, data: pixels };
  const data = new Uint8Array(width * height * 4);
  for (let p = 0, q = 0; p < pixels.length; p += 3, q += 4)
    data.set([pixels[p]!, pixels[p + 1]!, pixels[p + 2]!, 255], q);
  return { width, height, data };
}

function readHeader(body: Uint8Array): { width: number; height: number; channels: number } {
  const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
  const [depth, colourType, , , interlace] = body.subarray(8, 13);
  if (body.length !== 13 || depth !== 8 || (colourType !== 2 && colourType !== 6) || interlace !== 0) {
    throw new PngDecodeError(`unsupported PNG: bit depth ${depth}, colour type ${colourType}, interlace ${interlace}`);
  }
  return { width: view.getUint32(0), height: view.getUint32(4), channels: colourType === 6 ? 4 : 3 };
}

/** Reverses the five PNG filter types row by row. */
function unfilter(raw: Uint8Array, height: number, stride: number, bpp: number): Uint8Array {
  const out = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    const src = y * (stride + 1) + 1;
    const row = y * stride;
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? out[row + i - bpp]! : 0;
      const b = y > 0 ? out[row - stride + i]! : 0;
      const c = i >= bpp && y > 0 ? out[row - stride + i - bpp]! : 0;
      let predictor: number;
      if (filter === 0) predictor = 0;
      else if (filter === 1) predictor = a;
      else if (filter === 2) predictor = b;
      else if (filter === 3) predictor = (a + b) >> 1;
      else if (filter === 4) predictor = paeth(a, b, c);
      else throw new PngDecodeError(`unknown filter type ${filter} in row ${y}`);
      out[row + i] = (raw[src + i]! + predictor) & 255;
    }
  }
  return out;
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

export interface InkOptions {
  /** The background colour (#rrggbb or #rrggbbaa); default white, the charts' background. */
  background?: string;
  /** Further colours that are not ink, e.g. CHART_CHROME (gridlines and axes) to ask "is there any data?". */
  ignore?: readonly string[];
}

/** The share of pixels (0–1) that differ from the background and the ignored colours. */
export function inkRatio(png: Uint8Array | RasterImage, options: InkOptions = {}): number {
  const image = png instanceof Uint8Array ? decodePng(png) : png;
  const skip = [options.background ?? '#ffffff', ...(options.ignore ?? [])].map(parseColor);
  const isSkipped = (d: Uint8Array, i: number) =>
    skip.some((c: Rgba) => d[i] === c[0] && d[i + 1] === c[1] && d[i + 2] === c[2] && d[i + 3] === c[3]);
  let ink = 0;
  for (let i = 0; i < image.data.length; i += 4) if (!isSkipped(image.data, i)) ink++;
  return ink / (image.width * image.height);
}

/** True when every pixel is background (or an ignored colour): the digest guard refuses such a chart. */
export function isBlank(png: Uint8Array | RasterImage, options: InkOptions = {}): boolean {
  return inkRatio(png, options) === 0;
}
