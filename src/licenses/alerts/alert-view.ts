/**
 * What one recipient's email says: the most urgent alerts (stage, then label, then days left), grouped by stage, the
 * first `maxKeys` shown, the counts of all of them (`AlertSummary`), and the CSV rows of all of them. Plain text
 * only; the renderer escapes.
 */

import { shortDate } from '../../core/calendar.ts';
import { csvRow } from '../shared/csv-cells.ts';
import { keyIdOf, type ShownAlert } from './alert.ts';
import type { LicenseAlertView } from './alert-email.ts';
import { LABEL_TITLES, LABELS, type Label } from './labels.ts';
import { type Stage, stageTitle, urgencyOf } from './stage.ts';

const LABEL_TONES: Record<Label, LicenseAlertView['groups'][number]['rows'][number]['labels'][number]['tone']> = {
  revenueLeak: 'bad',
  renewalPriority: 'good',
  atRisk: 'warn',
  conversionCandidate: 'info',
};

const labelRank = (a: ShownAlert) => Math.min(LABELS.length, ...a.labels.map((l) => LABELS.indexOf(l)));

/** The first two keys of `byUrgency` (stage, then label) as one number, lower first: the CSV's groups. */
export const urgencyGroup = (a: ShownAlert): number => urgencyOf(a.stage) * (LABELS.length + 1) + labelRank(a);

export function byUrgency(a: ShownAlert, b: ShownAlert): number {
  return (
    urgencyOf(a.stage) - urgencyOf(b.stage) ||
    labelRank(a) - labelRank(b) ||
    (a.daysLeft ?? 0) - (b.daysLeft ?? 0) ||
    b.usage.lastWindow - a.usage.lastWindow ||
    (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0) ||
    (a.key.licenseKey < b.key.licenseKey ? -1 : a.key.licenseKey > b.key.licenseKey ? 1 : 0)
  );
}

