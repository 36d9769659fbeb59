/**
 * What every chart's SVG is written with: the layout for an email (552 CSS px on a desktop, about 327 on a phone, so
 * labels are 13 px and titles 16 px bold), and a writer that escapes text and rounds coordinates in one place. The
 * digest's chart kinds (svg.ts) and the usage alerts' evidence chart draw with both, so they look alike.
 */
import { FONT_FAMILY } from './fonts.ts';
import { CHART_PALETTE as C } from './spec.ts';
import { cleanLabel, escapeXml, truncate } from './text.ts';

// Layout in CSS pixels.
export const PAD = 12;
export const TITLE_SIZE = 16;
export const TITLE_BASELINE = 22;
export const TITLE_BAND = 36;
export const LABEL_SIZE = 13;
/** From a text's vertical centre to its baseline, for digits and capitals (cap height ≈ 0.73 em). */
export const MID_TO_BASELINE = 0.36 * LABEL_SIZE;
/** Cap height and descender of a label, for boxes around it. */
export const ASCENT = 10;
export const DESCENT = 3;
/** From the bottom edge to the x labels' baseline, and from the labels up to the plot. */
export const X_LABEL_BASELINE = 10;
export const X_LABEL_BAND = X_LABEL_BASELINE + ASCENT + 8;
export const LINE_WIDTH = 2.5;

/** Rounds a coordinate for the SVG text: 1/100 px, no "-0". */
export const num = (v: number) => String(Math.round(v * 100) / 100 || 0);

export interface TextOptions {
  anchor?: 'start' | 'middle' | 'end';
  size?: number;
  bold?: boolean;
  fill?: string;
  /** A white outline under the glyphs, so a label stays legible where it crosses a bar or a gridline. */
  halo?: boolean;
}

/** An SVG document written element by element; text is escaped here and nowhere else. */
export class SvgWriter {
  readonly parts: string[] = [];
  readonly width: number;
  private readonly scale: number;
  constructor(width: number, height: number, scale: number) {
    this.width = width;
    this.scale = scale;
    this.parts.push(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="${FONT_FAMILY}" font-size="${LABEL_SIZE}" fill="${C.text}">`,
      `<rect width="${width}" height="${height}" fill="${C.background}"/>`,
    );
  }
  /** A coordinate on the device pixel grid, so edges of bars and gridlines are crisp. */
  snap(v: number): number {
    return Math.round(v * this.scale) / this.scale;
  }
  /** `more`: further attributes (an opacity, a stroke), written after the fill. */
  rect(x: number, y: number, w: number, h: number, fill: string, more = ''): void {
    const tail = more ? ` ${more}` : '';
    this.parts.push(`<rect x="${num(x)}" y="${num(y)}" width="${num(w)}" height="${num(h)}" fill="${fill}"${tail}/>`);
  }
  /** A horizontal rule one CSS px thick centred on y (gridlines, zero lines). */
  hrule(x0: number, x1: number, y: number, fill: string): void {
    const top = this.snap(y - 0.5);
    this.rect(this.snap(x0), top, this.snap(x1) - this.snap(x0), 1, fill);
  }
  vrule(x: number, y0: number, y1: number, fill: string): void {
    const left = this.snap(x - 0.5);
    this.rect(left, this.snap(y0), 1, this.snap(y1) - this.snap(y0), fill);
  }
  path(d: string, attributes: string): void {
    this.parts.push(`<path d="${d}" ${attributes}/>`);
  }
  circle(cx: number, cy: number, r: number, fill: string, more = ''): void {
    const tail = more ? ` ${more}` : '';
    this.parts.push(`<circle cx="${num(cx)}" cy="${num(cy)}" r="${num(r)}" fill="${fill}"${tail}/>`);
  }
  text(x: number, y: number, content: string, o: TextOptions = {}): void {
    if (content === '') return;
    const attrs = [
      `x="${num(x)}"`,
      `y="${num(y)}"`,
      o.anchor && o.anchor !== 'start' ? `text-anchor="${o.anchor}"` : '',
      o.size && o.size !== LABEL_SIZE ? `font-size="${o.size}"` : '',
      o.bold ? 'font-weight="bold"' : '',
      o.fill && o.fill !== C.text ? `fill="${o.fill}"` : '',
      o.halo ? `stroke="${C.background}" stroke-width="3" stroke-linejoin="round" paint-order="stroke"` : '',
    ].filter(Boolean);
    this.parts.push(`<text ${attrs.join(' ')}>${escapeXml(content)}</text>`);
  }
  toString(): string {
    return `${this.parts.join('\n')}\n</svg>\n`;
  }
}

/** Draws the title and returns where the content below it may start. */
export function drawTitle(svg: SvgWriter, title: string, width: number): number {
  const text = truncate(cleanLabel(title), width - 2 * PAD, TITLE_SIZE, true);
  if (text === '') return PAD;
  svg.text(PAD, TITLE_BASELINE, text, { size: TITLE_SIZE, bold: true });
  return TITLE_BAND;
}
