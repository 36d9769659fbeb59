/**
 * Reference renderings: a fixed bars chart and a fixed lines chart must come out byte for byte as the PNGs stored
 * in test/fixtures/charts/. resvg runs as WebAssembly and upng-js/pako are plain JS, so the bytes are the same on
 * every machine (x64 and arm64 alike); a difference means the layout, the renderer, the font or the encoder changed.
 *
 * After an intended change, look at the new images and regenerate them:
 *   UPDATE_CHART_REFERENCES=1 npx vitest run test/charts/reference.test.ts
 * On a mismatch the test writes what it rendered to test-artifacts/charts/ for a side-by-side look.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ChartSpec, decodePng, renderChart } from '../../src/charts/index.ts';
import { SAMPLE_SPECS } from './sample-specs.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/charts/', import.meta.url));
const ARTIFACTS = fileURLToPath(new URL('../../test-artifacts/charts/', import.meta.url));
const UPDATE = process.env.UPDATE_CHART_REFERENCES === '1';

const REFERENCES: Record<string, ChartSpec> = {
  'bars-active': SAMPLE_SPECS.bars,
  'lines-new-lost': SAMPLE_SPECS.lines,
};

describe('reference renderings', () => {
  it.each(Object.entries(REFERENCES))('%s.png is byte for byte the stored reference', async (name, spec) => {
    const { png } = await renderChart(spec);
    const file = `${FIXTURES}${name}.png`;
    if (UPDATE) {
      mkdirSync(FIXTURES, { recursive: true });
      writeFileSync(file, png);
    }
    const stored = new Uint8Array(readFileSync(file));
    if (!Buffer.from(png).equals(stored)) {
      mkdirSync(ARTIFACTS, { recursive: true });
      writeFileSync(`${ARTIFACTS}${name}.actual.png`, png);
      writeFileSync(`${ARTIFACTS}${name}.expected.png`, stored);
    }
    // Same size first (a clearer message than a byte diff), then the bytes.
    const [actual, expected] = [decodePng(png), decodePng(stored)];
    expect([actual.width, actual.height]).toEqual([expected.width, expected.height]);
    expect(Buffer.from(png).equals(stored), `${name}: see ${ARTIFACTS}`).toBe(true);
  });
});
