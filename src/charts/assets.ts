/**
 * Where the chart renderer's files come from: the resvg WebAssembly module and the two TTF fonts. In development,
 * tests and the CLI they are read from node_modules; when PULSE_CHART_ASSETS_DIR is set (the Lambda bundle ships
 * them next to its JS, e.g. /var/task/chart-assets) they are read from that directory under the names of
 * CHART_ASSET_FILES, which the CDK stack copies from the project.
 *
 * The font is DejaVu Sans Condensed (regular and bold): open (Bitstream Vera licence), with wide Unicode coverage
 * (Latin, Greek, Cyrillic, Hebrew, Arabic…), so product, country and version names render instead of turning into
 * boxes, and condensed, so axis and category labels fit a 552 px chart. TTF, because resvg reads TTF/OTF only.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** File name in the bundle's asset directory → its source, relative to the project root. */
export const CHART_ASSET_FILES = {
  'resvg.wasm': 'node_modules/@resvg/resvg-wasm/index_bg.wasm',
  'DejaVuSansCondensed.ttf': 'node_modules/dejavu-fonts-ttf/ttf/DejaVuSansCondensed.ttf',
  'DejaVuSansCondensed-Bold.ttf': 'node_modules/dejavu-fonts-ttf/ttf/DejaVuSansCondensed-Bold.ttf',
} as const satisfies Record<string, string>;
export type ChartAssetName = keyof typeof CHART_ASSET_FILES;

export const CHART_ASSETS_DIR_ENV = 'PULSE_CHART_ASSETS_DIR';

export class ChartAssetMissingError extends Error {
  override name = 'ChartAssetMissingError';
  readonly asset: ChartAssetName;
  readonly path: string;
  constructor(asset: ChartAssetName, path: string, hint: string, options?: ErrorOptions) {
    super(`chart asset ${asset} is missing (${path}): ${hint}`, options);
    this.asset = asset;
    this.path = path;
  }
}

/** The file an asset is read from, by the rules above; throws ChartAssetMissingError when it cannot be resolved. */
export function chartAssetPath(asset: ChartAssetName): string {
  const dir = process.env[CHART_ASSETS_DIR_ENV];
  if (dir) return join(dir, asset);
  const specifier = CHART_ASSET_FILES[asset].replace(/^node_modules\//, '');
  try {
    return createRequire(import.meta.url).resolve(specifier);
  } catch (cause) {
    throw new ChartAssetMissingError(
      asset,
      specifier,
      `cannot resolve it from node_modules; install the production dependencies (npm ci), or set ${CHART_ASSETS_DIR_ENV} to a directory holding the files of CHART_ASSET_FILES (src/charts/assets.ts)`,
      { cause },
    );
  }
}

/** An asset's bytes, read synchronously (text measurement needs the fonts before any await). */
export function readChartAsset(asset: ChartAssetName): Uint8Array {
  const path = chartAssetPath(asset);
  try {
    return readFileSync(path);
  } catch (cause) {
    const dir = process.env[CHART_ASSETS_DIR_ENV];
    throw new ChartAssetMissingError(
      asset,
      path,
      dir
        ? `${CHART_ASSETS_DIR_ENV}=${dir} must hold every file of CHART_ASSET_FILES (src/charts/assets.ts), copied from its source in the project (${CHART_ASSET_FILES[asset]})`
        : `reinstall the production dependencies (npm ci)`,
      { cause },
    );
  }
}
