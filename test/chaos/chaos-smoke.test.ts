/**
 * `npm run chaos` in small: three runs with seed 27 (an S3 put, multipart parts and an SMTP 5xx failing in a
 * `pulse start` that uploads in parts; the session limit refusing a `pulse start`, exit 3; truncated and corrupt
 * downloads in the license alerts) and the closing fault-free run over a fresh work directory; the runner must finish
 * with 0 invariant violations and write its report where `--report` says (never bench/CHAOS.md).
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
  const args = [CHAOS, '--runs', '3', '--seed', '27', '--minutes', '5', '--report', report];
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
  expect(out).toMatch(/^chaos seed 27$/m);
  expect(code, out).toBe(0);
  expect(out).toMatch(/chaos: 3 runs \(\+1 closing\), \d+ kills, 0 invariant violations/);
  const text = await readFile(report, 'utf8');
  expect(text).toContain('Seed: **27**');
  expect(text).toContain('Invariant violations: **0**');
  // The faults did happen: parts failed (the preload counts them), and the session limit ended a run with exit 3.
  expect(text).toMatch(/^\| s3Part \| 1 \| [1-9]\d* \|$/m);
  expect(text).toMatch(/^- Exit codes: .*\b3: 1\b/m);
}, 120_000);
