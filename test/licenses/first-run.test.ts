/**
 * The first run of license alerts (`licenses.firstRun`) over real peers (emulator, dynalite, SMTP sink, a scripted
 * SMTP server for the faults): with "summary" each recipient gets one summary email listing its keys and their
 * stages, the stages are recorded, a second run sends nothing and a stage change afterwards alerts once; the dry run
 * counts exactly what the run then sends, per recipient and stage; "send-all" sends every stage due as alerts and
 * records nothing; a summary that certainly did not go out leaves the first run open, one whose outcome is unknown
 * closes it and is never sent again; each recipient's first run follows its own send time; every count listing comes
 * in one order. Each test alerts its own addresses, so the ledger keys of one test never meet another's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { smtpMailer } from '../../src/adapters/mail/nodemailer-mailer.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import { addDays } from '../../src/core/calendar.ts';
import { licenseFirstRunLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { type LicenseAlertResult, runLicenseAlerts } from '../../src/licenses/alerts/run-license-alerts.ts';
import { lifecycleRank, type Stage } from '../../src/licenses/alerts/stage.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import {
  csvRecords,
  LICENSE_CLOCK,
  LICENSE_TODAY,
  type LocalLicenses,
  startLocalLicenses,
} from '../helpers/local-licenses.ts';
import { startScriptedSmtp } from '../helpers/scripted-smtp.ts';

let env: LocalLicenses;
let product: string;

beforeAll(async () => {
  env = await startLocalLicenses();
  product = env.peers.emulator.products[0]!.productId;
}, 60_000);
afterAll(() => env?.close());

/** The owner gets the product's non-trial keys, `trial` its trials; one key shown, so every alert is in the CSV. */
const routed = (owner: string, trial: string, over: Record<string, unknown> = {}) => ({
  owner: { address: owner, timeZone: 'UTC' },
  routing: [{ licenseTypes: ['trial'], recipients: [{ address: trial, timeZone: 'Asia/Tokyo' }] }],
  maxKeysInEmail: 1,
  ...over,
});

const firstRunRecord = (address: string) => env.ports().ledger.get(licenseFirstRunLedgerKey(product, address));

/** Alerts per stage in the CSV of each email `address` received. */
async function sentStages(address: string) {
  return (await env.licenseMails(address)).map((m) => {
    const stages: Record<string, number> = {};
    for (const row of csvRecords(m.csv!)) stages[row.stage!] = (stages[row.stage!] ?? 0) + 1;
    return {
      summary: m.parsed.headers.get('x-pulse-license-summary') !== undefined,
      subject: m.parsed.subject,
      stages,
    };
  });
}

const stageKeys = (r: LicenseAlertResult) => Object.keys(r.counts).filter((k) => k.startsWith('stage:'));

