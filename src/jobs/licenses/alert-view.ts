/**
 * What one recipient's email says: the alerts sorted most urgent first (stage, then label, then days left), grouped
 * by stage, the first `maxKeys` shown, and a CSV of all of them. Plain text only; the renderer escapes.
 */

import type { LicenseAlertView } from '../../render/license-alert-email.ts';
import { shortDate } from '../digest/week.ts';
import type { ShownAlert } from './alert.ts';
import { csvRow } from './csv-cells.ts';
import { LABEL_TITLES, LABELS, type Label } from './labels.ts';
import { type Stage, stageTitle, urgencyOf } from './stage.ts';

const LABEL_TONES: Record<Label, LicenseAlertView['groups'][number]['rows'][number]['labels'][number]['tone']> = {
  revenueLeak: 'bad',
  renewalPriority: 'good',
  atRisk: 'warn',
  conversionCandidate: 'info',
};

const labelRank = (a: ShownAlert) => Math.min(LABELS.length, ...a.labels.map((l) => LABELS.indexOf(l)));

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

/** `alerts` sorted by `byUrgency`; the first `maxKeys` are shown. */
export function alertView(alerts: ShownAlert[], maxKeys: number, ctx: ViewContext): LicenseAlertView {
  const shown = alerts.slice(0, maxKeys);
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
  const stageCounts = new Map<Stage, number>();
  for (const a of alerts) stageCounts.set(a.stage, (stageCounts.get(a.stage) ?? 0) + 1);
  const byLabel = LABELS.map((l) => ({
    text: LABEL_TITLES[l],
    count: alerts.filter((a) => a.labels.includes(l)).length,
  }));
  const summaries = [
    { title: 'By stage', lines: [...stageCounts].map(([stage, count]) => ({ text: stageTitle(stage), count })) },
    { title: 'By label', lines: byLabel.filter((l) => l.count > 0) },
  ].filter((s) => s.lines.length > 0);
  const keys = new Set(alerts.map((a) => `${a.productId}\u0000${a.key.licenseKey}`)).size;
  return {
    title: 'License keys that need action',
    dateLabel: `${shortDate(ctx.today)} ${ctx.today.slice(0, 4)}`,
    intro:
      keys === alerts.length
        ? `${plural(keys, 'license key')} reached a new alert stage.`
        : `${plural(keys, 'license key')} reached a new alert stage (${alerts.length} alerts: some keys are in two).`,
    summaries,
    groups,
    moreText:
      shown.length < alerts.length
        ? `Showing the ${shown.length} most urgent of ${alerts.length} alerts; all of them are in the attached CSV file.`
        : null,
    footer: ctx.footer,
  };
}

const CSV_HEADER = [
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
];

/** Every alert, one line each, most urgent first. */
export function alertCsv(alerts: ShownAlert[], productName: (id: string) => string): string {
  let csv = csvRow(CSV_HEADER);
  for (const a of alerts) {
    csv += csvRow([
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
  }
  return csv;
}
