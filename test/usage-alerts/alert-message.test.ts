/**
 * The usage alert message (src/usage-alerts/alert-message.ts, alert-view.ts, alert-chart.ts,
 * templates/usage-alert.mjml): realistic state changes — a deviation firing on a spike, a 26 % drop, a resolved
 * change, a threshold on a segment, hostile product and segment names — as the view, the subject, the text part, the
 * HTML (hostile text escaped), one non-blank inline chart per alert, the channel message within Slack's and Teams'
 * limits with every change as data, and the email in headless Chromium at 375 and 800 px without horizontal
 * overflow. Screenshots go to test-artifacts/usage-alert-375.png and -800.png.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTemplates, TEMPLATES_DIR } from '../../scripts/build-templates.ts';
import { decodePng, isBlank } from '../../src/charts/index.ts';
import { UsageAlertRule } from '../../src/config/usage-alerts-schema.ts';
import { renderChannelRequest } from '../../src/core/channels/render-channel.ts';
import type { SlackPayload } from '../../src/core/channels/slack.ts';
import type { TeamsPayload } from '../../src/core/channels/teams.ts';
import {
  type AlertItem,
  CHANNEL_ALERTS,
  usageAlertChannelMessage,
  usageAlertEmail,
  usageAlertView,
} from '../../src/usage-alerts/alert-message.ts';
import { EMAIL_ALERTS } from '../../src/usage-alerts/alert-view.ts';
import { judge, type Point } from '../../src/usage-alerts/conditions.ts';
import { EVIDENCE_PERIODS, type StateChange } from '../../src/usage-alerts/evaluate.ts';
import type { EvidenceLocation } from '../../src/usage-alerts/evidence.ts';
import { shiftPeriod } from '../../src/usage-alerts/periods.ts';
import { expectSlackWithinLimits, expectTeamsValid, HOSTILE } from '../core/channels/channel-checks.ts';
import { ARTIFACTS, launchChromium, openEmail } from '../helpers/email-browser.ts';

const NOW = new Date('2026-11-24T09:00:00Z');
const FROM = 'Pulse <pulse@example.com>';
const TO = { address: 'product-ops@example.com', name: 'Product Ops' };
const REPORT = 'https://reports.example.com/digests/2026-W47/report.html';

const rule = (over: Record<string, unknown>) =>
  UsageAlertRule.parse({
    id: 'desktop-active-drop',
    description: 'Active clients of Example Desktop dropping day over day',
    productIds: ['12345678901'],
    metric: { kind: 'clients', status: 'active' },
    period: { unit: 'day', timeZone: 'Europe/Berlin' },
    condition: { kind: 'change', percent: 25, direction: 'down' },
    minVolume: 100,
    settleHours: 6,
    owner: 'product-ops@example.com',
    recipients: [{ address: 'product-ops@example.com' }],
    ...over,
  });

/**
 * A state change as the job makes it: the verdict of the real judge on the last of `values` (daily or weekly periods
 * ending with `last`), with the figures before it as history and the last EVIDENCE_PERIODS as evidence.
 */
function changeOf(
  r: UsageAlertRule,
  values: number[],
  last: string,
  state: 'firing' | 'resolved',
  over: Partial<StateChange> = {},
): StateChange {
  const points: Point[] = values.map((value, i) => ({
    period: shiftPeriod(last, r.period.unit, i - values.length + 1),
    value,
    volume: r.metric.kind === 'segmentShare' ? 5000 : value,
  }));
  const verdict = judge(r.condition, points.at(-1)!, points.slice(0, -1), r.minVolume);
  expect(verdict.state).toBe(state === 'firing' ? 'firing' : 'ok');
  return {
    ruleId: r.id,
    productId: r.productIds[0]!,
    segment: null,
    period: last,
    state,
    repeat: false,
    verdict,
    evidence: points.slice(-EVIDENCE_PERIODS),
    ...over,
  };
}

const DAY = '2026-11-23';

