/**
 * What one recipient's usage alert message says, for the email (alert-message.ts and templates/usage-alert.mjml) and
 * the channel message alike: the rules' state changes, firing first (new onsets, then reminders; the largest move
 * first), then resolved; each with its figure, its move against the reference, the range it was expected in, the
 * verdict's reason, the period in the rule's time zone, how old the data was when it was judged, and its evidence as
 * a chart (alert-chart.ts) and as numbers. Plain text throughout (names cleaned of control characters and bidi
 * overrides, and cut when very long); the renderers escape.
 */

import { cleanLabel } from '../charts/text.ts';
import type { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import { isoWeekOf, localDateTime, shortDate, weekLabel } from '../core/calendar.ts';
import { EVIDENCE_CHART_HEIGHT, EVIDENCE_CHART_WIDTH, type EvidenceChartSpec } from './alert-chart.ts';
import { type AlertState, isShare, type StateChange } from './evaluate.ts';
import type { EvidenceLocation } from './evidence.ts';
import { periodEnd } from './periods.ts';

export interface AlertItem {
  change: StateChange;
  rule: UsageAlertRule;
  productName: string;
  /** How old the data of the judged period is: hours since the period ended. */
  dataAgeHours: number;
  /** The full digest report, when reachable. */
  reportUrl?: string;
}

export interface AlertView {
  state: AlertState;
  repeat: boolean;
  /** "Firing", "Still firing", "Resolved". */
  stateText: string;
  /** "Example Desktop · active clients · prodVersion 5.2". */
  title: string;
  /** "Example Desktop active clients −26 %": the subject's words for it. */
  headline: string;
  /** "1,480 active clients"; resolved: "Now 1,950 active clients". */
  figureText: string;
  /** "▼ 26 % vs the day before (2,010)"; null without a reference. */
  changeText: string | null;
  trend: 'up' | 'down' | 'flat';
  /** "at least 1,820", "1,700 to 2,240", "at most 40.0 %". */
  expectedText: string;
  /** "Outside the expected range." / "Back within the expected range." */
  rangeText: string;
  /** The verdict's words: "22.3 % below the period before (1,905)". */
  reason: string;
  /** "Mon 23 Nov 2026 01:00 – Tue 24 Nov 01:00 (Europe/Berlin)". */
  periodText: string;
  /** "Judged on data 9 h old: late data may still change it."; null for data a day old or more. */
  freshnessText: string | null;
  /** "Rule desktop-active-drop: Active clients … · owner product-ops@example.com". */
  ruleText: string;
  /** "Last 16 days: 8 Nov 2,010 · … · 23 Nov 1,480". */
  seriesText: string;
  /** https only. */
  reportUrl: string | null;
  chart: { cid: string; alt: string; width: number; height: number; spec: EvidenceChartSpec };
  /** The numbers, for a webhook's `data`. */
  data: Record<string, unknown>;
}

export interface UsageAlertView {
  title: string;
  /** `now` in the first alert's time zone: "Tue 24 Nov 2026". */
  dateLabel: string;
  subject: string;
  intro: string;
  counts: { firing: number; stillFiring: number; resolved: number };
  /** Every alert, most important first (the channel message's data carries them all). */
  alerts: AlertView[];
  /** The alerts the email shows (the first EMAIL_ALERTS), by state. */
  groups: { title: string; state: AlertState; alerts: AlertView[] }[];
  /** Set when the email shows fewer alerts than the message carries. */
  moreText: string | null;
  footer: string;
  /** "Evidence: s3://…/usage-alerts/evidence/…json": where the run's raw answers and figures are kept. */
  evidenceText: string | null;
  evidence: EvidenceLocation | null;
}

/** Alerts an email shows (each with its chart); the rest are counted. */
export const EMAIL_ALERTS = 20;
/** A product name or segment value longer than this is cut with "…" (the webhook's data keeps it whole). */
const MAX_NAME = 80;
const MAX_SUBJECT = 180;

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
/** Cleaned (controls, bidi overrides and line breaks out) and cut at a grapheme boundary. */
export function clip(text: string, max: number): string {
  const clean = cleanLabel(text);
  if (clean.length <= max) return clean;
  let out = '';
  for (const { segment } of graphemes.segment(clean)) {
    if (out.length + segment.length > max - 1) break;
    out += segment;
  }
  return `${out.trimEnd()}…`;
}

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const SMALL = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

type Format = 'count' | 'percent';
const formatOf = (rule: UsageAlertRule): Format => (isShare(rule) ? 'percent' : 'count');

/** "1,480", "306.5" (a median or a bound), "43.1 %": as the verdict's reason writes them. */
export function figure(n: number, format: Format): string {
  if (format === 'percent') return `${n.toFixed(1)} %`;
  return Number.isInteger(n) ? COUNT.format(n) : SMALL.format(n);
}

/** "26 %", "4.2 %": whole percents from 10 on. */
const percentText = (p: number) => {
  const a = Math.abs(p);
  return `${a >= 9.95 ? Math.round(a) : a.toFixed(1)} %`;
};

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const weekday = (date: string) => WEEKDAYS[new Date(`${date}T00:00:00Z`).getUTCDay()]!;
const longDate = (date: string) => `${weekday(date)} ${shortDate(date)} ${date.slice(0, 4)}`;

/**
 * The period as the rule's time zone sees it: a day (the service's UTC day) or an ISO week, from its start to its
 * end in local time: "Mon 23 Nov 2026 01:00 – Tue 24 Nov 01:00 (Europe/Berlin)", "Week 48 · 23–29 Nov 2026 (UTC)".
 */
export function periodText(period: string, unit: 'day' | 'week', timeZone: string): string {
  const name = unit === 'day' ? longDate(period) : weekLabel(isoWeekOf(period));
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return `${name} (UTC)`;
  const a = localDateTime(new Date(`${period}T00:00:00Z`), timeZone);
  const b = localDateTime(periodEnd(period, unit), timeZone);
  const from = `${longDate(a.date)} ${a.time}`;
  const to = `${weekday(b.date)} ${shortDate(b.date)} ${b.time}`;
  return unit === 'day' ? `${from} – ${to} (${timeZone})` : `${name.split(' · ')[0]}: ${from} – ${to} (${timeZone})`;
}

/** What the rule counts, as a noun phrase: "active clients", "“Export” events", "prodVersion 5.2's share". */
function metricNoun(rule: UsageAlertRule): string {
  const m = rule.metric;
  switch (m.kind) {
    case 'clients':
      return `${m.status} clients`;
    case 'eventCount': {
      const name = clip(m.event.category ? `${m.event.category} / ${m.event.name}` : m.event.name, 60);
      return m.event.match === 'regex' ? `events matching ${name}` : `“${name}” events`;
    }
    case 'segmentShare':
      return `${clip(m.property, 40)} ${clip(m.value, 40)} share of active clients`;
    case 'exceptionCount': {
      const type = clip(m.exception.type, 80);
      return m.exception.match === 'regex' ? `exceptions matching ${type}` : `“${type}” exceptions`;
    }
    case 'engagement': {
      const clients = engagedClients(m.measure, m.atLeast);
      return m.as === 'share' ? `share of ${clients}` : clients;
    }
  }
}

/** "clients with at least 6 sessions", "clients with at least 2:01 h of runtime"; the first bin is every client. */
function engagedClients(measure: 'sessions' | 'runtime', atLeast: string): string {
  if (atLeast.startsWith('≤')) return `active clients (${measure} ${clip(atLeast, 20)} or more)`;
  const from = clip(atLeast.replace(/^≥\s*/, '').split(' - ')[0]!, 20);
  return measure === 'sessions'
    ? `clients with at least ${from} sessions`
    : `clients with at least ${from} h of runtime`;
}

/** The unit after a figure: "1,480 active clients", "43.1 % of active clients". */
function figureUnit(rule: UsageAlertRule): string {
  return isShare(rule) ? 'of active clients' : metricNoun(rule);
}

/** Capitalised for a chart's legend and title. */
const capital = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The segment of a segmented clients rule ("prodVersion 5.2"); a share's value is in its metric already. */
function segmentText(item: AlertItem): string | null {
  const { rule, change } = item;
  if (change.segment === null || rule.metric.kind === 'segmentShare') return null;
  return `${clip(rule.segment?.property ?? 'segment', 40)} ${clip(change.segment, MAX_NAME)}`;
}

interface Judged {
  value: number;
  expected: { low: number | null; high: number | null } | null;
  reference: number | null;
  reason: string;
}
function judgedOf(change: StateChange): Judged {
  const v = change.verdict;
  if (v.state === 'undetermined') return { value: v.value ?? 0, expected: null, reference: null, reason: v.reason };
  return { value: v.value, expected: v.expected, reference: v.reference ?? null, reason: v.reason };
}

function expectedText(expected: Judged['expected'], format: Format): string {
  if (!expected) return 'not judged';
  const { low, high } = expected;
  if (low !== null && high !== null) return `${figure(low, format)} to ${figure(high, format)}`;
  if (low !== null) return `at least ${figure(low, format)}`;
  if (high !== null) return `at most ${figure(high, format)}`;
  return 'any figure';
}

/** What the reference is called, in the text and in the chart's legend. */
function referenceName(rule: UsageAlertRule): string | null {
  const unit = rule.period.unit;
  const c = rule.condition;
  if (c.kind === 'change') return `the ${unit} before`;
  if (c.kind === 'deviation') return `the median of ${plural(c.baselinePeriods, unit)}`;
  return null;
}

/** The relative move against the reference, in %; null without one (or from 0). */
function relativeMove(j: Judged): number | null {
  if (j.reference === null || j.reference === 0) return null;
  return ((j.value - j.reference) / Math.abs(j.reference)) * 100;
}

/** How far outside (or inside) its range a figure is, for ordering: the largest move first. */
function severity(item: AlertItem): number {
  const j = judgedOf(item.change);
  const move = relativeMove(j);
  if (move !== null) return Math.abs(move);
  const { low, high } = j.expected ?? { low: null, high: null };
  const over = high !== null && j.value > high ? (j.value - high) / Math.max(Math.abs(high), 1) : 0;
  const under = low !== null && j.value < low ? (low - j.value) / Math.max(Math.abs(low), 1) : 0;
  return Math.max(over, under) * 100;
}

const rank = (c: StateChange) => (c.state === 'firing' ? (c.repeat ? 1 : 0) : 2);
const byImportance = (a: AlertItem, b: AlertItem) =>
  rank(a.change) - rank(b.change) ||
  severity(b) - severity(a) ||
  (a.change.ruleId < b.change.ruleId ? -1 : a.change.ruleId > b.change.ruleId ? 1 : 0) ||
  (a.change.productId < b.change.productId ? -1 : a.change.productId > b.change.productId ? 1 : 0) ||
  ((a.change.segment ?? '') < (b.change.segment ?? '') ? -1 : 1);

/** The link, if it is https; anything else is dropped. */
export function httpsUrl(url: string | undefined): string | null {
  if (url === undefined) return null;
  const parsed = URL.parse(url.trim());
  return parsed && parsed.protocol === 'https:' && parsed.hostname !== '' ? parsed.href : null;
}

function freshnessText(hours: number): string | null {
  if (!(hours < 24)) return null;
  const age = hours < 1 ? 'less than 1 h' : `${Math.floor(hours)} h`;
  return `Judged on data ${age} old: late data may still change it.`;
}

function alertView(item: AlertItem, index: number): AlertView {
  const { change, rule } = item;
  const format = formatOf(rule);
  const j = judgedOf(change);
  const product = clip(item.productName, MAX_NAME) || change.productId;
  const segment = segmentText(item);
  const noun = metricNoun(rule);
  const refName = referenceName(rule);
  const move = relativeMove(j);
  const trend: AlertView['trend'] = move === null || Math.abs(move) < 0.05 ? 'flat' : move > 0 ? 'up' : 'down';
  const arrow = { up: '▲', down: '▼', flat: '▬' }[trend];
  const changeText =
    move !== null && refName !== null
      ? `${arrow} ${percentText(move)} vs ${refName} (${figure(j.reference!, format)})`
      : null;
  const signed = move === null ? null : `${move < 0 ? '−' : '+'}${percentText(move)}`;
  const what = [product, segment, noun].filter(Boolean).join(' ');
  const headline =
    change.state === 'resolved'
      ? `${what} now ${figure(j.value, format)}`
      : signed !== null
        ? `${what} ${signed}`
        : `${what} ${figure(j.value, format)}`;
  const stateText = change.state === 'resolved' ? 'Resolved' : change.repeat ? 'Still firing' : 'Firing';
  const unit = rule.period.unit;
  const evidence =
    change.evidence.length > 0 ? change.evidence : [{ period: change.period, value: j.value, volume: 0 }];
  const labels = evidence.map((p) => shortDate(p.period));
  const c = rule.condition;
  const bandFrom =
    c.kind === 'threshold'
      ? 0
      : c.kind === 'change'
        ? evidence.length - 2
        : Math.max(0, evidence.length - 1 - c.baselinePeriods);
  // "Active clients per day · prodVersion 5.2", "Share of active clients per day · prodVersion 5.2".
  const m = rule.metric;
  const seriesLabel = capital(m.kind === 'segmentShare' ? 'share of active clients' : noun);
  const qualifier = m.kind === 'segmentShare' ? `${clip(m.property, 40)} ${clip(m.value, 40)}` : segment;
  const spec: EvidenceChartSpec = {
    title: `${seriesLabel} per ${unit}${qualifier ? ` · ${qualifier}` : ''}`,
    categories: labels,
    values: evidence.map((p) => p.value),
    format,
    expected: j.expected,
    bandFrom,
    thresholds: c.kind === 'threshold',
    reference:
      j.reference !== null && refName !== null
        ? { value: j.reference, label: capital(refName.replace(/^the /, '')) }
        : null,
    judgedLabel: `${labels.at(-1)}, judged`,
    state: change.state,
  };
  const pairs = evidence.map((p, i) => `${labels[i]} ${figure(p.value, format)}`).join('; ');
  const span = `last ${plural(evidence.length, unit)}`;
  const alt = `${seriesLabel} per ${unit}, ${span}: ${pairs}. Expected ${expectedText(j.expected, format)}${
    spec.reference ? `; ${refName} ${figure(spec.reference.value, format)}` : ''
  }. ${labels.at(-1)} is the ${unit} judged: ${stateText.toLowerCase()}.`;
  const description = rule.description ? `: ${clip(rule.description, 200)}` : '';
  return {
    state: change.state,
    repeat: change.repeat,
    stateText,
    title: [product, noun, segment].filter(Boolean).join(' · '),
    headline,
    figureText: `${change.state === 'resolved' ? 'Now ' : ''}${figure(j.value, format)} ${figureUnit(rule)}`,
    changeText,
    trend,
    expectedText: expectedText(j.expected, format),
    rangeText: change.state === 'resolved' ? 'Back within the expected range.' : 'Outside the expected range.',
    reason: clip(j.reason, 300),
    periodText: periodText(change.period, unit, rule.period.timeZone),
    freshnessText: freshnessText(item.dataAgeHours),
    ruleText: `Rule ${rule.id}${description} · owner ${rule.owner}`,
    seriesText: `${capital(span)}: ${evidence.map((p, i) => `${labels[i]} ${figure(p.value, format)}`).join(' · ')}`,
    reportUrl: httpsUrl(item.reportUrl),
    chart: {
      cid: `usage-alert-${index + 1}-${rule.id}.png`,
      alt,
      width: EVIDENCE_CHART_WIDTH,
      height: EVIDENCE_CHART_HEIGHT,
      spec,
    },
    data: {
      ruleId: change.ruleId,
      productId: change.productId,
      productName: item.productName,
      segment: change.segment,
      period: change.period,
      periodUnit: unit,
      timeZone: rule.period.timeZone,
      state: change.state,
      repeat: change.repeat,
      value: j.value,
      expected: j.expected,
      reference: j.reference,
      reason: j.reason,
      dataAgeHours: item.dataAgeHours,
      evidence: evidence.map((p) => ({ period: p.period, value: p.value, volume: p.volume })),
    },
  };
}

/** The subject: "2 usage alerts firing, 1 resolved: Example Desktop active clients −26 %". */
function subjectOf(firing: number, resolved: number, headline: string): string {
  const count =
    firing > 0
      ? `${plural(firing, 'usage alert')} firing${resolved > 0 ? `, ${resolved} resolved` : ''}`
      : `${plural(resolved, 'usage alert')} resolved`;
  return clip(`${count}: ${headline}`, MAX_SUBJECT);
}

/** One message for one recipient: the changes of many rules, most important first. */
export function usageAlertView(
  items: AlertItem[],
  opts: { now: Date; evidence?: EvidenceLocation | undefined },
): UsageAlertView {
  if (items.length === 0) throw new Error('a usage alert message needs at least one change');
  const sorted = [...items].sort(byImportance);
  const alerts = sorted.map(alertView);
  const firing = alerts.filter((a) => a.state === 'firing');
  const resolved = alerts.filter((a) => a.state === 'resolved');
  const stillFiring = firing.filter((a) => a.repeat).length;
  const shown = alerts.slice(0, EMAIL_ALERTS);
  const groups: UsageAlertView['groups'] = [];
  for (const [state, title] of [
    ['firing', 'Firing'],
    ['resolved', 'Resolved'],
  ] as const) {
    const inGroup = shown.filter((a) => a.state === state);
    if (inGroup.length > 0) groups.push({ title, state, alerts: inGroup });
  }
  const started = firing.length - stillFiring;
  const parts = [
    started > 0 ? [started, 'started firing'] : null,
    stillFiring > 0 ? [stillFiring, stillFiring === 1 ? 'is still firing' : 'are still firing'] : null,
    resolved.length > 0 ? [resolved.length, 'resolved'] : null,
  ]
    .filter((p): p is [number, string] => p !== null)
    .map(([n, words], i) => (i === 0 ? `${plural(n, 'usage alert')} ${words}` : `${n} ${words}`));
  const said = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : parts[0]!;
  const zone = sorted[0]!.rule.period.timeZone;
  return {
    title: 'Usage alerts',
    dateLabel: longDate(localDateTime(opts.now, zone).date),
    subject: subjectOf(firing.length, resolved.length, alerts[0]!.headline),
    intro: `${said}. Each alert shows its figure against the range it was expected in, with the periods before it.`,
    counts: { firing: firing.length, stillFiring, resolved: resolved.length },
    alerts,
    groups,
    moreText:
      shown.length < alerts.length
        ? `Showing the ${shown.length} most important of ${alerts.length} alerts; \`pulse usage-alerts --dry-run\` lists them all.`
        : null,
    footer: 'Sent by Pulse: usage alerts on the rules above. A rule’s owner can change who gets them.',
    evidenceText: opts.evidence ? `Evidence (the answers and figures judged): ${opts.evidence.uri}` : null,
    evidence: opts.evidence ?? null,
  };
}
