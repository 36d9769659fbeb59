/**
 * `pulse licenses report` through `main`, against in-process local peers on the real date, with the example config's
 * report schedule in UTC (see digest-command.test.ts for why: the Berlin week ends before the service's UTC week).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastCompleteIsoWeek } from '../../src/core/calendar.ts';
import { jsonResult, pulseMain } from '../helpers/cli-main.ts';
import { writeExampleConfig } from '../helpers/pulse-process.ts';

let tmp: string;
let utcConfig: string;
let noReportConfig: string;
const week = lastCompleteIsoWeek(new Date(), 'UTC');
const pulse = (...argv: string[]) => pulseMain(argv);

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-cli-license-report-'));
  utcConfig = await writeExampleConfig(tmp, 'utc.config.json', (c) => {
    c.licenses.report.schedule.timeZone = 'UTC';
  });
  noReportConfig = await writeExampleConfig(tmp, 'no-report.config.json', (c) => {
    delete c.licenses.report;
  });
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const emlFiles = async (dir: string) =>
  existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.eml')).sort() : [];

describe('pulse licenses report --local', () => {
  it('sends the report, writes the registry snapshots, and sends nothing the second time', async () => {
    const workDir = join(tmp, 'run');
    const first = await pulse('licenses', 'report', '--local', '--work-dir', workDir, '--config', utcConfig, '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const result = jsonResult(first.stdout);
    // The owner's email and the example's three channels.
    expect(result).toMatchObject({ job: 'license-report', ok: true, counts: { sent: 4, snapshotsWritten: 2 } });
    expect(result.counts.keys).toBeGreaterThan(0);
    const date = week.stop;
    for (const product of ['12345678901', '9876543210']) {
      const key = `pulse/license-registry/${product}/${date}.csv.gz`;
      expect(result.outputs).toContain(key);
      expect(existsSync(join(workDir, 's3', 'pulse-archive', `${key}._S3rver_object`))).toBe(true);
    }
    const [eml] = await emlFiles(join(workDir, 'outbox'));
    const mail = await simpleParser(await readFile(join(workDir, 'outbox', eml!)));
    expect(mail.subject).toContain(`Weekly license registry report, ${week.isoWeek}`);
    expect(mail.to).toMatchObject({ text: 'license-ops@example.com' });

    const second = await pulse('licenses', 'report', '--local', '--work-dir', workDir, '--config', utcConfig, '--json');
    expect(second.code).toBe(0);
    expect(jsonResult(second.stdout)).toMatchObject({
      counts: { sent: 0, skippedAlreadySent: 4, snapshotsWritten: 0 },
    });
    expect(await emlFiles(join(workDir, 'outbox'))).toHaveLength(1);
  }, 60_000);

  it('--dry-run prints the report and writes nothing', async () => {
    const workDir = join(tmp, 'dry');
    const r = await pulse('licenses', 'report', '--local', '--work-dir', workDir, '--config', utcConfig, '--dry-run');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Keys by license type:');
    expect(r.stdout).toMatch(/license-report: ok \(sent 0, .*snapshotsWritten 0\)/);
    expect(await emlFiles(join(workDir, 'outbox'))).toEqual([]);
    expect(existsSync(join(workDir, 's3', 'pulse-archive', 'pulse', 'license-registry'))).toBe(false);
  }, 60_000);

  it('refuses a malformed --week and a config without a report before starting anything', async () => {
    const workDir = join(tmp, 'usage');
    const bad = await pulse('licenses', 'report', '--local', '--work-dir', workDir, '--week', '2026-46');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--week');
    const none = await pulse('licenses', 'report', '--local', '--work-dir', workDir, '--config', noReportConfig);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('licenses.report');
    expect(existsSync(workDir)).toBe(false);
  });

  it('--help lists its options', async () => {
    const r = await pulse('licenses', 'report', '--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('--week 2026-W46');
  });
});