/** Active clients falling 26 % day over day (the subject's example). */
function drop(): AlertItem {
  const r = rule({});
  const values = [2010, 1990, 2040, 2075, 1960, 1580, 1610, 2030, 2000, 2060, 2090, 1950, 1600, 1640, 2010, 2000, 1480];
  return {
    change: changeOf(r, values, DAY, 'firing'),
    rule: r,
    productName: 'Example Desktop',
    dataAgeHours: 9,
    reportUrl: REPORT,
  };
}

/** New clients far above their usual range, with a one-off spike in the baseline that the median shrugs off. */
function spike(): AlertItem {
  const r = rule({
    id: 'server-new-spike',
    description: 'New clients of Example Server far outside their usual range',
    productIds: ['9876543210'],
    metric: { kind: 'clients', status: 'new' },
    condition: { kind: 'deviation', baselinePeriods: 8, k: 3, direction: 'either' },
    minVolume: 20,
    period: { unit: 'day', timeZone: 'UTC' },
  });
  const values = [300, 310, 296, 305, 322, 298, 301, 615, 312, 305, 298, 310, 320, 302, 299, 308, 721];
  return { change: changeOf(r, values, DAY, 'firing'), rule: r, productName: 'Example Server', dataAgeHours: 33 };
}

/** A weekly event count whose drop has ended: resolved, with the figure it is at now. */
function resolved(): AlertItem {
  const r = rule({
    id: 'export-events-drop',
    description: 'Export events falling week over week',
    metric: { kind: 'eventCount', event: { category: 'File', name: 'Export', match: 'string' } },
    period: { unit: 'week', timeZone: 'America/New_York' },
    condition: { kind: 'change', percent: 30, direction: 'down' },
    minVolume: 50,
  });
  const values = [820, 845, 830, 812, 860, 871, 455, 850];
  return {
    change: changeOf(r, values, '2026-11-16', 'resolved'),
    rule: r,
    productName: 'Example Desktop',
    dataAgeHours: 57,
    reportUrl: REPORT,
  };
}

/** A segmented clients rule: version 5.2's active clients under a threshold. */
function segmentThreshold(segment = '5.2', productName = 'Example Desktop'): AlertItem {
  const r = rule({
    id: 'desktop-version-floor',
    description: undefined,
    segment: { property: 'prodVersion', limit: 5 },
    condition: { kind: 'threshold', below: 400 },
    minVolume: 0,
  });
  const values = [520, 540, 510, 530, 505, 498, 470, 455, 440, 430, 420, 410, 402, 398, 385, 371];
  return {
    change: changeOf(r, values, DAY, 'firing', { segment }),
    rule: r,
    productName,
    dataAgeHours: 9,
    reportUrl: 'javascript:alert(1)',
  };
}

/** A share passing its threshold (a percent metric). */
function share(): AlertItem {
  const r = rule({
    id: 'v52-share',
    description: 'Version 5.2 passing 40 % of active clients',
    metric: { kind: 'segmentShare', property: 'prodVersion', value: '5.2' },
    condition: { kind: 'threshold', above: 40 },
    minVolume: 100,
  });
  const values = [21.5, 23.1, 24.8, 27.2, 29.9, 31.4, 33.0, 35.2, 36.9, 38.1, 39.4, 41.3];
  return {
    change: changeOf(r, values, DAY, 'firing', { segment: '5.2' }),
    rule: r,
    productName: 'Example Desktop',
    dataAgeHours: 30,
    reportUrl: 'http://reports.example.com/plain-http.html',
  };
}

const LONG_RTL = 'ש'.repeat(10 * 1024);
const hostile = (): AlertItem[] => [
  segmentThreshold('<script>alert("segment")</script>', '<script>alert("product")</script>'),
  segmentThreshold('<!channel> <!here>', '<!channel> Example <@U123>'),
  segmentThreshold(LONG_RTL, `Example \u202EcodeCleaner.exe ${LONG_RTL}`),
];

