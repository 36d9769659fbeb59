/**
 * How the job commands end when they cannot do their job, through the real CLI (spawned): one line on stderr naming
 * what failed and what to do, the documented exit code, no stack trace unless --verbose, never a secret; and what
 * is refused before anything starts (unknown --digest/--product, an unsafe archive prefix, a bad --faults file):
 * exit 2 and no work directory.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Emulator, startEmulator } from '../../emulator/index.ts';
import { EXAMPLE_CONFIG } from '../../src/app/local-runtime.ts';

const PULSE = new URL('../../bin/pulse.ts', import.meta.url).pathname;
const PRODUCT = '40000000017';
const WRONG_PASSWORD = 'wrong-Pa55word-never-shown';

// biome-ignore lint/suspicious/noExplicitAny: each config mutates a different corner of a raw JSON document.
type RawConfig = any;

let tmp: string;
let emu: Emulator;
/** The example config, narrowed to one product and no retries so failures come fast. */
let config: string;
/** The same, pointed at the in-test emulator (for runs without --local). */
let remoteConfig: string;
let unsafePrefixConfig: string;

async function writeConfig(name: string, change: (c: RawConfig) => void): Promise<string> {
  const c = JSON.parse(await readFile(EXAMPLE_CONFIG, 'utf8'));
  delete c.$schema;
  c.products = [{ id: PRODUCT }];
  delete c.usageAlerts; // its rules name the example's products
  c.digests[0].productIds = [PRODUCT];
  c.service.maxRetries = 0;
  change(c);
  const path = join(tmp, name);
  await writeFile(path, JSON.stringify(c));
  return path;
}

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-cli-failures-'));
  emu = await startEmulator({ clients: 200, seed: 3 });
  config = await writeConfig('local.json', () => {});
  remoteConfig = await writeConfig('remote.json', (c) => {
    c.service.baseUrl = emu.baseUrl;
    c.service.origin = emu.origin;
  });
  unsafePrefixConfig = await writeConfig('unsafe-prefix.json', (c) => {
    c.archive.prefix = '../../../escaped';
  });
});
afterAll(async () => {
  await emu?.close();
  await rm(tmp, { recursive: true, force: true });
});

async function pulse(args: string[], env: Record<string, string> = {}) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [PULSE, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
  });
}

const lines = (text: string) => text.split('\n').filter((l) => l !== '');

/** Exactly one stderr line, starting `pulse <command>: `, and no stack frame. */
function expectOneLine(stderr: string, command: string, message: RegExp) {
  expect(lines(stderr), stderr).toHaveLength(1);
  expect(stderr).toMatch(new RegExp(`^pulse ${command}: `));
  expect(stderr.trimEnd()).toMatch(message);
  expect(stderr).not.toMatch(/^\s+at /m);
}

describe('job failures: one line, the documented exit code', () => {
  const badLogin = { PULSE_USER: 'ada@example.com', PULSE_PASSWORD: WRONG_PASSWORD };

  it('wrong credentials: exit 3 with what to do, never the password; --verbose adds the trace', async () => {
    for (const command of ['archive', 'digest']) {
      const r = await pulse([command, '--config', remoteConfig], badLogin);
      expect(r.code, r.stderr).toBe(3);
      expectOneLine(r.stderr, command, /401.*check the user name and password \(service\.credentials\)$/);
      expect(r.stdout).toBe('');
    }
    const verbose = await pulse(['archive', '--config', remoteConfig, '--verbose'], badLogin);
    expect(verbose.code).toBe(3);
    expect(verbose.stderr).toMatch(/^AuthenticationError: signIn: 401/m);
    expect(verbose.stderr).toMatch(/^\s+at /m);
    expect(lines(verbose.stderr).at(-1)).toMatch(/^pulse archive: .*check the user name and password/);
    expect(verbose.stderr).not.toContain(WRONG_PASSWORD);
  });

  it('an unreachable service: exit 5', async () => {
    const closed = await writeConfig('closed.json', (c) => {
      c.service.baseUrl = 'http://127.0.0.1:9';
    });
    const r = await pulse(['digest', '--config', closed], badLogin);
    expect(r.code, r.stderr).toBe(5);
    expectOneLine(r.stderr, 'digest', /network error.*check service\.baseUrl and the network/);
  });

  it('local S3 answering 500: exit 4, naming the folder and what to do', async () => {
    const workDir = join(tmp, 'broken-s3');
    // A file where s3rver keeps the bucket's folder: every bucket request fails inside s3rver (500).
    await mkdir(join(workDir, 's3'), { recursive: true });
    await writeFile(join(workDir, 's3', 'pulse-archive'), 'not a folder');
    for (const command of ['archive', 'digest']) {
      const r = await pulse([command, '--local', '--work-dir', workDir, '--config', config]);
      expect(r.code, r.stderr).toBe(4);
      const s3 = join(workDir, 's3').replaceAll('/', '\\/');
      expectOneLine(
        r.stderr,
        command,
        new RegExp(`local S3 in ${s3} answered 500 .*: run again; if it persists move ${s3} aside$`),
      );
    }
    const verbose = await pulse(['archive', '--local', '--work-dir', workDir, '--config', config, '--verbose']);
    expect(verbose.code).toBe(4);
    expect(verbose.stderr).toMatch(/^\s+at /m);
  });

  it('a work directory in use: exit 1, saying what to do', async () => {
    const workDir = join(tmp, 'busy');
    await mkdir(workDir, { recursive: true });
    // This test process is alive: its pid in the lock means "in use".
    await writeFile(join(workDir, 'peers.lock'), String(process.pid));
    const r = await pulse(['archive', '--local', '--work-dir', workDir, '--config', config]);
    expect(r.code).toBe(1);
    expectOneLine(r.stderr, 'archive', new RegExp(`process ${process.pid}; stop them or use another --work-dir$`));
  });
});

