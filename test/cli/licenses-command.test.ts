/**
 * `pulse licenses` and `pulse start` through `main`, against in-process local peers and the bundled example config
 * (its `licenses` section routes by rule to recipients in Tokyo and New York, the rest to the owner in Berlin):
 * the emulator's planted keys alert on any date, with usage labels; a rerun sends none; a dry run writes nothing.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG } from '../../src/app/local-runtime.ts';
import { pulseMain } from '../helpers/pulse-main.ts';

let tmp: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-cli-licenses-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const pulse = pulseMain;

/** License alert emails in the outbox: recipient per message. */
async function licenseMails(workDir: string): Promise<string[]> {
  const dir = join(workDir, 'outbox');
  if (!existsSync(dir)) return [];
  const raws = await Promise.all(
    (await readdir(dir)).filter((f) => f.endsWith('.eml')).map((f) => readFile(join(dir, f), 'utf8')),
  );
  return raws
    .filter((raw) => /^X-Pulse-License-Alerts:/im.test(raw))
    .map((raw) => /^To: (.*)$/im.exec(raw)?.[1]?.trim() ?? '?')
    .sort();
}

describe('pulse licenses --local', () => {
  it('sends one email per recipient with usage labels and exits 0; a rerun sends none', async () => {
    const workDir = join(tmp, 'run');
    const first = await pulse('licenses', '--local', '--work-dir', workDir, '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const result = JSON.parse(first.stdout);
    expect(result).toMatchObject({ job: 'license-alerts', ok: true, errors: [] });
    expect(result.counts.emails).toBe(3);
    expect(result.counts.alertsSent).toBeGreaterThan(0);
    expect(result.counts['label:revenueLeak']).toBeGreaterThan(0);
    expect(result.counts['label:conversionCandidate']).toBeGreaterThan(0);
    const mails = await licenseMails(workDir);
    const example = JSON.parse(await readFile(EXAMPLE_CONFIG, 'utf8')).licenses;
    const configured = [example.owner, ...example.routing.flatMap((r: { recipients: unknown[] }) => r.recipients)];
    expect(mails).toEqual(configured.map((r: { address: string }) => r.address).sort());

    const again = await pulse('licenses', 'alerts', '--local', '--work-dir', workDir);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(
      /^license-alerts: ok \(keysScanned \d+, recordsUnreadable 0, alertsSent 0, alertsSkippedAlreadySent [1-9]/,
    );
    expect(await licenseMails(workDir)).toHaveLength(3);
  });

  it('--dry-run prints who would be told what and writes nothing', async () => {
    const workDir = join(tmp, 'dry');
    const r = await pulse('licenses', '--local', '--work-dir', workDir, '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^growth@example\.com\s+summary(\s+\d+)+$/m);
    expect(r.stdout).toMatch(/^license-ops@example\.com\s+summary(\s+\d+)+$/m);
    expect(await licenseMails(workDir)).toEqual([]);
    const real = JSON.parse((await pulse('licenses', '--local', '--work-dir', workDir, '--json')).stdout);
    expect(real.counts.alertsSkippedAlreadySent).toBe(0);
  });

  it('refuses an unknown product and an unknown subcommand as usage errors', async () => {
    const workDir = join(tmp, 'usage');
    const product = await pulse('licenses', '--local', '--work-dir', workDir, '--product', '42');
    expect(product.code).toBe(2);
    expect(product.stderr).toContain('--product 42: not in');
    expect(existsSync(workDir)).toBe(false);
    expect((await pulse('licenses', 'nope')).code).toBe(2);
  });

  it('refuses --confirm-unknown with --resend-unknown or --dry-run as usage errors', async () => {
    const workDir = join(tmp, 'unknown-flags');
    const both = await pulse('licenses', '--local', '--work-dir', workDir, '--resend-unknown', '--confirm-unknown');
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('--resend-unknown and --confirm-unknown exclude each other');
    const dry = await pulse('licenses', 'alerts', '--local', '--work-dir', workDir, '--dry-run', '--confirm-unknown');
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('--confirm-unknown does not go with --dry-run');
    expect(existsSync(workDir)).toBe(false);
  });
});

describe('pulse start', () => {
  it('runs the license alerts after the digest and the archive; a second start sends none', async () => {
    const workDir = join(tmp, 'start');
    const first = await pulse('start', '--work-dir', workDir, '--json');
    const lines = first.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.job)).toEqual(['digest', 'archive', 'license-alerts', 'license-report', 'usage-alerts']);
    expect(lines[2]).toMatchObject({ ok: true, counts: { emails: 3, posts: 3 } });
    expect(await licenseMails(workDir)).toHaveLength(3);

    const second = await pulse('start', '--work-dir', workDir, '--json');
    const again = second.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(again[2]).toMatchObject({ job: 'license-alerts', ok: true, counts: { emails: 0, alertsSent: 0 } });
    expect(again[2].counts.alertsSkippedAlreadySent).toBe(lines[2].counts.alertsSent);
    expect(await licenseMails(workDir)).toHaveLength(3);
    // The usage alerts too: each series judged from its state, nothing told again.
    expect(again[4]).toMatchObject({ job: 'usage-alerts', ok: true, counts: { emails: 0, firing: 0, resolved: 0 } });
  }, 180_000);
});