const sample = () => [resolved(), segmentThreshold(), drop(), spike(), share()];

let browser: Browser;
let dir: string;
let templateHtml: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pulse-templates-'));
  await buildTemplates(TEMPLATES_DIR, dir);
  templateHtml = await readFile(join(dir, 'usage-alert.html'), 'utf8');
  await mkdir(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await rm(dir, { recursive: true, force: true });
});

const email = (items: AlertItem[], evidence?: EvidenceLocation) =>
  usageAlertEmail(items, { from: FROM, to: TO, now: NOW, evidence, compiledHtml: templateHtml });

const EVIDENCE_KEY = 'pulse/usage-alerts/evidence/2026-11-24/2026-11-24T09-40-00.000Z-0123456789ab.json';
const EVIDENCE: EvidenceLocation = { key: EVIDENCE_KEY, uri: `s3://pulse-archive-123/${EVIDENCE_KEY}` };

describe('the usage alert view', () => {
  it('puts firing first, the largest move first, then resolved; says the subject like a person would', () => {
    const view = usageAlertView([resolved(), drop()], { now: NOW });
    expect(view.subject).toBe('1 usage alert firing, 1 resolved: Example Desktop active clients −26 %');
    expect(view.dateLabel).toBe('Tue 24 Nov 2026');
    expect(view.intro).toMatch(/^1 usage alert started firing and 1 resolved\./);

    const all = usageAlertView(sample(), { now: NOW });
    expect(all.subject).toBe('4 usage alerts firing, 1 resolved: Example Server new clients +135 %');
    expect(all.groups.map((g) => [g.title, g.alerts.map((a) => a.title)])).toEqual([
      [
        'Firing',
        [
          'Example Server · new clients',
          'Example Desktop · active clients',
          'Example Desktop · active clients · prodVersion 5.2',
          'Example Desktop · prodVersion 5.2 share of active clients',
        ],
      ],
      ['Resolved', ['Example Desktop · “File / Export” events']],
    ]);
  });

  it('gives each alert its figure, move, expected range, reason, period in the rule’s zone and data age', () => {
    const [a] = usageAlertView([drop()], { now: NOW }).alerts;
    expect(a).toMatchObject({
      stateText: 'Firing',
      figureText: '1,480 active clients',
      changeText: '▼ 26 % vs the day before (2,000)',
      trend: 'down',
      expectedText: 'at least 1,500',
      rangeText: 'Outside the expected range.',
      reason: '26 % below the period before (2,000)',
      periodText: 'Mon 23 Nov 2026 01:00 – Tue 24 Nov 01:00 (Europe/Berlin)',
      freshnessText: 'Judged on data 9 h old: late data may still change it.',
      ruleText:
        'Rule desktop-active-drop: Active clients of Example Desktop dropping day over day · owner product-ops@example.com',
      reportUrl: REPORT,
    });
    expect(a!.seriesText).toMatch(/^Last 16 days: 8 Nov 1,990 · .* · 23 Nov 1,480$/);
    expect(a!.chart.spec).toMatchObject({ bandFrom: 14, thresholds: false, reference: { value: 2000 } });
  });

  it('a resolved change says what the figure is now; a week shows as its ISO week in the rule’s zone', () => {
    const [a] = usageAlertView([resolved()], { now: NOW }).alerts;
    expect(a).toMatchObject({
      stateText: 'Resolved',
      figureText: 'Now 850 “File / Export” events',
      changeText: '▲ 87 % vs the week before (455)',
      rangeText: 'Back within the expected range.',
      periodText: 'Week 47: Sun 15 Nov 2026 19:00 – Sun 22 Nov 19:00 (America/New_York)',
      freshnessText: null,
    });
    expect(a!.headline).toBe('Example Desktop “File / Export” events now 850');
    expect(usageAlertView([resolved()], { now: NOW }).subject).toBe(
      '1 usage alert resolved: Example Desktop “File / Export” events now 850',
    );
  });

  it('a deviation shows the median of its baseline; a threshold and a share show their bounds', () => {
    const [dev] = usageAlertView([spike()], { now: NOW }).alerts;
    expect(dev!.changeText).toBe('▲ 135 % vs the median of 8 days (306.5)');
    expect(dev!.expectedText).toMatch(/^\d{3}\.\d to \d{3}\.\d$/);
    expect(dev!.periodText).toBe('Mon 23 Nov 2026 (UTC)');
    expect(dev!.freshnessText).toBeNull();
    expect(dev!.chart.spec.bandFrom).toBe(16 - 1 - 8);

    const [seg] = usageAlertView([segmentThreshold()], { now: NOW }).alerts;
    expect(seg).toMatchObject({ expectedText: 'at least 400', changeText: null, reason: '371 is below 400' });
    expect(seg!.chart.spec).toMatchObject({ thresholds: true, bandFrom: 0, reference: null });
    // Only https links: javascript: and http: are dropped.
    expect(seg!.reportUrl).toBeNull();

    const [pct] = usageAlertView([share()], { now: NOW }).alerts;
    expect(pct).toMatchObject({ figureText: '41.3 % of active clients', expectedText: 'at most 40.0 %' });
    expect(pct!.headline).toBe('Example Desktop prodVersion 5.2 share of active clients 41.3 %');
    expect(pct!.reportUrl).toBeNull();
  });

  it('names an exception type and the engaged clients, as a count or a share of active clients', () => {
    const timeouts = rule({
      id: 'desktop-timeouts',
      metric: { kind: 'exceptionCount', exception: { type: 'TimeoutError' } },
      condition: { kind: 'threshold', above: 30 },
      minVolume: 0,
    });
    const [exc] = usageAlertView(
      [
        {
          change: changeOf(timeouts, [12, 64], DAY, 'firing'),
          rule: timeouts,
          productName: 'Example Desktop',
          dataAgeHours: 30,
        },
      ],
      { now: NOW },
    ).alerts;
    expect(exc).toMatchObject({
      title: 'Example Desktop · “TimeoutError” exceptions',
      figureText: '64 “TimeoutError” exceptions',
    });
    expect(exc!.chart.spec.title).toBe('“TimeoutError” exceptions per day');
    const busy = rule({
      id: 'busy-share',
      metric: { kind: 'engagement', measure: 'sessions', atLeast: '6 - 8', as: 'share' },
      condition: { kind: 'threshold', below: 20 },
      minVolume: 0,
    });
    const [eng] = usageAlertView(
      [
        {
          change: changeOf(busy, [24.5, 17.2], DAY, 'firing'),
          rule: busy,
          productName: 'Example Desktop',
          dataAgeHours: 30,
        },
      ],
      { now: NOW },
    ).alerts;
    expect(eng).toMatchObject({
      title: 'Example Desktop · share of clients with at least 6 sessions',
      figureText: '17.2 % of active clients',
      expectedText: 'at least 20.0 %',
    });
    const longRuns = rule({
      metric: { kind: 'engagement', measure: 'runtime', atLeast: '≥ 5:01', as: 'clients' },
      condition: { kind: 'threshold', below: 20 },
      minVolume: 0,
    });
    const [run] = usageAlertView(
      [
        {
          change: changeOf(longRuns, [30, 12], DAY, 'firing'),
          rule: longRuns,
          productName: 'Example Desktop',
          dataAgeHours: 30,
        },
      ],
      { now: NOW },
    ).alerts;
    expect(run!.figureText).toBe('12 clients with at least 5:01 h of runtime');
  });

  it('says "still firing" for a reminder and ranks it after new onsets', () => {
    const again = drop();
    again.change = { ...again.change, repeat: true };
    const view = usageAlertView([again, segmentThreshold()], { now: NOW });
    expect(view.alerts.map((a) => a.stateText)).toEqual(['Firing', 'Still firing']);
    expect(view.intro).toMatch(/^1 usage alert started firing and 1 is still firing\./);
  });

  it('shows at most EMAIL_ALERTS alerts in an email and says how many more there are', () => {
    const many = Array.from({ length: EMAIL_ALERTS + 3 }, (_, i) => segmentThreshold(`5.${i}`));
    const view = usageAlertView(many, { now: NOW });
    expect(view.groups.flatMap((g) => g.alerts)).toHaveLength(EMAIL_ALERTS);
    expect(view.alerts).toHaveLength(EMAIL_ALERTS + 3);
    expect(view.moreText).toMatch(/^Showing the 20 most important of 23 alerts/);
  });

  it('refuses an empty message', () => {
    expect(() => usageAlertView([], { now: NOW })).toThrow(/at least one change/);
  });
});