describe('licenses.firstRun "summary" (the default)', () => {
  it('one summary per recipient, exactly as the dry run counted; stages recorded; then only stage changes', async () => {
    const [owner, trial] = ['summary-owner@example.com', 'summary-trial@example.com'];
    const licenses = routed(owner, trial);
    const dry = await env.run(licenses, { dryRun: true, productIds: [product] });
    expect(dry.ok).toBe(true);
    expect(dry.counts).toMatchObject({ emails: 0, summaries: 2 });
    expect(await env.licenseMails(owner)).toEqual([]);
    expect(await firstRunRecord(owner)).toBeUndefined();

    const first = await env.run(licenses, { productIds: [product] });
    expect(first.errors).toEqual([]);
    // The same emails, recipients and alerts per stage as the dry run said, in the same order.
    expect(first.recipients).toEqual(dry.recipients);
    expect(first.recipients.map((r) => [r.address, r.email])).toEqual(
      [
        [owner, 'summary'],
        [trial, 'summary'],
      ].sort((a, b) => {
        const n = (x: string[]) => dry.recipients.find((r) => r.address === x[0])!.alerts;
        return n(b) - n(a);
      }),
    );
    expect(first.counts).toMatchObject({ emails: 2, summaries: 2, alertsInSummaries: dry.counts.alertsSent });
    expect(first.counts.alertsSent).toBe(dry.counts.alertsSent);
    for (const r of first.recipients) {
      const [mail, ...more] = await sentStages(r.address);
      expect(more).toEqual([]);
      expect(mail!.summary).toBe(true);
      expect(mail!.subject).toMatch(/^License alerts start: \d+ keys? already in an alert stage/);
      expect(mail!.stages).toEqual(r.stages);
    }
    const [ownerMail] = await env.licenseMails(owner);
    expect(ownerMail!.text).toContain('What happens next: You get an email only when a key reaches a new stage');
    expect(await firstRunRecord(owner)).toMatchObject({ state: 'done' });
    expect(await firstRunRecord(trial)).toMatchObject({ state: 'done' });

    const second = await env.run(licenses, { productIds: [product] });
    expect(second.counts).toMatchObject({ emails: 0, summaries: 0, alertsSent: 0 });
    expect(second.counts.alertsSkippedAlreadySent).toBe(first.counts.alertsSent);

    // A key of the owner's, in the 30-day stage, now expires tomorrow: one alert, as an alert email.
    const ownerRows = csvRecords(ownerMail!.csv!);
    const moved = ownerRows.find(
      (row) => row.stage === 'before-30' && !ownerRows.some((o) => o !== row && o.licenseKey === row.licenseKey),
    )!;
    const client = reportingClientFor(env.config.service, () => env.peers.emulator.credentials, env.ports().logger);
    const update = await client.updateLicenseKeys(product, {
      keyUpdates: [{ licenseKey: moved.licenseKey!, expiryDate: addDays(LICENSE_TODAY, 1) }],
    });
    expect(update.view?.failed).toEqual([]);
    const third = await env.run(licenses, { productIds: [product] });
    expect(third.counts).toMatchObject({ emails: 1, summaries: 0, alertsSent: 1, 'stage:before-1': 1 });
    expect(third.recipients).toEqual([{ address: owner, email: 'alerts', stages: { 'before-1': 1 }, alerts: 1 }]);
    const [, alertMail] = await env.licenseMails(owner);
    expect(alertMail!.parsed.headers.get('x-pulse-license-summary')).toBeUndefined();
    expect(alertMail!.parsed.subject).toMatch(/^License alerts: 1 key needs action/);
    expect(alertMail!.text).toContain(moved.licenseKey);
    expect((await env.run(licenses, { productIds: [product] })).counts).toMatchObject({ emails: 0, alertsSent: 0 });
  });

  it('lists every count in one order: stages by lifecycle, labels alphabetical, recipients by alerts', async () => {
    const result = await env.run(routed('order-owner@example.com', 'order-trial@example.com'), {
      dryRun: true,
      productIds: [product],
    });
    const stages = stageKeys(result);
    expect(stages.length).toBeGreaterThan(5);
    const rank = (k: string) => lifecycleRank(k.slice('stage:'.length) as Stage);
    expect(stages).toEqual([...stages].sort((a, b) => rank(a) - rank(b)));
    expect(stages[0]).toBe('stage:before-60');
    expect(stages.at(-1)).toBe('stage:over-quota');
    const labels = Object.keys(result.counts).filter((k) => k.startsWith('label:'));
    expect(labels).toEqual([...labels].sort());
    // The stage and label counts come after every fixed count.
    const keys = Object.keys(result.counts);
    expect(keys.slice(keys.length - stages.length - labels.length)).toEqual([...stages, ...labels]);
    for (const r of result.recipients) {
      const ranks = Object.keys(r.stages).map((s) => lifecycleRank(s as Stage));
      expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    }
    const totals = result.recipients.map((r) => r.alerts);
    expect(totals).toEqual([...totals].sort((a, b) => b - a));
    // The run's lines: stages in the same order.
    for (const line of result.outputs) {
      const listed = [...line.matchAll(/([a-z0-9-]+) ×\d+/g)].map((m) => lifecycleRank(m[1] as Stage));
      expect(listed).toEqual([...listed].sort((a, b) => a - b));
    }
  });

  it("follows each recipient's send time: the one not yet due gets its summary in a later run", async () => {
    const [owner, trial] = ['turn-owner@example.com', 'turn-trial@example.com'];
    const licenses = routed(owner, trial, { sendTime: '09:00' });
    // 00:30 UTC: 09:30 in Tokyo (due), 00:30 for the owner (not yet).
    const early = await env.run(licenses, {
      scheduled: true,
      productIds: [product],
      clock: fixedClock(`${LICENSE_TODAY}T00:30:00Z`),
    });
    expect(early.recipients.map((r) => [r.address, r.email])).toEqual([[trial, 'summary']]);
    expect(await firstRunRecord(trial)).toMatchObject({ state: 'done' });
    expect(await firstRunRecord(owner)).toBeUndefined();
    const late = await env.run(licenses, {
      scheduled: true,
      productIds: [product],
      clock: fixedClock(`${LICENSE_TODAY}T10:00:00Z`),
    });
    expect(late.recipients.map((r) => [r.address, r.email])).toEqual([[owner, 'summary']]);
    expect(await sentStages(trial)).toHaveLength(1);
    expect(await sentStages(owner)).toEqual([expect.objectContaining({ summary: true })]);
  });
});