describe('refused before anything starts: exit 2, no work directory', () => {
  it('an unknown --digest or --product', async () => {
    const workDir = join(tmp, 'unknown-ids');
    const digest = await pulse(['digest', '--local', '--work-dir', workDir, '--digest', 'nope']);
    expect(digest.code).toBe(2);
    expect(digest.stderr).toBe("pulse: --digest nope: not in the config's digests (exec-weekly)\n");
    const product = await pulse(['archive', '--local', '--work-dir', workDir, '--config', config, '--product', '1']);
    expect(product.code).toBe(2);
    expect(product.stderr).toBe(`pulse: --product 1: not in the config's products (${PRODUCT})\n`);
    expect(existsSync(workDir)).toBe(false);
  });

  it('an archive prefix with "..": digest and archive name archive.prefix and write nothing', async () => {
    const parent = join(tmp, 'parent');
    const workDir = join(parent, 'work');
    await mkdir(parent);
    for (const command of ['digest', 'archive']) {
      const r = await pulse([command, '--local', '--work-dir', workDir, '--config', unsafePrefixConfig]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^\s*archive\.prefix: has a "\." or "\.\." segment/m);
      expect(r.stdout).toBe('');
    }
    expect(await readdir(parent)).toEqual([]);
    expect(existsSync(join(tmp, 'escaped'))).toBe(false);
  });

  it('a bad --faults file names the file; --faults needs --local', async () => {
    const workDir = join(tmp, 'bad-faults');
    const bad = join(tmp, 'bad-faults.json');
    await writeFile(bad, JSON.stringify({ rules: [{ serverErrorRate: 2 }] }));
    const r = await pulse(['archive', '--local', '--work-dir', workDir, '--config', config, '--faults', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`pulse: --faults: ${bad}: rules[0].serverErrorRate: must be a number from 0 to 1\n`);
    const missing = await pulse(['digest', '--local', '--work-dir', workDir, '--faults', join(tmp, 'none.json')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`--faults: cannot read ${join(tmp, 'none.json')}`);
    const notLocal = await pulse(['archive', '--config', remoteConfig, '--faults', bad]);
    expect(notLocal.code).toBe(2);
    expect(notLocal.stderr).toMatch(/--faults goes with --local/);
    expect(existsSync(workDir)).toBe(false);
  });
});

describe('--local --faults', () => {
  it('runs the in-process emulator with the profile: every listing fails, and the result says so', async () => {
    const faults = join(tmp, 'listings-fail.json');
    const operations = ['customEventsListFiles', 'exceptionsListFiles', 'rawEventsListFiles'];
    await writeFile(faults, JSON.stringify({ seed: 1, rules: [{ operations, serverErrorRate: 1 }] }));
    const workDir = join(tmp, 'faults');
    const kinds = ['--kind', 'customEvents', '--kind', 'exceptions', '--kind', 'rawEvents'];
    const r = await pulse([
      'archive',
      '--local',
      '--work-dir',
      workDir,
      '--config',
      config,
      ...kinds,
      '--faults',
      faults,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(1);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ ok: false, counts: { listed: 0, failed: 3, archived: 0 } });
    expect(result.errors).toHaveLength(3);
    for (const e of result.errors) expect(e).toMatch(new RegExp(`^${PRODUCT} \\w+: listing failed: ServerError`));
  });
});
