/**
 * Reading chart PNGs back: decoding (upng-js, with every chunk's CRC checked first, as upng-js does not) and the
 * check the digest guard runs before sending: a chart without a single pixel of a data colour shows no data,
 * whatever its title, labels and gridlines say.
 */
import { crc32 } from 'node:zlib';
import { DATA_COLOURS } from './spec.ts';
import UPNG from './upng.ts';

export class PngDecodeError extends Error {
  override name = 'PngDecodeError';
}

export interface DecodedPng {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, row by row. */
  data: Uint8Array;
}

const SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Decodes any PNG upng-js reads (all colour types and depths) to RGBA; throws PngDecodeError on anything else. */
export function decodePng(png: Uint8Array): DecodedPng {
  checkChunks(png);
  let image: UPNG.Image;
  let rgba: ArrayBuffer | undefined;
  try {
    // A copy (Buffer#slice would share the pool), which upng-js reads as a whole ArrayBuffer.
    const own = new Uint8Array(png).buffer;
    image = UPNG.decode(own);
    rgba = UPNG.toRGBA8(image)[0];
  } catch (error) {
    throw new PngDecodeError(`cannot decode the PNG: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { width, height } = image;
  if (!rgba || rgba.byteLength !== width * height * 4) {
    throw new PngDecodeError(`the PNG's pixel data does not fill its ${width}×${height} pixels`);
  }
  return { width, height, data: new Uint8Array(rgba) };
}

function checkChunks(png: Uint8Array): void {
  if (!(png instanceof Uint8Array)) throw new PngDecodeError('a PNG must be a Uint8Array');
  if (png.length < 8 || SIGNATURE.some((b, i) => png[i] !== b)) throw new PngDecodeError('not a PNG');
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  let at = 8;
  let first = true;
  for (;;) {
    if (at + 12 > png.length) throw new PngDecodeError('truncated: no IEND chunk');
    const length = view.getUint32(at);
    const type = String.fromCharCode(...png.subarray(at + 4, at + 8));
    if (first && type !== 'IHDR') throw new PngDecodeError(`the first chunk is ${type}, not IHDR`);
    first = false;
    if (at + 12 + length > png.length) throw new PngDecodeError(`truncated ${type} chunk`);
    const crc = crc32(png.subarray(at + 4, at + 8 + length));
    if (crc !== view.getUint32(at + 8 + length)) throw new PngDecodeError(`bad CRC in the ${type} chunk`);
    at += 12 + length;
    if (type === 'IEND') return;
  }
}

const DATA_RGB = new Set(DATA_COLOURS.map((c) => Number.parseInt(c.slice(1), 16)));

/**
 * True when no pixel has exactly a data colour (a bar or series colour): the image shows no data, only text,
 * gridlines and background. Bars and lines are wide enough at 2× to have fully covered pixels of their colour;
 * anti-aliased text and gridlines never use those colours.
 */
export function isBlank(png: Uint8Array): boolean {
  const { data } = decodePng(png);
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] === 255 && DATA_RGB.has((data[i]! << 16) | (data[i + 1]! << 8) | data[i + 2]!)) return false;
  }
  return true;
}
