/**
 * `pulse doctor` on a workstation with no AWS setup at all (no region, no credentials, no ~/.aws): the real process
 * with its environment cleared, the Reporting Service checks against the emulator on 127.0.0.1. Every check still
 * runs and reports on its own line, the summary follows, and the exit code says what kind of failure it was.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { EXAMPLE_CONFIG } from '../../src/app/local-runtime.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';
import { PULSE_BIN, STACK_FRAME } from '../helpers/pulse-process.ts';

let emu: Emulator;
let dir: string;
beforeAll(async () => {
  emu = await startTestEmulator();
  dir = await mkdtemp(join(tmpdir(), 'pulse-doctor-no-aws-'));
});
afterAll(async () => {
  await emu?.close();
  await rm(dir, { recursive: true, force: true });
});

it('without an AWS region or credentials every check reports (SES too), then the summary; exit 3', async () => {
  const config = JSON.parse(await readFile(EXAMPLE_CONFIG, 'utf8'));
  delete config.$schema;
  config.service.baseUrl = emu.baseUrl;
  config.service.origin = emu.origin;
  config.mail.transport = { kind: 'ses' }; // no region of its own
  const file = join(dir, 'pulse.config.json');
  await writeFile(file, JSON.stringify(config));
  // Nothing of this machine's environment: no AWS_REGION, AWS_DEFAULT_REGION, AWS_PROFILE or keys, and a HOME
  // without ~/.aws. Instance metadata is off so nothing leaves 127.0.0.1.
  const env = {
    HOME: dir,
    AWS_EC2_METADATA_DISABLED: 'true',
    PULSE_USER: emu.credentials.userName,
    PULSE_PASSWORD: emu.credentials.password,
    // The example's channels, set (no post is made): only the AWS checks are this test's subject.
    PULSE_CHANNEL_PRODUCT_SLACK: 'http://127.0.0.1:9/slack',
    PULSE_CHANNEL_PRODUCT_TEAMS: 'http://127.0.0.1:9/teams',
    PULSE_CHANNEL_PULSE_EVENTS: JSON.stringify({
      url: 'http://127.0.0.1:9/hook',
      signingSecret: `whsec_${'A'.repeat(43)}=`,
    }),
  };
  const run = await promisify(execFile)(process.execPath, [PULSE_BIN, 'doctor', '--config', file], { env }).then(
    (r) => ({ ...r, code: 0 }),
    (e: { stdout: string; stderr: string; code: number }) => e,
  );
  const lines = run.stdout.trimEnd().split('\n');
  const line = (name: string) => lines.find((l) => l.slice(2).startsWith(`${name}:`));
  const noRegion = 'Region is missing: set AWS_REGION (or AWS_PROFILE with a region) and run again';
  expect(run.stderr).not.toMatch(STACK_FRAME);
  expect(run.stderr).toBe('');
  // The service checks need no AWS: they pass.
  expect(line('sign-in')).toMatch(/^✓ /);
  expect(line('sign-out')).toBe('✓ sign-out: session ended');
  // Each AWS check fails on its own line, saying what to set.
  expect(line('archive bucket pulse-archive')).toBe(`✗ archive bucket pulse-archive: HeadBucket: ${noRegion}`);
  expect(line('state table pulse-state')).toBe(`✗ state table pulse-state: DescribeTable: ${noRegion}`);
  expect(line('SES identity pulse@example.com')).toBe(
    `✗ SES identity pulse@example.com: GetEmailIdentity: ${noRegion}`,
  );
  expect(line('SES account')).toBe(`✗ SES account: GetAccount: ${noRegion}`);
  expect(line('alarm topic')).toMatch(/^- alarm topic: not checked/);
  expect(lines.at(-1)).toMatch(/^doctor: 4 of \d+ checks failed$/);
  // Not 2 (the config and the flags were fine): the workstation's AWS setup, like missing AWS credentials.
  expect(run.code).toBe(3);
}, 60_000);
