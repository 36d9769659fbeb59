/**
 * `npm run chaos` in small: three runs with seed 437 (a `pulse start` whose SMTP sink drops a connection after taking
 * a message and whose channel sink takes posts and drops the connection without answering, `channelDrop`; license
 * alerts whose ledger record of a send fails, under channel rate limits; a digest with stalled downloads and a
 * multipart completion failing) and the closing fault-free run over a fresh work directory; the runner must finish
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
  const args = [CHAOS, '--runs', '3', '--seed', '437', '--minutes', '5', '--report', report];
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
  expect(out).toMatch(/^chaos seed 437$/m);
  expect(code, out).toBe(0);
  expect(out).toMatch(/chaos: 3 runs \(\+1 closing\), \d+ kills, 0 invariant violations/);
  const text = await readFile(report, 'utf8');
  expect(text).toContain('Seed: **437**');
  expect(text).toContain('Invariant violations: **0**');
  // The faults did happen (the preload counts them): the SMTP sink dropped one, the channel sink dropped posts it
  // took, so webhooks took an event again under its id and chat posts are unknown to Pulse, none posted again.
  expect(text).toMatch(/^\| smtpDrop \| 1 \| 1 \|$/m);
  expect(text).toMatch(/^\| channelDrop \| 1 \| [1-9]\d* \|$/m);
  expect(text).toMatch(/\(\d+ distinct webhook events: [1-9]\d* redeliveries under the same id\)/);
  expect(text).toMatch(/^- Chat posts taken but unknown to Pulse: \*\*[1-9]\d*\*\*, none posted again/m);
  expect(text).toMatch(/^\| channel: at most one chat post per \(subject, channel\) \| 0 \|$/m);
}, 240_000);
