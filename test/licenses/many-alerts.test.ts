/**
 * A registry with thousands of alerts for one recipient, over real peers: the run spools them on disk and handles
 * them ALERT_BATCH at a time (notify-recipient.ts), so these tests check what must hold across batches: one email,
 * every alert in the CSV, grouped most urgent first, the email showing the most urgent of all batches, the counts
 * over all batches, the scratch folder gone after the run, and a fault in a later batch giving back the claims of
 * the earlier ones.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_BATCH } from '../../src/licenses/alerts/notify-recipient.ts';
import { urgencyOf } from '../../src/licenses/alerts/stage.ts';
import { csvRecords, type LocalLicenses, startLocalLicenses } from '../helpers/local-licenses.ts';

let env: LocalLicenses;
let product: string;
let scratchParent: string;

beforeAll(async () => {
  env = await startLocalLicenses({ registryKeys: 20_000 });
  product = env.peers.emulator.products[0]!.productId;
  scratchParent = await mkdtemp(join(tmpdir(), 'pulse-scratch-'));
}, 60_000);
afterAll(async () => {
  await env?.close();
  await rm(scratchParent, { recursive: true, force: true });
});

const owner = (address: string) => ({ owner: { address, timeZone: 'UTC' }, maxKeysInEmail: 40 });
const run = (address: string, opts: { dryRun?: boolean } = {}) =>
  env.run(owner(address), { productIds: [product], scratchDir: scratchParent, ...opts });

describe('thousands of alerts for one recipient', () => {
  it('one email: the most urgent of all batches shown, every alert in the CSV by urgency; a rerun sends none', async () => {
    const dry = await run('many@example.com', { dryRun: true });
    const result = await run('many@example.com');
    expect(result.errors).toEqual([]);
    expect(result.counts.alertsSent).toBeGreaterThan(2 * ALERT_BATCH);
    expect(result.counts).toMatchObject({ emails: 1, alertsSent: dry.counts.alertsSent });
    expect(await readdir(scratchParent)).toEqual([]);

    const [mail, ...more] = await env.licenseMails('many@example.com');
    expect(more).toEqual([]);
    const rows = csvRecords(mail!.csv!);
    expect(rows).toHaveLength(result.counts.alertsSent);
    const stageCounts = new Map<string, number>();
    for (const r of rows) stageCounts.set(r.stage!, (stageCounts.get(r.stage!) ?? 0) + 1);
    for (const [stage, n] of stageCounts) expect(result.counts[`stage:${stage}`], stage).toBe(n);
    // Grouped by stage, most urgent first (then by label within a stage).
    const urgencies = rows.map((r) => urgencyOf(r.stage as never));
    expect(urgencies).toEqual([...urgencies].sort((a, b) => a - b));
    expect(mail!.text).toContain(`Showing the 40 most urgent of ${rows.length} alerts`);
    // The 40 shown are the most urgent of all: every shown stage is at least as urgent as any stage left out.
    const shownKeys = rows.filter((r) => mail!.text.includes(r.licenseKey!));
    expect(shownKeys.length).toBeGreaterThanOrEqual(40);
    const cut = urgencyOf(rows[39]!.stage as never);
    for (const r of rows.slice(0, 40)) expect(urgencyOf(r.stage as never)).toBeLessThanOrEqual(cut);
    for (const r of rows.filter((r) => urgencyOf(r.stage as never) < cut)) expect(mail!.text).toContain(r.licenseKey);

    const rerun = await run('many@example.com');
    expect(rerun.counts).toMatchObject({ emails: 0, alertsSent: 0, alertsSkippedAlreadySent: rows.length });
    expect(await env.licenseMails('many@example.com')).toHaveLength(1);
  }, 90_000); // hundreds of alerts through real peers: about 25 s on a loaded 2-CPU machine

  it('a usage call failing in a later batch gives back every claim: nothing sent, the next run sends all', async () => {
    const dry = await run('fault@example.com', { dryRun: true });
    // Two usage calls per 500 keys: the first batch's pass, the second batch's first call fails.
    env.peers.emulator.faults.set({
      rules: [{ operations: ['dateRangeReport'], serverErrorRate: 1, after: 2 * (ALERT_BATCH / 500), times: 1 }],
    });
    try {
      const failed = await run('fault@example.com');
      expect(failed.ok).toBe(false);
      expect(failed.errors).toEqual([expect.stringMatching(/^license alerts to fault@example\.com: .*503/)]);
      expect(failed.counts).toMatchObject({ emails: 0, alertsSent: 0 });
    } finally {
      env.peers.emulator.faults.clear();
    }
    expect(await env.licenseMails('fault@example.com')).toEqual([]);
    expect(await readdir(scratchParent)).toEqual([]);

    const next = await run('fault@example.com');
    expect(next.errors).toEqual([]);
    expect(next.counts).toMatchObject({ emails: 1, alertsSent: dry.counts.alertsSent, alertsSkippedAlreadySent: 0 });
  }, 90_000); // three runs of hundreds of alerts: about 25 s on a loaded 2-CPU machine
});
