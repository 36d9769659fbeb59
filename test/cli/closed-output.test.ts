/**
 * A reader that goes away (`pulse start | head -1`) ends the output quietly and never the work: the real process,
 * its stdout a pipe whose reading end this test closes. No EPIPE stack trace, the later jobs still do their work,
 * and the exit code is the jobs'.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_FRAME, startPulse, writeExampleConfig } from '../helpers/pulse-process.ts';

let dir: string;
let config: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pulse-closed-output-'));
  // The digest's week in UTC, the service's days: never held for a week still running (digest-command.test.ts).
  config = await writeExampleConfig(dir, 'utc.config.json', (c) => {
    c.digests[0].schedule.timeZone = 'UTC';
  });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

// A small data set: the run is about the pipe, not the jobs.
const SMALL = { PULSE_LOCAL_EMULATOR: JSON.stringify({ clients: 200 }) };

describe('stdout whose reader goes away', () => {
  it('`pulse start | head -1`: the archive and the license alerts still run, exit 0, no stack trace', async () => {
    const workDir = join(dir, 'start');
    const run = startPulse(['start', '--config', config, '--work-dir', workDir], SMALL);
    // Like `head -1`: read the first line, then close the pipe; every later write of the child meets EPIPE.
    run.child.stdout!.on('data', () => {
      if (run.stdout().includes('\n')) run.child.stdout!.destroy();
    });
    const { code, stdout, stderr } = await run.exited;
    expect(stdout).toMatch(/^digest: ok /);
    expect(stdout).not.toContain('license-alerts:');
    expect(stderr).not.toMatch(STACK_FRAME);
    expect(stderr).not.toContain('EPIPE');
    // The license alerts ran after the reader had gone: one email per recipient in the outbox.
    const outbox = await readdir(join(workDir, 'outbox'));
    for (const recipient of ['growth@example.com', 'subscriptions@example.com'])
      expect(outbox.filter((f) => f.endsWith(`-${recipient}.eml`))).toHaveLength(1);
    // The license owner's: the alerts' summary and then the weekly license report, which `pulse start` runs last.
    expect(outbox.filter((f) => f.endsWith('-license-ops@example.com.eml'))).toHaveLength(2);
    expect(code).toBe(0);
  }, 120_000);

  it('`pulse licenses report --local --dry-run` with the reader gone before the first line: exit 0', async () => {
    const run = startPulse(['licenses', 'report', '--local', '--dry-run', '--work-dir', join(dir, 'report')], SMALL);
    run.child.stdout!.destroy();
    const { code, stderr } = await run.exited;
    expect(stderr).not.toMatch(STACK_FRAME);
    expect(stderr).not.toContain('EPIPE');
    expect(code).toBe(0);
  }, 60_000);
});
