/**
 * Digest views for the render tests and bench/render.ts: a realistic digest of N products (with the "All products"
 * total when N > 1, long country names and exception messages, every table the full report shows) and a hostile one
 * whose every string tries to inject markup (HTML, very long names, right-to-left text).
 */
import type { ChartView, DigestView, HeadlineRow, ProductView, TableView } from '../../src/digest/view-model.ts';

const table = (id: string, title: string, columns: string[], align: TableView['align'], rows: string[][]) => ({
  id,
  title,
  columns,
  align,
  rows,
  emptyText: `No ${title.toLowerCase()} this week.`,
});

const PRODUCT_NAMES = [
  'Acme Studio Professional',
  'Acme Render Farm Companion',
  'Acme Viewer',
  'Acme Cloud Sync',
  'Acme Mobile Capture',
  'Acme Asset Library',
  'Acme Review Tool',
  'Acme Scripting Console',
  'Acme License Server',
  'Acme Plugin Marketplace',
];

const chart = (name: string, id: string, title: string, alt: string, height = 220): ChartView => ({
  cid: `${name}-${id}.png`,
  title,
  alt,
  width: 552,
  height,
});

function product(id: string, name: string, scale: number, isTotal = false): ProductView {
  const n = (x: number) => Math.round(x * scale).toLocaleString('en-US');
  const anchor = isTotal ? 'all-products' : `product-${id}`;
  const weeks = ['21 Sep', '28 Sep', '5 Oct', '12 Oct', '19 Oct', '26 Oct', '2 Nov', '9 Nov', '16 Nov'];
  const charts = [
    chart(
      'active',
      id,
      'Active clients per week',
      `Active clients per week: ${weeks.map((w, i) => `${w} ${n(40_000 + i * 250)}`).join('; ')} (this week, −0.4%)`,
    ),
    chart(
      'new-lost',
      id,
      'New and lost clients per week',
      `New and lost clients per week; this week ${n(1234)} new, ${n(311)} lost`,
    ),
    chart(
      'retention',
      id,
      'Install cohorts still engaged',
      'Share still engaged by weeks since install; after 8 weeks 61.0%',
    ),
    chart(
      'versions',
      id,
      'Active clients by version',
      `Active clients by version; 7.2 leads with ${n(25_000)} (61.0%)`,
      150,
    ),
    chart(
      'countries',
      id,
      'Active clients by country',
      `Active clients by country; United States leads with ${n(11_201)}`,
      260,
    ),
  ];
  return {
    id,
    name,
    anchor,
    isTotal,
    kpis: [
      {
        label: 'Active clients',
        value: n(42107),
        delta: '−0.4% vs last week · +0.2% vs 4-week avg',
        trend: 'down',
        good: false,
      },
      {
        label: 'New clients',
        value: n(1234),
        delta: '+12.5% vs last week · +3.1% vs 4-week avg',
        trend: 'up',
        good: true,
      },
      {
        label: 'Lost clients',
        value: n(311),
        delta: '+18.0% vs last week · +9.7% vs 4-week avg',
        trend: 'up',
        good: false,
      },
      {
        label: 'Still engaged after 8 weeks',
        value: '61.0%',
        delta: 'clients installed in the last 12 weeks',
        trend: 'flat',
        good: null,
      },
    ],
    charts,
    emailCharts: [charts[0]!.cid, charts[1]!.cid],
    notable: `Lost clients in ${name} rose 18.0% to ${n(311)} — the largest change this week.`,
    topException: `java.lang.IllegalStateException: GPU driver reported feature level 11_0 — ${n(1240)} this week (last week ${n(1100)})`,
    tables: [
      table(
        `${anchor}-clients`,
        'Clients per week',
        ['Week', 'New', 'Active', 'Lost'],
        ['left', 'right', 'right', 'right'],
        weeks.map((w, i) => [`Week of ${w}`, n(1200 + i), n(40_000 + i * 250), n(300 + i)]).reverse(),
      ),
      table(
        `${anchor}-churn-days`,
        'Lost clients by lifetime active days',
        ['Active days', 'Lost clients'],
        ['left', 'right'],
        [
          ['1', n(120)],
          ['2-5', n(90)],
          ['6-20', n(60)],
          ['21+', n(41)],
        ],
      ),
      table(
        `${anchor}-events`,
        "Top events (lifetime use by this week's active clients)",
        ['Event', 'Category', 'Count', 'Clients'],
        ['left', 'left', 'right', 'right'],
        [
          ['Project opened', 'Files', n(183_220), n(30_001)],
          ['Export finished (PDF, high quality, with embedded fonts)', 'Export', n(92_004), n(12_000)],
          ['Render started', 'Render', n(61_876), n(9_000)],
        ],
      ),
      table(
        `${anchor}-countries`,
        'Top countries',
        ['Country', 'Active clients', 'Share', 'Last week'],
        ['left', 'right', 'right', 'right'],
        [
          ['United States', n(11_201), '26.6%', '26.1%'],
          ['United Kingdom of Great Britain and Northern Ireland', n(4_730), '11.2%', '11.5%'],
          ['Saint Helena, Ascension and Tristan da Cunha', n(12), '0.0%', '—'],
        ],
      ),
      table(
        `${anchor}-exceptions`,
        'Most frequent exceptions',
        ['Exception', 'Message', 'This week', 'Last week'],
        ['left', 'left', 'right', 'right'],
        [
          [
            'java.lang.IllegalStateException',
            'GPU driver reported feature level 11_0, but 12_1 is required at com.acme.studio.rendering.pipeline.internal.GpuFeatureLevelNegotiator.negotiate(GpuFeatureLevelNegotiator.java:412)',
            n(1_240),
            n(1_100),
          ],
          [
            'System.IO.FileNotFoundException',
            'C:\\Users\\Public\\Documents\\AcmeStudio\\Templates\\default.tpl',
            n(77),
            '—',
          ],
        ],
      ),
      table(
        `${anchor}-versions`,
        'Versions',
        ['Version', 'Active clients', 'Share', 'Last week'],
        ['left', 'right', 'right', 'right'],
        [],
      ),
    ],
  };
}

