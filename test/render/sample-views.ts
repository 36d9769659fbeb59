/**
 * Digest views for the render tests and bench/render.ts: a realistic two-product digest (with the "All products"
 * total, long country names and exception messages) and a hostile one whose every string tries to inject markup.
 */
import type { DigestView, ProductView, TableView } from '../../src/jobs/digest/view-model.ts';

const table = (title: string, columns: string[], align: TableView['align'], rows: string[][]): TableView => ({
  title,
  columns,
  align,
  rows,
  emptyText: `No ${title.toLowerCase()} this week.`,
});

function product(id: string, name: string, scale: number, isTotal = false): ProductView {
  const n = (x: number) => Math.round(x * scale).toLocaleString('en-US');
  return {
    id,
    name,
    isTotal,
    kpis: [
      {
        label: 'New clients',
        value: n(1234),
        delta: '+12.5% vs last week · +3.1% vs 4-week avg',
        trend: 'up',
        good: true,
      },
      {
        label: 'Active clients',
        value: n(42107),
        delta: '−0.4% vs last week · +0.2% vs 4-week avg',
        trend: 'down',
        good: false,
      },
      {
        label: 'Lost clients',
        value: n(311),
        delta: '+18.0% vs last week · +9.7% vs 4-week avg',
        trend: 'up',
        good: false,
      },
      { label: 'Churn rate', value: '2.1%', delta: '±0.0 pts vs last week', trend: 'flat', good: null },
    ],
    charts: [
      {
        cid: `active-${id}@pulse`,
        title: 'Active clients per week',
        alt: `Active clients per week, last 12 weeks; this week ${n(42107)} (−0.4%)`,
        width: 552,
        height: 220,
      },
    ],
    tables: isTotal
      ? [
          table(
            'Clients by product',
            ['Product', 'New', 'Active', 'Lost'],
            ['left', 'right', 'right', 'right'],
            [
              ['Acme Studio Professional', n(900), n(30001), n(200)],
              ['Acme Render Farm Companion', n(334), n(12106), n(111)],
            ],
          ),
        ]
      : [
          table(
            'Top events',
            ['Event', 'Count', 'Share'],
            ['left', 'right', 'right'],
            [
              ['Project opened', n(183_220), '31.4%'],
              ['Export finished (PDF, high quality, with embedded fonts)', n(92_004), '15.8%'],
              ['Render started', n(61_876), '10.6%'],
              ['Licence dialog shown', n(1_024), '0.2%'],
            ],
          ),
          table(
            'Top countries',
            ['Country', 'Active', 'Δ week'],
            ['left', 'right', 'right'],
            [
              ['United States of America', n(11_201), '+1.2%'],
              ['United Kingdom of Great Britain and Northern Ireland', n(4_730), '−0.8%'],
              ['Saint Helena, Ascension and Tristan da Cunha', n(12), '+50.0%'],
              ['Bolivia (Plurinational State of)', n(310), '+0.3%'],
            ],
          ),
          table(
            'Most frequent exceptions',
            ['Exception', 'Clients', 'Count'],
            ['left', 'right', 'right'],
            [
              [
                'java.lang.IllegalStateException: GPU driver reported feature level 11_0, but 12_1 is required at com.acme.studio.rendering.pipeline.internal.GpuFeatureLevelNegotiator.negotiate(GpuFeatureLevelNegotiator.java:412)',
                n(88),
                n(1_240),
              ],
              [
                'System.IO.FileNotFoundException: C:\\Users\\Public\\Documents\\AcmeStudio\\Templates\\default.tpl',
                n(31),
                n(77),
              ],
            ],
          ),
          table('Version adoption', ['Version', 'Clients', 'Share'], ['left', 'right', 'right'], []),
        ],
  };
}

export function sampleView(overrides: Partial<DigestView> = {}): DigestView {
  return {
    title: 'Weekly product digest',
    isoWeek: '2026-W46',
    weekLabel: 'Week 46 · 9–15 Nov 2026',
    banner: null,
    highlights: [
      'Lost clients rose 18.0% week over week in Acme Studio Professional, above the 10% threshold.',
      'New clients in Acme Render Farm Companion are 12.5% above last week and above their 4-week average.',
      'Version 7.2 now runs on 61% of active clients, up from 48%.',
    ],
    products: [
      product('total', 'All products', 1.37, true),
      product('12345678901', 'Acme Studio Professional', 1),
      product('9876543210', 'Acme Render Farm Companion', 0.37),
    ],
    viewInBrowserUrl: 'https://pulse-archive.example.com/digests/weekly/2026-W46/index.html?sig=abc123&x=1',
    footer: 'Generated 2026-11-16 08:00 Europe/Berlin by Pulse',
    ...overrides,
  };
}

export const HOSTILE = {
  script: '<script>alert(1)</script>',
  imgOnError: '"><img src=x onerror=alert(1)>',
  singleQuote: "' onmouseover='alert(1)",
  jsUrl: 'javascript:alert(1)',
} as const;

/** Every string the service or config could influence carries an injection attempt. */
export function hostileView(): DigestView {
  const view = sampleView({
    title: HOSTILE.script,
    weekLabel: HOSTILE.imgOnError,
    banner: `Data incomplete: ${HOSTILE.script}`,
    highlights: [HOSTILE.imgOnError, HOSTILE.singleQuote],
    viewInBrowserUrl: HOSTILE.jsUrl,
    footer: `</div>${HOSTILE.script}`,
  });
  const p = view.products[1]!;
  p.name = HOSTILE.script;
  p.kpis[0]!.label = HOSTILE.imgOnError;
  p.kpis[0]!.value = HOSTILE.script;
  p.kpis[0]!.delta = HOSTILE.singleQuote;
  p.charts[0]!.cid = `x" onerror="alert(1)`;
  p.charts[0]!.alt = HOSTILE.imgOnError;
  p.charts[0]!.title = HOSTILE.script;
  p.tables[0]!.title = HOSTILE.script;
  p.tables[0]!.columns[0] = HOSTILE.imgOnError;
  p.tables[0]!.rows[0]![0] = HOSTILE.imgOnError;
  p.tables[0]!.rows[1]![0] = HOSTILE.script;
  p.tables[3]!.emptyText = HOSTILE.imgOnError;
  return view;
}
