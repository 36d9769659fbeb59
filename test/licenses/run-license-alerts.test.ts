/**
 * License alerts over real peers (emulator, dynalite, SMTP sink): what the emulator's planted keys alert, usage figures
 * checked against direct calls, routing, exactly once across reruns and two concurrent runs, a renewal starting the
 * stages again, a trial ending and hostile key text (inserted with the update operation updateLicenseKeys), the CSV
 * beyond maxKeysInEmail, the dry run and the scheduled send time. Each test alerts its own recipient address, so the
 * ledger keys of one test never meet another's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoDbLedger, dynamoDocumentClientFor } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import { addDays } from '../../src/core/calendar.ts';
import { MAX_HTML_BYTES } from '../../src/licenses/alerts/notify-recipient.ts';
import { runLicenseAlerts } from '../../src/licenses/alerts/run-license-alerts.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import { signedIn } from '../helpers/emulator-session.ts';
import { csvRecords, LICENSE_TODAY, type LocalLicenses, startLocalLicenses } from '../helpers/local-licenses.ts';

let env: LocalLicenses;
let product: string;
let product2: string;

beforeAll(async () => {
  env = await startLocalLicenses();
  product = env.peers.emulator.products[0]!.productId;
  product2 = env.peers.emulator.products[1]!.productId;
}, 60_000);
afterAll(() => env?.close());

const owner = (address: string, over: Record<string, unknown> = {}) => ({
  owner: { address, timeZone: 'UTC' },
  ...over,
});

const client = () => reportingClientFor(env.config.service, () => env.peers.emulator.credentials, env.ports().logger);

const keysWithExpiry = async (productId: string, date: string) => {
  const res = await client().searchLicenseKeys(productId, {
    filters: { expiryDate: { type: 'date', value: date } },
    paging: { limit: 1000 },
  });
  return res.result.map((r) => r.licenseKey!);
};

describe('the planted registry', () => {
  it('alerts every planted stage in one email per recipient, with usage labels; a rerun sends none', async () => {
    const first = await env.run(owner('planted@example.com'), { productIds: [product] });
    expect(first.errors).toEqual([]);
    expect(first.ok).toBe(true);
    expect(first.counts).toMatchObject({ emails: 1, failed: 0, alertsSkippedAlreadySent: 0 });
    expect(first.counts.keysScanned).toBeGreaterThan(50);
    for (const stage of ['before-1', 'before-7', 'before-14', 'before-30', 'before-60', 'after-1', 'over-quota']) {
      expect(first.counts[`stage:${stage}`], stage).toBeGreaterThan(0);
    }
    expect(first.counts['stage:blocked-in-use']).toBeGreaterThan(0);
    expect(first.counts['label:revenueLeak']).toBeGreaterThan(0);

    const [mail, ...more] = await env.licenseMails('planted@example.com');
    expect(more).toEqual([]);
    expect(Buffer.byteLength(mail!.html)).toBeLessThan(MAX_HTML_BYTES);
    expect(mail!.text).toContain('Expires within 7 days');
    for (const k of await keysWithExpiry(product, addDays(LICENSE_TODAY, 1)))
      expect(mail!.csvText ?? mail!.text).toContain(k);
    // More alerts than maxKeysInEmail (50): the email shows the most urgent, the CSV holds all.
    expect(first.counts.alertsSent).toBeGreaterThan(50);
    const rows = csvRecords(mail!.csv!);
    expect(rows).toHaveLength(first.counts.alertsSent);
    expect(mail!.html).toContain(`Showing the 50 most urgent of ${first.counts.alertsSent} alerts`);
    expect(rows[0]!.stage).toBe('blocked-in-use');

    const rerun = await env.run(owner('planted@example.com'), { productIds: [product] });
    expect(rerun.counts).toMatchObject({ emails: 0, alertsSent: 0, alertsSkippedAlreadySent: first.counts.alertsSent });
    expect(await env.licenseMails('planted@example.com')).toHaveLength(1);
  });

  it('takes clients and trends from the service: the same figures as direct calls, labels by the thresholds', async () => {
    const thresholds = { heavyClients: 2, dormantClients: 0, windowDays: 30 };
    const result = await env.run(owner('usage@example.com', { usage: thresholds }), { productIds: [product] });
    expect(result.ok).toBe(true);
    const rows = csvRecords((await env.licenseMails('usage@example.com'))[0]!.csv!);
    const wire = await signedIn(env.peers.emulator);
    const active = async (key: string, startDate: string, stopDate: string) => {
      const r = await wire.post('/v3/reporting/generic/dateRange', {
        startDate,
        stopDate,
        clientStatus: ['active'],
        globalFilters: { licenseKey: { type: 'string', value: key } },
      });
      return r.json.result.totals.active as number;
    };
    const registry = await client().searchLicenseKeys(product, { paging: { limit: 1000 } });
    const byKey = new Map(registry.result.map((r) => [r.licenseKey!, r]));
    let heavy = 0;
    for (const row of rows.slice(0, 25)) {
      expect(Number(row.clientsLastWindow)).toBe(
        await active(row.licenseKey!, addDays(LICENSE_TODAY, -29), LICENSE_TODAY),
      );
      expect(Number(row.clientsPreviousWindow)).toBe(
        await active(row.licenseKey!, addDays(LICENSE_TODAY, -59), addDays(LICENSE_TODAY, -30)),
      );
      const record = byKey.get(row.licenseKey!)!;
      expect(Number(row.clientCount)).toBe(record.clientCount);
      expect(row.lastSeenDate).toBe(record.lastSeenDate ?? '');
      const expiring = row.stage === 'expiry-day' || row.stage!.startsWith('before-');
      const last = Number(row.clientsLastWindow);
      expect(row.labels!.includes('renewalPriority')).toBe(expiring && last >= 2);
      expect(row.labels!.includes('atRisk')).toBe(expiring && last <= 0);
      if (row.labels!.includes('renewalPriority')) heavy++;
    }
    expect(rows.some((r) => r.labels!.includes('revenueLeak'))).toBe(true);
    expect(heavy + rows.filter((r) => r.labels!.includes('atRisk')).length).toBeGreaterThan(0);
  });
});

it('routes by first matching rule, else to the owner, counting days in each recipient zone', async () => {
  const licenses = owner('route-owner@example.com', {
    routing: [
      { licenseTypes: ['trial'], recipients: [{ address: 'route-trial@example.com', timeZone: 'Asia/Tokyo' }] },
      { productIds: [product2], recipients: [{ address: 'route-p2@example.com', timeZone: 'America/New_York' }] },
    ],
    maxKeysInEmail: 1,
  });
  const result = await env.run(licenses);
  expect(result.ok).toBe(true);
  const rowsOf = async (to: string) => csvRecords((await env.licenseMails(to))[0]!.csv!);
  const trial = await rowsOf('route-trial@example.com');
  const p2 = await rowsOf('route-p2@example.com');
  const rest = await rowsOf('route-owner@example.com');
  expect(trial.every((r) => r.licenseType === 'trial')).toBe(true);
  expect(p2.every((r) => r.product === product2 && r.licenseType !== 'trial')).toBe(true);
  expect(rest.filter((r) => r.product === product2 || r.licenseType === 'trial')).toEqual([]);
  expect(trial.some((r) => r.labels!.includes('conversionCandidate'))).toBe(true);
  // Tokyo is already 24 Nov at 10:00 UTC... no: 19:00 JST, still the 23rd; New York is 05:00 on the 23rd.
  const tokyoDays = trial.filter((r) => r.expiryDate === addDays(LICENSE_TODAY, 1)).map((r) => r.daysLeft);
  expect(tokyoDays.every((d) => d === '1')).toBe(true);
});

describe('exactly once', () => {
  it('two concurrent runs on one ledger table send each alert once', async () => {
    const licenses = owner('race@example.com', { maxKeysInEmail: 1 });
    const planned = await env.run(licenses, { dryRun: true });
    const doc = dynamoDocumentClientFor({ endpoint: env.peers.dynamodbEndpoint });
    try {
      const other = { ...env.ports(), ledger: new DynamoDbLedger({ client: doc, tableName: env.peers.tableName }) };
      const results = await Promise.all([
        env.run(licenses),
        runLicenseAlerts(env.configWith(licenses), { ...other, clock: fixedClock(`${LICENSE_TODAY}T10:00:00Z`) }),
      ]);
      expect(results.every((r) => r.ok)).toBe(true);
      const total = (name: string) => results.reduce((n, r) => n + (r.counts[name] ?? 0), 0);
      expect(total('alertsSent')).toBe(planned.counts.alertsSent);
      expect(total('alertsSkippedAlreadySent') + total('alertsInProgressElsewhere')).toBe(planned.counts.alertsSent);
      const sent = (await env.licenseMails('race@example.com')).flatMap((m) =>
        csvRecords(m.csv!).map((r) => `${r.product} ${r.licenseKey} ${r.stage}`),
      );
      expect(sent).toHaveLength(planned.counts.alertsSent);
      expect(new Set(sent).size).toBe(sent.length);
    } finally {
      doc.destroy();
    }
  });

  it('a renewed key starts over; a new trial and hostile key text are alerted, escaped and neutralized', async () => {
    const licenses = owner('renew@example.com', { maxKeysInEmail: 3, trialTypes: ['trial', '<b>trial</b>'] });
    const first = await env.run(licenses, { productIds: [product] });
    expect(first.counts.emails).toBe(1);
    const [renewed] = await keysWithExpiry(product, addDays(LICENSE_TODAY, 7));
    const hostileKey = `=cmd|' /C calc'!A0 <script>alert(1)</script> # ü😀`;
    const hostileType = '<b>trial</b>';
    const update = await client().updateLicenseKeys(product, {
      keyUpdates: [
        { licenseKey: renewed!, expiryDate: addDays(LICENSE_TODAY, 12) },
        { licenseKey: 'TRIAL-NEW-1', licenseType: 'trial', expiryDate: addDays(LICENSE_TODAY, 3) },
        { licenseKey: hostileKey, licenseType: hostileType, expiryDate: addDays(LICENSE_TODAY, 1) },
      ],
    });
    expect(update.view?.failed).toEqual([]);

    const second = await env.run(licenses, { productIds: [product] });
    expect(second.counts).toMatchObject({ emails: 1, alertsSent: 3 });
    expect(second.counts.alertsSkippedAlreadySent).toBe(first.counts.alertsSent - 1); // the renewed key's old stage
    const mail = (await env.licenseMails('renew@example.com'))[1]!;
    const rows = csvRecords(mail.csv ?? [['licenseKey']]);
    // Three alerts fit the email (maxKeysInEmail 3): no CSV needed; read the text part instead.
    expect(mail.csv).toBeUndefined();
    expect(mail.text).toContain(renewed!);
    expect(mail.text).toContain(`expires ${addDays(LICENSE_TODAY, 12)} (in 12 days)`);
    expect(mail.text).toContain('TRIAL-NEW-1');
    expect(mail.text).toContain('Conversion candidate');
    expect(mail.text).toContain(hostileKey);
    expect(rows).toEqual([]);
    // Escaped in the HTML: the markup is text, never elements.
    expect(mail.html).not.toContain('<script>alert(1)</script>');
    expect(mail.html).not.toContain('<b>trial</b>');
    expect(mail.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(mail.html).toContain('&lt;b&gt;trial&lt;/b&gt;');
  });

  // Reads the hostile key the test above inserted (tests in a file run in order).
  it('neutralizes formula cells in the CSV attachment', async () => {
    const result = await env.run(owner('csv@example.com', { maxKeysInEmail: 1 }), { productIds: [product] });
    expect(result.ok).toBe(true);
    const mail = (await env.licenseMails('csv@example.com'))[0]!;
    const row = csvRecords(mail.csv!).find((r) => r.licenseKey!.includes('<script>'));
    expect(row!.licenseKey).toBe(`'=cmd|' /C calc'!A0 <script>alert(1)</script> # ü😀`);
    expect(mail.csvText).not.toMatch(/(^|,)=cmd/m);
  });
});

it('a dry run tells who would get what and writes nothing', async () => {
  const before = env.peers.sink.messages().length;
  const result = await env.run(owner('dry@example.com'), { dryRun: true, productIds: [product] });
  expect(result.ok).toBe(true);
  expect(result.counts.emails).toBe(0);
  expect(result.counts.alertsSent).toBeGreaterThan(0);
  expect(result.outputs).toEqual([
    expect.stringMatching(/^would tell dry@example\.com \(summary\): \d+ alerts \(before-60 ×/),
  ]);
  expect(env.peers.sink.messages().length).toBe(before);
  const again = await env.run(owner('dry@example.com'), { dryRun: true, productIds: [product] });
  expect(again.counts.alertsSkippedAlreadySent).toBe(0);
});

it('scheduled: a recipient is told once the send time has passed in its zone', async () => {
  const licenses = owner('tokyo@example.com', { sendTime: '08:00' });
  (licenses.owner as { timeZone: string }).timeZone = 'Asia/Tokyo';
  // 07:30 and 08:30 in Tokyo on the emulator's today.
  const early = await env.run(licenses, {
    scheduled: true,
    productIds: [product],
    clock: fixedClock(`${addDays(LICENSE_TODAY, -1)}T22:30:00Z`),
  });
  expect(early.counts).toMatchObject({ emails: 0, alertsSent: 0 });
  const due = await env.run(licenses, {
    scheduled: true,
    productIds: [product],
    clock: fixedClock(`${addDays(LICENSE_TODAY, -1)}T23:30:00Z`),
  });
  expect(due.counts.emails).toBe(1);
});