it('licenses.firstRun "send-all": the first run sends every stage due as alerts and records no first run', async () => {
  const [owner, trial] = ['all-owner@example.com', 'all-trial@example.com'];
  const licenses = routed(owner, trial, { firstRun: 'send-all' });
  const dry = await env.run(licenses, { dryRun: true, productIds: [product] });
  const first = await env.run(licenses, { productIds: [product] });
  expect(first.recipients).toEqual(dry.recipients);
  expect(first.recipients.every((r) => r.email === 'alerts')).toBe(true);
  expect(first.counts).toMatchObject({ emails: 2, summaries: 0, alertsInSummaries: 0 });
  // The same alerts as a summary run finds: only the email differs.
  const summary = await env.run(routed('all-owner-2@example.com', 'all-trial-2@example.com'), {
    dryRun: true,
    productIds: [product],
  });
  expect(summary.counts.alertsSent).toBe(first.counts.alertsSent);
  for (const r of first.recipients) {
    const [mail] = await sentStages(r.address);
    expect(mail).toMatchObject({ summary: false, stages: r.stages });
    expect(mail!.subject).toMatch(/^License alerts: \d+ keys? needs? action/);
  }
  expect(await firstRunRecord(owner)).toBeUndefined();
  expect((await env.run(licenses, { productIds: [product] })).counts).toMatchObject({ emails: 0, alertsSent: 0 });
});

describe('a summary that did not go out, or may have', () => {
  const licenses = (address: string) => ({ owner: { address, timeZone: 'UTC' }, maxKeysInEmail: 1 });
  async function runOn(address: string, script: Parameters<typeof startScriptedSmtp>[0]) {
    const smtp = await startScriptedSmtp(script);
    try {
      const mailer = smtpMailer({ host: smtp.host, port: smtp.port, secure: false });
      const ports = { ...env.ports(LICENSE_CLOCK), mailer };
      return await runLicenseAlerts(env.configWith(licenses(address)), ports, { productIds: [product] });
    } finally {
      await smtp.close();
    }
  }

  it('refused: the first run stays open and the next run sends the summary', async () => {
    const address = 'summary-refused@example.com';
    const refused = await runOn(address, { rcpt: '550 5.1.1 no such user' });
    expect(refused.counts).toMatchObject({ emails: 0, failed: 1 });
    expect(await firstRunRecord(address)).toBeUndefined();
    const next = await env.run(licenses(address), { productIds: [product] });
    expect(next.counts).toMatchObject({ emails: 1, summaries: 1, alertsSkippedAlreadySent: 0 });
    expect(await firstRunRecord(address)).toMatchObject({ state: 'done' });
  });

  it('unknown: its stages stay unknown and the first run is over; no run sends it again, nor alerts it', async () => {
    const address = 'summary-dropped@example.com';
    const dropped = await runOn(address, { afterData: 'drop' });
    expect(dropped.counts).toMatchObject({ emails: 0, unknown: 1 });
    expect(await firstRunRecord(address)).toMatchObject({ state: 'done' });
    const next = await env.run(licenses(address), { productIds: [product] });
    expect(next.ok).toBe(false);
    expect(next.counts).toMatchObject({ emails: 0, summaries: 0, alertsSent: 0 });
    expect(next.counts.alertsUnknown).toBeGreaterThan(0);
    expect(await env.licenseMails(address)).toEqual([]);
  });
});
