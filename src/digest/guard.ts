/**
 * The guard before sending: a digest goes out only when every call succeeded, the week is complete, the counts are
 * plausible against the trailing weeks and every chart has pixels. Each failed check becomes one reason, written for
 * the owner's failure notice (product names, operation ids, the numbers involved; never a secret); a product the
 * service does not show the user is one reason, however many calls it failed.
 */

import { weeksEndingWith } from '../core/calendar.ts';
import type { DigestData } from './data.ts';
import { ACTIVITY_METRICS, type DigestFigures } from './figures.ts';
import { formatCount } from './format.ts';
import { TRAILING_WEEKS } from './plan.ts';

export interface ChartCheck {
  /** The chart's content id, e.g. `active-12345678901.png`. */
  id: string;
  blank: boolean;
}

export interface GuardOptions {
  /** A count more than this many times above the trailing maximum (or below the minimum) is implausible. */
  implausibleFactor: number;
  /**
   * The service's today, `YYYY-MM-DD`. The service counts UTC calendar days, so this is the UTC date of the run's
   * clock; a week is complete once its Sunday is before it.
   */
  serviceToday: string;
  /** Levels below this are too small for a spike or a drop to mean anything. Default 20. */
  minLevel?: number;
  /** Rendered charts, checked by the caller on the PNG pixels. */
  charts?: ChartCheck[];
  /** Who made the calls, named when a product is not visible: the signed-in user (when known) and the service. */
  caller?: { user: string | undefined; service: string };
}

export type GuardResult = { ok: true } | { ok: false; reasons: string[] };

export const DEFAULT_MIN_LEVEL = 20;

const METRIC_NAME = { new: 'new clients', active: 'active clients', lost: 'lost clients' } as const;

export function checkDigest(data: DigestData, figures: DigestFigures, opts: GuardOptions): GuardResult {
  const names = new Map(figures.products.map((p) => [p.productId, p.name]));
  const nameOf = (id: string) => names.get(id) ?? `product ${id}`;
  const reasons: string[] = [];

  // A product the user cannot see fails every call with 404: one reason for it, not one per call.
  const invisible = productsNotVisible(data);
  for (const id of invisible) {
    const who = opts.caller ? ` to ${opts.caller.user ?? 'the signed-in user'} on ${opts.caller.service}` : '';
    // The figures' default name ("Product <id>") would only repeat the id.
    const name = names.get(id);
    const named = name && name.toLowerCase() !== `product ${id}` ? ` (${name})` : '';
    reasons.push(
      `product ${id}${named} is not visible${who} (every call answered 404): ` +
        'check products in the config, and that this user may see the product',
    );
  }
  for (const call of data.calls) {
    if (!call.error || invisible.has(call.productId)) continue;
    // Service errors already start with the operation id; say it once.
    const prefix = `${call.operationId}: `;
    const { message } = call.error;
    const detail = message.startsWith(prefix) ? message.slice(prefix.length) : message;
    reasons.push(`${call.operationId} failed for ${nameOf(call.productId)}: ${detail}`);
  }

  const { week } = data;
  if (!(week.stop < opts.serviceToday))
    reasons.push(
      `week ${week.isoWeek} is not complete: it ends ${week.stop} and the service's today is ${opts.serviceToday}`,
    );

  const minLevel = opts.minLevel ?? DEFAULT_MIN_LEVEL;
  const expected = weeksEndingWith(week, TRAILING_WEEKS + 1).map((w) => w.start);
  for (const product of data.products) {
    if (!product.weekly) continue; // not asked for, or its call failed (reported above)
    const name = nameOf(product.productId);
    const present = new Set(product.weekly.map((w) => w.weekStart));
    const missing = expected.filter((start) => !present.has(start));
    if (missing.includes(week.start)) reasons.push(`${name} has no data for week ${week.isoWeek} (${week.start})`);
    const trailingMissing = missing.filter((start) => start !== week.start);
    if (trailingMissing.length > 0) reasons.push(`${name} lacks trailing weeks starting ${trailingMissing.join(', ')}`);
    if (missing.length > 0) continue;

    const series = expected.map((start) => product.weekly!.find((w) => w.weekStart === start)!);
    const current = series.at(-1)!;
    const trailing = series.slice(0, -1);
    for (const metric of ACTIVITY_METRICS) {
      const value = current[metric];
      const before = trailing.map((w) => w[metric]);
      const max = Math.max(...before);
      const min = Math.min(...before);
      const previous = before.at(-1)!;
      const what = `${METRIC_NAME[metric]} of ${name}: ${formatCount(value)} this week`;
      const range = `the trailing ${TRAILING_WEEKS} weeks (${formatCount(min)}–${formatCount(max)})`;
      if (value > opts.implausibleFactor * Math.max(max, minLevel))
        reasons.push(`${what} is implausibly high against ${range}`);
      else if (value === 0 && previous >= minLevel)
        reasons.push(`${what} is a drop to 0 from ${formatCount(previous)} last week`);
      else if (min >= minLevel && value < min / opts.implausibleFactor)
        reasons.push(`${what} is implausibly low against ${range}`);
    }
  }

  for (const chart of opts.charts ?? []) if (chart.blank) reasons.push(`chart ${chart.id} is blank`);

  return reasons.length === 0 ? { ok: true } : { ok: false, reasons };
}

/** Products whose every call answered 404: the service does not show them to this user (docs/interface.md). */
function productsNotVisible(data: DigestData): Set<string> {
  const notFound = new Map<string, boolean>();
  for (const call of data.calls)
    notFound.set(call.productId, (notFound.get(call.productId) ?? true) && call.error?.status === 404);
  return new Set([...notFound].filter(([, all]) => all).map(([id]) => id));
}
