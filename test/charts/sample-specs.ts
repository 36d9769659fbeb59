/**
 * The digest's typical charts with fixed data — nine weeks, a week-by-week pair of series, a top-10 list — shared by
 * the reference renderings (test/charts/reference.test.ts: bars and lines, stored byte for byte) and bench/charts.ts.
 */
import type { ChartSpec } from '../../src/charts/index.ts';

const WEEKS = [
  '2026-W40',
  '2026-W41',
  '2026-W42',
  '2026-W43',
  '2026-W44',
  '2026-W45',
  '2026-W46',
  '2026-W47',
  '2026-W48',
];

export const SAMPLE_SPECS = {
  bars: {
    kind: 'bars',
    title: 'Active clients per week',
    categories: WEEKS,
    values: [3120, 3340, 3280, 3410, 3390, 3150, 3460, 3500, 3530],
    highlightLast: true,
  },
  lines: {
    kind: 'lines',
    title: 'New and lost clients per week',
    categories: WEEKS,
    series: [
      { name: 'New', values: [900, 1200, 800, 1300, 1000, 950, 1400, 1500, 1210], area: true },
      { name: 'Lost', values: [700, 650, 900, 1000, 1100, 950, 800, 1300, 1200] },
    ],
  },
  hbars: {
    kind: 'hbars',
    title: 'Active clients by country',
    categories: [
      'United States',
      'Germany',
      'United Kingdom',
      'Israel',
      'Egypt',
      'France',
      'Japan',
      'Brazil',
      'India',
      'Canada',
    ],
    values: [5400, 3100, 1200, 800, 420, 310, 200, 120, 90, 40],
    valueLabels: [
      '5,400 (44.1%)',
      '3,100 (25.3%)',
      '1,200 (9.8%)',
      '800 (6.5%)',
      '420 (3.4%)',
      '310 (2.5%)',
      '200 (1.6%)',
      '120 (1.0%)',
      '90 (0.7%)',
      '40 (0.3%)',
    ],
  },
} satisfies Record<string, ChartSpec>;