describe('the usage alert email', () => {
  it('has the subject, a readable text part and one non-blank inline chart per alert', async () => {
    const m = await email(sample());
    expect(m).toMatchObject({ from: FROM, to: TO.address });
    expect(m.subject).toBe('4 usage alerts firing, 1 resolved: Example Server new clients +135 %');
    expect(m.text).toContain('* FIRING: Example Desktop · active clients');
    expect(m.text).toContain('  1,480 active clients, ▼ 26 % vs the day before (2,000)');
    expect(m.text).toContain('  Expected: at least 1,500. Outside the expected range.');
    expect(m.text).toContain('  Why: 26 % below the period before (2,000)');
    expect(m.text).toContain('  Period: Mon 23 Nov 2026 01:00 – Tue 24 Nov 01:00 (Europe/Berlin)');
    expect(m.text).toContain('  Judged on data 9 h old: late data may still change it.');
    expect(m.text).toContain('* RESOLVED: Example Desktop · “File / Export” events');
    expect(m.text).toContain('  Now 850 “File / Export” events, ▲ 87 % vs the week before (455)');
    expect(m.text).toContain(`  Full report: ${REPORT}`);
    expect(m.text).not.toContain('javascript:');
    expect(m.text).not.toContain('http://');

    const images = m.attachments ?? [];
    expect(images).toHaveLength(5);
    for (const img of images) {
      expect(img.contentType).toBe('image/png');
      expect(m.html).toContain(`src="cid:${img.cid}"`);
      const png = img.content as Uint8Array;
      const decoded = decodePng(png);
      expect([decoded.width, decoded.height]).toEqual([1104, 440]);
      expect(isBlank(png)).toBe(false);
    }
    expect(new Set(images.map((i) => i.cid)).size).toBe(5);
    expect(m.html).toContain(`href="${REPORT}"`);
    expect(m.html).not.toContain('javascript:');
    expect(Buffer.byteLength(m.html)).toBeLessThan(60_000);
  });

  it('escapes hostile product names and segments in the HTML and keeps the subject on one short line', async () => {
    const m = await email(hostile());
    expect(m.html).not.toMatch(/<script/i);
    expect(m.html).toContain('&lt;script&gt;alert(&quot;product&quot;)&lt;/script&gt;');
    expect(m.html).toContain('&lt;!channel&gt;');
    expect(m.html).not.toContain('\u202E');
    expect(m.subject).not.toMatch(/[\r\n\u202E]/);
    expect(m.subject.length).toBeLessThanOrEqual(180);
    expect(m.text).not.toContain(LONG_RTL);
    expect(Buffer.byteLength(m.html)).toBeLessThan(100_000);
    for (const img of m.attachments ?? []) expect(isBlank(img.content as Uint8Array)).toBe(false);
  });
});