const headlineRow = (p: ProductView): HeadlineRow => ({
  name: p.name,
  anchor: p.anchor,
  isTotal: p.isTotal,
  cells: p.kpis
    .slice(0, 3)
    .map((k) => ({ value: k.value, change: k.delta.split(' ')[0]!, trend: k.trend, good: k.good })),
});

/** A digest of `count` products (3 by default, like the sample config), the total first when there are several. */
export function sampleView(overrides: Partial<DigestView> = {}, count = 3): DigestView {
  const products = Array.from({ length: count }, (_, i) =>
    product(String(12345678901 + i * 1111), PRODUCT_NAMES[i % PRODUCT_NAMES.length]!, 1 / (i + 1)),
  );
  const sections = count > 1 ? [product('total', 'All products', 1.8, true), ...products] : products;
  return {
    title: 'Weekly product digest',
    isoWeek: '2026-W46',
    weekLabel: 'Week 46 · 9–15 Nov 2026',
    banner: null,
    highlights: [
      'Across all products, active clients fell 0.4% to 75,792.',
      'Lost clients in Acme Studio Professional rose 18.0% to 311 — the largest change this week.',
      'New clients in Acme Render Farm Companion rose 12.5% to 617, beyond the 10.0% threshold.',
      'Version 7.2 is now the most used version of Acme Studio Professional (61.0% of active clients; last week 7.1).',
    ],
    headline: { columns: ['Active clients', 'New clients', 'Lost clients'], rows: sections.map(headlineRow) },
    products: sections,
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
  /** Right-to-left text with a direction override in the middle. */
  rtl: 'מוצר ניסיון \u202Egnp.exe\u202C منتج تجريبي',
  long: `Product${'-with-a-very-long-name'.repeat(12)}`,
} as const;

/** Every string the service or config could influence carries an injection attempt, a very long word or RTL text. */
export function hostileView(): DigestView {
  const view = sampleView({
    title: HOSTILE.script,
    weekLabel: HOSTILE.imgOnError,
    banner: `Data incomplete: ${HOSTILE.script}`,
    highlights: [HOSTILE.imgOnError, HOSTILE.singleQuote, HOSTILE.rtl, HOSTILE.long],
    viewInBrowserUrl: HOSTILE.jsUrl,
    footer: `</div>${HOSTILE.script}`,
  });
  const p = view.products[1]!;
  p.name = HOSTILE.script;
  view.headline.rows[1]!.name = HOSTILE.script;
  view.headline.rows[2]!.name = HOSTILE.long;
  view.products[2]!.name = HOSTILE.long;
  view.products[3]!.name = HOSTILE.rtl;
  p.kpis[0]!.label = HOSTILE.imgOnError;
  p.kpis[0]!.value = HOSTILE.script;
  p.kpis[0]!.delta = HOSTILE.singleQuote;
  p.notable = HOSTILE.imgOnError;
  p.topException = `${HOSTILE.script} ${HOSTILE.long}`;
  p.charts[0]!.alt = HOSTILE.imgOnError;
  p.charts[0]!.title = HOSTILE.script;
  p.tables[0]!.title = HOSTILE.script;
  p.tables[0]!.columns[0] = HOSTILE.imgOnError;
  p.tables[0]!.rows[0]![0] = HOSTILE.imgOnError;
  p.tables[0]!.rows[1]![0] = HOSTILE.script;
  p.tables[2]!.rows[0]![0] = HOSTILE.long;
  p.tables[2]!.rows[1]![0] = HOSTILE.rtl;
  p.tables[4]!.rows[0]![1] = `${HOSTILE.long} ${HOSTILE.script}`;
  p.tables[5]!.emptyText = HOSTILE.imgOnError;
  return view;
}