export interface ViewContext {
  /** The recipient's local date. */
  today: string;
  productName: (productId: string) => string;
  windowDays: number;
  footer: string;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function expiryText(a: ShownAlert): string {
  if (a.key.expiryDate === null) return 'no expiry date';
  const d = a.daysLeft ?? 0;
  const when = d === 0 ? 'today' : d > 0 ? `in ${plural(d, 'day')}` : `${plural(-d, 'day')} ago`;
  return `${d < 0 ? 'expired' : 'expires'} ${a.key.expiryDate} (${when})`;
}

function trendOf(a: ShownAlert): { trendText: string; trend: 'up' | 'down' | 'flat' } {
  const { lastWindow: now, previousWindow: before } = a.usage;
  if (now > before) return { trend: 'up', trendText: `▲ from ${before}` };
  if (now < before) return { trend: 'down', trendText: `▼ from ${before}` };
  return { trend: 'flat', trendText: '= no change' };
}

/** What an email's figures count: every alert it carries, not only those shown. */
export interface AlertSummary {
  alerts: number;
  /** Distinct (product, license key): a key can be in two stages. */
  keys: number;
  byStage: Map<Stage, number>;
  byLabel: Map<Label, number>;
}

export const emptySummary = (): AlertSummary => ({ alerts: 0, keys: 0, byStage: new Map(), byLabel: new Map() });

/** Counts one alert; `newKey` when it is the first alert of its (product, key). */
export function addToSummary(summary: AlertSummary, a: ShownAlert, newKey: boolean): void {
  summary.alerts++;
  if (newKey) summary.keys++;
  summary.byStage.set(a.stage, (summary.byStage.get(a.stage) ?? 0) + 1);
  for (const l of a.labels) summary.byLabel.set(l, (summary.byLabel.get(l) ?? 0) + 1);
}

/** The summary of alerts all at hand. */
export function summarize(alerts: ShownAlert[]): AlertSummary {
  const summary = emptySummary();
  const seen = new Set<string>();
  for (const a of alerts) {
    const id = keyIdOf(a.productId, a.key.licenseKey);
    addToSummary(summary, a, !seen.has(id));
    seen.add(id);
  }
  return summary;
}

/** Stages most urgent first, with their counts. */
export const stagesByUrgency = (summary: AlertSummary): [Stage, number][] =>
  [...summary.byStage].sort(([a], [b]) => urgencyOf(a) - urgencyOf(b));

/**
 * `top`: the most urgent alerts, sorted by `byUrgency` (the first `maxKeys` are shown); `summary`: all the alerts
 * the email carries (by default, `top` itself).
 */
export function alertView(
  top: ShownAlert[],
  maxKeys: number,
  ctx: ViewContext,
  summary: AlertSummary = summarize(top),
): LicenseAlertView {
  const shown = top.slice(0, maxKeys);
  const groups: LicenseAlertView['groups'] = [];
  let current: Stage | undefined;
  for (const a of shown) {
    if (a.stage !== current) {
      groups.push({ title: stageTitle(a.stage), rows: [] });
      current = a.stage;
    }
    const detail = [`${plural(a.key.clientCount, 'client')} reported the key`];
    detail.push(a.key.lastSeenDate ? `last seen ${a.key.lastSeenDate}` : 'never seen');
    if (a.key.overQuotaCount > 0) detail.push(`${a.key.overQuotaCount} over quota`);
    groups.at(-1)!.rows.push({
      licenseKey: a.key.licenseKey,
      productName: ctx.productName(a.productId),
      licenseType: a.key.licenseType,
      expiryText: expiryText(a),
      usageText: `${plural(a.usage.lastWindow, 'client')} seen in the last ${ctx.windowDays} days`,
      ...trendOf(a),
      detailText: detail.join(' · '),
      labels: a.labels.map((l) => ({ text: LABEL_TITLES[l], tone: LABEL_TONES[l] })),
    });
  }
  const byLabel = LABELS.map((l) => ({ text: LABEL_TITLES[l], count: summary.byLabel.get(l) ?? 0 }));
  const summaries = [
    {
      title: 'By stage',
      lines: stagesByUrgency(summary).map(([stage, count]) => ({ text: stageTitle(stage), count })),
    },
    { title: 'By label', lines: byLabel.filter((l) => l.count > 0) },
  ].filter((s) => s.lines.length > 0);
  const { keys, alerts } = summary;
  return {
    title: 'License keys that need action',
    dateLabel: `${shortDate(ctx.today)} ${ctx.today.slice(0, 4)}`,
    intro:
      keys === alerts
        ? `${plural(keys, 'license key')} reached a new alert stage.`
        : `${plural(keys, 'license key')} reached a new alert stage (${alerts} alerts: some keys are in two).`,
    next: null,
    summaries,
    groups,
    moreText:
      shown.length < alerts
        ? `Showing the ${shown.length} most urgent of ${alerts} alerts; all of them are in the attached CSV file.`
        : null,
    footer: ctx.footer,
  };
}

/** The CSV attachment's first line. */
export const ALERT_CSV_HEADER = csvRow([
  'product',
  'productName',
  'licenseKey',
  'licenseType',
  'stage',
  'labels',
  'expiryDate',
  'daysLeft',
  'clientCount',
  'clientsLastWindow',
  'clientsPreviousWindow',
  'lastSeenDate',
  'overQuotaCount',
]);

/** One alert's line of the CSV attachment. */
export const alertCsvRow = (a: ShownAlert, productName: (id: string) => string): string =>
  csvRow([
    a.productId,
    productName(a.productId),
    a.key.licenseKey,
    a.key.licenseType,
    a.stage,
    a.labels.join(' '),
    a.key.expiryDate,
    a.daysLeft,
    a.key.clientCount,
    a.usage.lastWindow,
    a.usage.previousWindow,
    a.key.lastSeenDate,
    a.key.overQuotaCount,
  ]);