describe('the run’s evidence, named by every message', () => {
  const evidence = EVIDENCE;
  it('under the email’s footer (HTML and text), in the post’s facts and in the webhook’s data', async () => {
    const m = await email(sample(), evidence);
    expect(m.text).toMatch(
      new RegExp(`\\n--\\n.*\\nEvidence \\(the answers and figures judged\\): ${evidence.uri}\\n$`),
    );
    const footer = m.html.indexOf('A rule’s owner can change who gets them');
    expect(footer).toBeGreaterThan(0);
    expect(m.html.indexOf(evidence.uri)).toBeGreaterThan(footer);
    const msg = usageAlertChannelMessage(sample(), { now: NOW, evidence });
    expect(msg.facts.at(-1)).toEqual({ label: 'Evidence', value: evidence.uri });
    const hook = JSON.parse(renderChannelRequest('webhook', msg, opts()).body) as { data: { evidence: unknown } };
    expect(hook.data.evidence).toEqual(evidence);
    expect(JSON.stringify(renderChannelRequest('slack', msg, opts()).body)).toContain(evidence.uri);
  });
  it('is left out of a message given none', async () => {
    const m = await email(sample());
    expect(m.text).not.toContain('Evidence (');
    expect(m.html).not.toContain('class="evidence"');
    expect(usageAlertChannelMessage(sample(), { now: NOW }).data).not.toHaveProperty('evidence');
  });
});

