/**
 * What the digest email shows, already computed and formatted: the contract between the digest job (figures →
 * view) and the template renderer (view → HTML + text). Every string here is plain text; the renderer escapes it.
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
  /** Content-ID of the inline PNG attachment (`cid:<cid>` in the HTML). */
  cid: string;
  title: string;
  /** Carries the chart's headline number, e.g. "Active clients per week; this week 4,210 (+3.2%)". */
  alt: string;
  /** CSS pixels (the PNG is rendered at 2×). */
  width: number;
  height: number;
}

export interface TableView {
  title: string;
  columns: string[];
  /** Cells as display text; `align[i]` right-aligns numeric columns. */
  rows: string[][];
  align: ('left' | 'right')[];
  /** Shown instead of the table when `rows` is empty. */
  emptyText: string;
}

export interface ProductView {
  id: string;
  name: string;
  /** The "All products" section of a multi-product digest. */
  isTotal: boolean;
  kpis: KpiView[];
  charts: ChartView[];
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
  /** Deterministic "what changed" sentences. */
  highlights: string[];
  products: ProductView[];
  viewInBrowserUrl: string | null;
  /** "Generated 2026-11-16 08:00 Europe/Berlin by Pulse" */
  footer: string;
}
