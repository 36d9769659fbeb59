/**
 * What the digest shows, already computed and formatted: the contract between the digest job (figures → view) and
 * the renderers (view → the email's HTML and text, and the full report page). Every string here is plain text; the
 * renderers escape it.
 *
 * The email is the summary (the week, the "what changed" sentences, the headline figures of every product, then one
 * compact block per product); the full report page shows everything (every chart and table, per product and for all
 * products), and each email block links to its product's anchor there.
 */
export interface KpiView {
  /** "New clients" */
  label: string;
  /** "1,234" */
  value: string;
  /** "+12.5% vs last week · +3.1% vs 4-week avg" */
  delta: string;
  trend: 'up' | 'down' | 'flat';
  /** Whether the trend is good news (lost going up is not); null = neutral. */
  good: boolean | null;
}

export interface ChartView {
  /** Content-ID of the inline PNG attachment (`cid:<cid>` in the email); also its file name in the archive. */
  cid: string;
  /** Drawn into the image as well, so a forwarded or saved chart still says what it is. */
  title: string;
  /** Carries the chart's numbers, e.g. "Active clients per week: 9 Nov 4,102; 16 Nov 4,210 (this week, +2.6%)". */
  alt: string;
  /** CSS pixels (the PNG is rendered at 2×). */
  width: number;
  height: number;
}

export interface TableView {
  /** The table's anchor in the full report, unique in the page: `<product anchor>-<table>`. */
  id: string;
  title: string;
  columns: string[];
  /** Cells as display text; `align[i]` right-aligns numeric columns. */
  rows: string[][];
  align: ('left' | 'right')[];
  /** Shown instead of the table when `rows` is empty. */
  emptyText: string;
}

/** One figure of the headline table: a value and its week-over-week change. */
export interface HeadlineCell {
  /** "4,210" */
  value: string;
  /** "+3.2%"; "n/a" without a previous week. */
  change: string;
  trend: 'up' | 'down' | 'flat';
  good: boolean | null;
}

export interface HeadlineRow {
  /** The product (or "All products"). */
  name: string;
  /** Its section's anchor in the full report. */
  anchor: string;
  isTotal: boolean;
  /** One per `HeadlineView.columns`; null where the product has no such figure. */
  cells: (HeadlineCell | null)[];
}

/** The first screen's figures: every product in one table (the total first). */
export interface HeadlineView {
  /** "Active clients", "New clients", "Lost clients" */
  columns: string[];
  rows: HeadlineRow[];
}

export interface ProductView {
  id: string;
  name: string;
  /** `product-<id>` (or `all-products`): the section's anchor in the full report. */
  anchor: string;
  /** The "All products" section of a multi-product digest (the full report only; the email's headline covers it). */
  isTotal: boolean;
  kpis: KpiView[];
  /** Every chart of the section, in order; the full report shows them all. */
  charts: ChartView[];
  /** The cids of the one or two charts the email shows (a subset of `charts`). */
  emailCharts: string[];
  /** The product's most notable change this week (one of the highlights, or the biggest move); null = none. */
  notable: string | null;
  /** "TypeError: x is undefined — 312 this week (last week 280)"; null = none or not tracked. */
  topException: string | null;
  /** Every table of the section (the full report). */
  tables: TableView[];
}

export interface DigestView {
  title: string;
  /** "2026-W46" */
  isoWeek: string;
  /** "Week 46 · 9–15 Nov 2026" */
  weekLabel: string;
  /** Shown on top when the digest was forced through a failed guard: "Data incomplete: …". */
  banner: string | null;
  /** Deterministic "what changed" sentences, most important first (the email shows the first few). */
  highlights: string[];
  headline: HeadlineView;
  /** The total first (when there is one), then each product. */
  products: ProductView[];
  /** The full report ("view in browser"); null when there is none to link to. */
  viewInBrowserUrl: string | null;
  /** "Generated 2026-11-16 08:00 Europe/Berlin by Pulse" */
  footer: string;
}