const opts = () => ({
  eventId: 'msg_usage_evidence',
  signingSecret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
  now: NOW,
});

describe('the usage alert channel message', () => {
  const opts = {
    eventId: 'msg_usage_test',
    signingSecret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
    now: NOW,
  };

  it('carries every change with its figures and evidence as data; shows the first few', () => {
    const items = [...sample(), ...Array.from({ length: 4 }, (_, i) => segmentThreshold(`6.${i}`))];
    const msg = usageAlertChannelMessage(items, { now: NOW, chartUrl: 'https://reports.example.com/c/1.png' });
    expect(msg.event).toBe('usage.alerts');
    expect(msg.summary).toBe('8 usage alerts firing, 1 resolved: Example Server new clients +135 %');
    expect(msg.sections).toHaveLength(CHANNEL_ALERTS);
    expect(msg.sections[0]!.title).toBe('Firing: Example Server · new clients');
    expect(msg.moreSections).toBe('and 4 more alerts');
    expect(msg.link).toEqual({ label: 'Full report', url: REPORT });
    expect(msg.image?.url).toBe('https://reports.example.com/c/1.png');
    expect(msg.facts).toEqual([
      { label: 'Started firing', value: '8' },
      { label: 'Resolved', value: '1' },
    ]);
    const changes = msg.data.changes as Record<string, unknown>[];
    expect(changes).toHaveLength(9);
    const d = changes.find((c) => c.ruleId === 'desktop-active-drop')!;
    expect(d).toMatchObject({
      productId: '12345678901',
      productName: 'Example Desktop',
      segment: null,
      period: DAY,
      periodUnit: 'day',
      timeZone: 'Europe/Berlin',
      state: 'firing',
      value: 1480,
      expected: { low: 1500, high: null },
      reference: 2000,
      reason: '26 % below the period before (2,000)',
      dataAgeHours: 9,
    });
    const evidence = d.evidence as { period: string; value: number }[];
    expect(evidence).toHaveLength(16);
    expect(evidence.at(-1)).toEqual({ period: DAY, value: 1480, volume: 1480 });
    expect(evidence.every((p) => typeof p.value === 'number')).toBe(true);
  });

  it('drops a chart or report link that is not https', () => {
    const msg = usageAlertChannelMessage([segmentThreshold(), share()], { now: NOW, chartUrl: 'javascript:alert(1)' });
    expect(msg.link).toBeUndefined();
    expect(msg.image).toBeUndefined();
  });

  it.each([
    ['a realistic batch', sample],
    ['hostile names', hostile],
    ['hostile names among many', () => [...hostile(), ...hostile(), ...sample()]],
    ['every hostile string as product and segment', () => HOSTILE.map((h) => segmentThreshold(h, h))],
  ])('renders within Slack’s and Teams’ limits, and as a signed webhook event: %s', (_name, items) => {
    const msg = usageAlertChannelMessage(items(), { now: NOW });
    const slack = JSON.parse(renderChannelRequest('slack', msg, opts).body) as SlackPayload;
    expectSlackWithinLimits(slack);
    expect(JSON.stringify(slack)).not.toContain('<!channel>');
    expect(JSON.stringify(slack)).not.toContain('<script>');
    expectTeamsValid(JSON.parse(renderChannelRequest('teams', msg, opts).body) as TeamsPayload);
    const hook = JSON.parse(renderChannelRequest('webhook', msg, opts).body) as { type: string; data: unknown };
    expect(hook.type).toBe('usage.alerts');
    expect(hook.data).toEqual(JSON.parse(JSON.stringify(msg.data)));
  });
});

