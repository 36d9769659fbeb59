/**
 * "What changed" sentences, derived from the figures by fixed rules in a fixed order: the total, the biggest mover,
 * thresholds crossed, then leader changes (versions, countries, exceptions) product by product. No randomness and no
 * clock, so the same figures always give the same sentences.
 */
import { ACTIVITY_METRICS, type ActivityMetric, type DigestFigures, type ProductFigures } from './figures.ts';
import { countryName, formatCount, formatDecimal, formatPercent, truncate } from './format.ts';

export interface HighlightOptions {
  /** A week-over-week (or vs 4-week average) change at least this large in % is called out. */
  notableChangePercent: number;
  /**
   * Changes on a smaller base are not called out: 2 → 3 lost clients is +50% and says nothing. Default 20.
   */
  minBase?: number;
}

export const DEFAULT_MIN_BASE = 20;
export const NO_CHANGES = 'No notable changes this week.';

const METRIC_LABEL: Record<ActivityMetric, string> = {
  new: 'New clients',
  active: 'Active clients',
  lost: 'Lost clients',
};

interface Move {
  product: ProductFigures;
  metric: ActivityMetric;
  value: number;
  changePercent: number;
}

const moved = (change: number) => (change > 0 ? 'rose' : 'fell');
const moveText = (m: Move) =>
  `${METRIC_LABEL[m.metric]} in ${m.product.name} ${moved(m.changePercent)} ` +
  `${formatPercent(Math.abs(m.changePercent))} to ${formatCount(m.value)}`;

/** Week-over-week moves of every product and metric with a base worth talking about, in digest order. */
function movesOf(products: ProductFigures[], minBase: number): Move[] {
  return products.flatMap((product) =>
    ACTIVITY_METRICS.flatMap((metric) => {
      const f = product.activity?.[metric];
      if (!f || f.changePercent === null || f.previous === null || f.previous < minBase) return [];
      return [{ product, metric, value: f.value, changePercent: f.changePercent }];
    }),
  );
}

function activitySentences(figures: DigestFigures, opts: HighlightOptions): string[] {
  const minBase = opts.minBase ?? DEFAULT_MIN_BASE;
  const out: string[] = [];
  const total = figures.total?.activity?.active;
  if (total?.changePercent != null && total.changePercent !== 0)
    out.push(
      `Across all products, active clients ${moved(total.changePercent)} ` +
        `${formatPercent(Math.abs(total.changePercent))} to ${formatCount(total.value)}.`,
    );

  // Stable sort: equal moves keep product, then metric order.
  const moves = movesOf(figures.products, minBase)
    .filter((m) => m.changePercent !== 0)
    .sort((a, b) => Math.abs(b.changePercent) - Math.abs(a.changePercent));
  const [biggest, ...rest] = moves;
  if (biggest) out.push(`${moveText(biggest)} — the largest change this week.`);
  for (const m of rest)
    if (Math.abs(m.changePercent) >= opts.notableChangePercent)
      out.push(`${moveText(m)}, beyond the ${formatPercent(opts.notableChangePercent)} threshold.`);

  // A level far off its 4-week average, when last week's change alone did not show it.
  for (const product of figures.products)
    for (const metric of ACTIVITY_METRICS) {
      const f = product.activity?.[metric];
      if (!f || f.vsAverage4Percent === null || f.average4 === null || f.average4 < minBase) continue;
      const weekly = f.changePercent !== null && Math.abs(f.changePercent) >= opts.notableChangePercent;
      const isBiggest = biggest?.product === product && biggest.metric === metric;
      if (weekly || isBiggest || Math.abs(f.vsAverage4Percent) < opts.notableChangePercent) continue;
      out.push(
        `${METRIC_LABEL[metric]} in ${product.name} are ${formatPercent(Math.abs(f.vsAverage4Percent))} ` +
          `${f.vsAverage4Percent > 0 ? 'above' : 'below'} the 4-week average ` +
          `(${formatCount(f.value)} vs ${formatDecimal(f.average4)}).`,
      );
    }
  return out;
}

function leaderSentences(p: ProductFigures): string[] {
  const out: string[] = [];
  const v = p.versions;
  if (v?.leader && v.previousLeader && v.leader !== v.previousLeader) {
    const share = v.rows[0]?.percent ?? 0;
    out.push(
      `Version ${v.leader} is now the most used version of ${p.name} ` +
        `(${formatPercent(share)} of active clients; last week ${v.previousLeader}).`,
    );
  }
  const c = p.countries;
  if (c?.leader && c.previousLeader && c.leader !== c.previousLeader)
    out.push(
      `${countryName(c.leader)} overtook ${countryName(c.previousLeader)} as the top country of ${p.name} ` +
        `(${formatCount(c.rows[0]?.active ?? 0)} active clients).`,
    );
  const e = p.exceptions;
  const same = (a: { type: string; message: string }, b: { type: string; message: string } | null) =>
    b !== null && a.type === b.type && a.message === b.message;
  if (e?.leader && e.previousWeekCovered && !same(e.leader, e.previousLeader))
    out.push(
      `A new most frequent exception in ${p.name}: ${truncate(`${e.leader.type}: ${e.leader.message}`, 100)} ` +
        `(${formatCount(e.leader.count)} ${e.leader.count === 1 ? 'time' : 'times'} this week).`,
    );
  return out;
}

export function computeHighlights(figures: DigestFigures, opts: HighlightOptions): string[] {
  const out = [
    ...activitySentences(figures, opts),
    // Versions belong to one product; the total's countries repeat what the products say.
    ...figures.products.flatMap(leaderSentences),
  ];
  return out.length > 0 ? out : [NO_CHANGES];
}

/**
 * The one sentence a product's block in the email leads with: its largest week-over-week move when that crosses the
 * threshold, else a change of leader (version, country, exception), else its largest move at all; null when nothing
 * moved.
 */
export function notableOf(product: ProductFigures, opts: HighlightOptions): string | null {
  const [top] = movesOf([product], opts.minBase ?? DEFAULT_MIN_BASE)
    .filter((m) => m.changePercent !== 0)
    .sort((a, b) => Math.abs(b.changePercent) - Math.abs(a.changePercent));
  const move = top && `${moveText(top)} week over week.`;
  if (top && Math.abs(top.changePercent) >= opts.notableChangePercent) return move!;
  return leaderSentences(product)[0] ?? move ?? null;
}
