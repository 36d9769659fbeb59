/**
 * `pulse licenses report` through `main`, against in-process local peers on the real date, with the example config's
 * report schedule in UTC (see digest-command.test.ts for why: the Berlin week ends before the service's UTC week).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG } from '../../src/app/local-runtime.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { lastCompleteIsoWeek } from '../../src/jobs/digest/week.ts';

let tmp: string;
let utcConfig: string;
const week = lastCompleteIsoWeek(new Date(), 'UTC');

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-cli-license-report-'));
  const example = JSON.parse(await readFile(EXAMPLE_CONFIG, 'utf8'));
  delete example.$schema;
  example.licenses.report.schedule.timeZone = 'UTC';
  utcConfig = join(tmp, 'utc.config.json');
  await writeFile(utcConfig, JSON.stringify(example));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

async function pulse(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: {},
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

const jsonResult = (stdout: string) => {
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
};
const emlFiles = async (dir: string) =>
  existsSync(dir) ? (await readdir(dir)).filter((f) => f.endsWith('.eml')).sort() : [];

describe('pulse licenses report --local', () => {
  it('sends the report, writes the registry snapshots, and sends nothing the second time', async () => {
    const workDir = join(tmp, 'run');
    const first = await pulse('licenses', 'report', '--local', '--work-dir', workDir, '--config', utcConfig, '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const result = jsonResult(first.stdout);
    expect(result).toMatchObject({ job: 'license-report', ok: true, counts: { sent: 1, snapshotsWritten: 2 } });
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
      counts: { sent: 0, skippedAlreadySent: 1, snapshotsWritten: 0 },
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
    const example = JSON.parse(await readFile(utcConfig, 'utf8'));
    delete example.licenses.report;
    const noReport = join(tmp, 'no-report.json');
    await writeFile(noReport, JSON.stringify(example));
    const none = await pulse('licenses', 'report', '--local', '--work-dir', workDir, '--config', noReport);
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