interface PageGlobals {
  document: {
    documentElement: { clientWidth: number; scrollWidth: number };
    images: Iterable<{ complete: boolean; naturalWidth: number }>;
    querySelectorAll(selector: string): { length: number };
    body: { innerText: string };
    title: string;
  };
}

/** The HTML as a mail client shows it: each `cid:` replaced by its attached PNG. */
const withImages = (html: string, attachments: { cid?: string; content: unknown }[]) =>
  attachments.reduce(
    (out, a) =>
      out.replaceAll(
        `cid:${a.cid}`,
        `data:image/png;base64,${Buffer.from(a.content as Uint8Array).toString('base64')}`,
      ),
    html,
  );

describe('the usage alert email in Chromium', () => {
  it.each([375, 800])(
    'fits %i px with every chart loaded; hostile text stays text; screenshot saved',
    async (width) => {
      const m = await email([...sample(), ...hostile()], EVIDENCE);
      const { page, dialogs } = await openEmail(browser, withImages(m.html, m.attachments ?? []), width);
      const dom = await page.evaluate(() => {
        const { document } = globalThis as unknown as PageGlobals;
        const images = [...document.images];
        return {
          scrollWidth: document.documentElement.scrollWidth,
          scripts: document.querySelectorAll('script').length,
          images: images.length,
          loaded: images.filter((i) => i.complete && i.naturalWidth === 1104).length,
          text: document.body.innerText,
          title: document.title,
        };
      });
      await page.screenshot({ path: join(ARTIFACTS, `usage-alert-${width}.png`), fullPage: true });
      await page.close();
      expect(dom.scrollWidth).toBeLessThanOrEqual(width);
      expect(dialogs).toEqual([]);
      expect(dom.scripts).toBe(0);
      expect(dom.images).toBe(8);
      expect(dom.loaded).toBe(8);
      expect(dom.text).toContain('<script>alert("product")</script>');
      expect(dom.text).toContain('Judged on data 9 h old: late data may still change it.');
      expect(dom.title).toBe('Usage alerts · Tue 24 Nov 2026');
      // The evidence's long URI wraps under the footer rather than widening the page.
      expect(dom.text.replace(/\s+/g, '')).toContain(EVIDENCE.uri);
    },
  );

  it('fits 375 px in dark mode; screenshot saved', async () => {
    const m = await email([drop(), resolved()]);
    const { page } = await openEmail(browser, withImages(m.html, m.attachments ?? []), 375, 'dark');
    const scrollWidth = await page.evaluate(
      () => (globalThis as unknown as PageGlobals).document.documentElement.scrollWidth,
    );
    await page.screenshot({ path: join(ARTIFACTS, 'usage-alert-375-dark.png'), fullPage: true });
    await page.close();
    expect(scrollWidth).toBeLessThanOrEqual(375);
  });

  it('writes the charts for a person to look at', async () => {
    const m = await email(sample());
    for (const [i, a] of (m.attachments ?? []).entries())
      await writeFile(join(ARTIFACTS, `usage-alert-chart-${i + 1}.png`), a.content as Uint8Array);
  });
});
