/**
 * `pulse licenses sync` as a real process against the in-process local peers (--local): the round trip of a CSV
 * with its result file, the rerun that sends nothing, --dry-run's printed difference; usage errors through `main`.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';
import { runPulse } from '../helpers/pulse-process.ts';

const PRODUCT = '12345678901';
const ENV = { PULSE_USER: 'ada@example.com', PULSE_PASSWORD: 'not-used', PULSE_LOCAL_EMULATOR: '{"clients":300}' };
let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-cli-lic-sync-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const sync = (file: string, ...rest: string[]) =>
  runPulse(['licenses', 'sync', file, '--local', '--work-dir', join(tmp, 'work'), '--product', PRODUCT, ...rest], ENV);

async function inProcess(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: ENV,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe('pulse licenses sync', () => {
  it('round-trips a CSV: result file beside it, exit 1 for an invalid row, a rerun sends nothing', async () => {
    const file = join(tmp, 'keys.csv');
    await writeFile(
      file,
      '\ufefflicenseKey,licenseType,expiryDate\r\nCLI-1,trial,2027-05-01\r\n"+CLI-2",,\r\nCLI-3,,2027-13-01\r\n',
    );
    const first = await sync(file);
    expect(first.stderr).toContain('line 4: invalid: expiryDate: "2027-13-01" is not a date');
    expect(first.code).toBe(1);
    expect(await readFile(join(tmp, 'keys.result.csv'), 'utf8')).toBe(
      '"line","licenseKey","result","detail"\r\n' +
        '"2","CLI-1","inserted","licenseType: trial; expiryDate: 2027-05-01"\r\n' +
        `"3","'+CLI-2","inserted",""\r\n` +
        '"4","CLI-3","invalid","expiryDate: ""2027-13-01"" is not a date (YYYY-MM-DD) or ""none"""\r\n',
    );
    const valid = join(tmp, 'valid.csv');
    await writeFile(valid, 'licenseKey,licenseType,expiryDate\nCLI-1,trial,2027-05-01\n+CLI-2,,\n');
    const again = await sync(valid, '--json', '--out', join(tmp, 'again.csv'));
    expect(again.code).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      job: 'licenses-sync',
      ok: true,
      counts: { rows: 2, inserted: 0, updated: 0, unchanged: 2, invalid: 0, failed: 0, batches: 0 },
      outputs: [join(tmp, 'again.csv')],
    });
  }, 60_000);

  it('--dry-run prints the difference and writes nothing', async () => {
    const file = join(tmp, 'dry.csv');
    await writeFile(file, 'licenseKey,licenseType,quota\nCLI-1,purchased,\nCLI-DRY,,7\nCLI-BAD,,x\n');
    const { code, stdout } = await sync(file, '--dry-run');
    expect(code).toBe(1);
    expect(stdout).toContain('line 2 "CLI-1": changes: licenseType: trial → purchased');
    expect(stdout).toContain('line 3 "CLI-DRY": new key: quota: 7');
    expect(stdout).toContain('line 4 "CLI-BAD": invalid: quota: "x" is not a whole number ≥ 0 or "none"');
    expect(existsSync(join(tmp, 'dry.result.csv'))).toBe(false);
    const rerun = await sync(file, '--dry-run', '--json');
    expect(JSON.parse(rerun.stdout).counts).toMatchObject({ updated: 1, inserted: 1, invalid: 1 });
  }, 60_000);

  it('usage errors name the problem (exit 2) and leave no result file', async () => {
    const missing = await inProcess('licenses', 'sync', join(tmp, 'nope.csv'), '--local');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope.csv: no such file');
    const file = join(tmp, 'header.csv');
    await writeFile(file, 'licenseKey,colour\nA,red\n');
    expect((await inProcess('licenses', 'sync', file, '--local')).stderr).toContain(
      '--product is required (the config has 12345678901, 9876543210)',
    );
    const header = await inProcess(
      'licenses',
      'sync',
      file,
      '--local',
      '--work-dir',
      join(tmp, 'w2'),
      '--product',
      PRODUCT,
    );
    expect(header.code).toBe(2);
    expect(header.stderr).toContain('line 1: header: unknown column "colour"');
    expect(existsSync(join(tmp, 'header.result.csv'))).toBe(false);
  }, 60_000);
});
