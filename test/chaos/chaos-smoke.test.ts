/**
 * `npm run chaos` in small: three runs with seed 67 (an archive that the session limit refuses, exit 3; license
 * alerts whose ledger record of a sent email fails; a `pulse start` with corrupt downloads and a multipart completion
 * failing) and the closing fault-free run over a fresh work directory; the runner must finish with 0 invariant
 * violations and write its report where `--report` says (never bench/CHAOS.md).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';

const CHAOS = new URL('../../scripts/chaos.ts', import.meta.url).pathname;

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-chaos-smoke-'));
});
afterAll(() => rm(tmp, { recursive: true, force: true }));

it('three seeded runs and the closing run: 0 invariant violations, the report written to --report', async () => {
  const report = join(tmp, 'CHAOS.md');
  const args = [CHAOS, '--runs', '3', '--seed', '67', '--minutes', '5', '--report', report];
  const child = spawn(process.execPath, [...args, '--work-dir', join(tmp, 'work')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(out).toMatch(/^chaos seed 67$/m);
  expect(code, out).toBe(0);
  expect(out).toMatch(/chaos: 3 runs \(\+1 closing\), \d+ kills, 0 invariant violations/);
  const text = await readFile(report, 'utf8');
  expect(text).toContain('Seed: **67**');
  expect(text).toContain('Invariant violations: **0**');
  // The faults did happen: a multipart completion failed (the preload counts it), the session limit ended a run.
  expect(text).toMatch(/^\| s3Complete \| 2 \| [1-9]\d* \|$/m);
  expect(text).toMatch(/^- Exit codes: .*\b3: 1\b/m);
}, 120_000);
