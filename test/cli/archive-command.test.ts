/**
 * `pulse archive` through `main`, against in-process local peers on the real date. The runs use the bundled example
 * config narrowed to the smallest product with the raw export feature and to raw events plus client data, which
 * keeps them short.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG } from '../../src/app/local-runtime.ts';
import { ARCHIVE_HELP } from '../../src/cli/archive-command.ts';
import type { CliIo } from '../../src/cli/io.ts';
import { main } from '../../src/cli/main.ts';

const PRODUCT = '40000000017';
/** A product of the config (so the local emulator serves it) whose exception listing the fault profile fails. */
const FAILING_PRODUCT = '55555555555';
let tmp: string;
let config: string;
let noArchiveConfig: string;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-cli-archive-'));
  const example = JSON.parse(await readFile(EXAMPLE_CONFIG, 'utf8'));
  delete example.$schema;
  example.products = [{ id: PRODUCT }, { id: FAILING_PRODUCT }];
  delete example.usageAlerts; // its rules name the example's products
  example.digests = [];
  config = join(tmp, 'archive.config.json');
  await writeFile(config, JSON.stringify(example));
  const { archive: _, ...withoutArchive } = example;
  noArchiveConfig = join(tmp, 'no-archive.config.json');
  await writeFile(noArchiveConfig, JSON.stringify(withoutArchive));
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
    env: { PULSE_USER: 'ada@example.com', PULSE_PASSWORD: 'not-used' },
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

/** The --json contract: exactly one line, one object. */
function jsonResult(stdout: string) {
  const lines = stdout.split('\n').filter((l) => l !== '');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

const local = (workDir: string, ...rest: string[]) =>
  pulse('archive', '--local', '--work-dir', workDir, '--config', config, '--product', PRODUCT, ...rest);

describe('pulse archive --local', () => {
  it('archives, prints one JSON line with the counts and exits 0; a second run archives nothing', async () => {
    const workDir = join(tmp, 'run');
    const first = await local(workDir, '--kind', 'rawEvents', '--kind', 'clientData', '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const result = jsonResult(first.stdout);
    expect(Object.keys(result).sort()).toEqual(['counts', 'errors', 'job', 'ok', 'outputs']);
    expect(result).toMatchObject({ job: 'archive', ok: true, errors: [] });
    const { listed } = result.counts;
    expect(listed).toBeGreaterThan(30);
    expect(result.counts).toMatchObject({ archived: listed, skippedSame: 0, failed: 0, rejected: 0, backfilled: 0 });
    expect(result.counts.bytes).toBeGreaterThan(0);
    expect(result.outputs).toEqual([
      expect.stringMatching(/^pulse\/manifests\/\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.json$/),
      expect.stringMatching(/^pulse\/coverage\/.*\.json$/),
    ]);

    const second = await local(workDir, '--kind', 'rawEvents', '--kind', 'clientData', '--json');
    expect(second.code).toBe(0);
    expect(jsonResult(second.stdout).counts).toMatchObject({ listed, archived: 0, skippedSame: listed, bytes: 0 });

    const plan = await local(workDir, '--kind', 'rawEvents', '--dry-run');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toMatch(
      /^plan for \d{4}-\d\d-\d\d:\n {2}40000000017 rawEvents +\d+ files, 0 to copy, \d+ to re-verify\n/,
    );
    expect(plan.stdout).toMatch(/^archive: ok \(listed \d+, missing 0, present \d+/m);

    const planJson = await local(workDir, '--dry-run', '--json');
    expect(planJson.code).toBe(0);
    const counts = jsonResult(planJson.stdout).counts;
    // Custom events and exceptions were never archived here; raw events and the client data were.
    expect(counts.missing).toBeGreaterThan(0);
    expect(counts.present).toBe(listed);
    expect(jsonResult(planJson.stdout).outputs).toEqual([]);
  });

  it('--verify checks the manifest chain: 0 when whole, 1 naming the manifest whose predecessor was altered', async () => {
    const workDir = join(tmp, 'verify');
    for (let i = 0; i < 2; i++) expect((await local(workDir, '--kind', 'rawEvents')).code).toBe(0);
    const whole = await local(workDir, '--verify', '--json');
    expect(whole.code).toBe(0);
    const report = jsonResult(whole.stdout);
    expect(report).toMatchObject({ job: 'archive-verify', ok: true, counts: { manifests: 2, breaks: 0 }, errors: [] });

    // Alter the first manifest behind Pulse's back (s3rver keeps objects as files under the work dir).
    const folder = join(workDir, 's3', 'pulse-archive', 'pulse', 'manifests');
    const [first] = (await readdir(folder)).filter((f) => f.endsWith('.json._S3rver_object')).sort();
    const file = join(folder, first!);
    await writeFile(file, (await readFile(file, 'utf8')).replace('"archived"', '"ARCHIVED"'));
    const broken = await local(workDir, '--verify');
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^archive-verify: NOT ok \(manifests 2, breaks 1\)/);
    expect(broken.stderr).toMatch(/error: pulse\/manifests\/.*\.json: previous manifest .* was altered/);
  });

  it('exits 1 when a listing fails, naming it', async () => {
    const workDir = join(tmp, 'failing');
    const faults = join(tmp, 'listing-404.json');
    const rule = {
      operations: ['exceptionsListFiles'],
      path: `/${FAILING_PRODUCT}$`,
      serverErrorRate: 1,
      serverErrorStatus: 404,
    };
    await writeFile(faults, JSON.stringify({ rules: [rule] }));
    const r = await pulse(
      'archive',
      ...['--local', '--work-dir', workDir, '--config', config, '--product', FAILING_PRODUCT, '--kind', 'exceptions'],
      ...['--faults', faults, '--json'],
    );
    expect(r.code).toBe(1);
    const result = jsonResult(r.stdout);
    expect(result).toMatchObject({ ok: false, counts: { failed: 1, listed: 0 } });
    expect(result.errors).toEqual([expect.stringContaining(`${FAILING_PRODUCT} exceptions: listing failed`)]);
  });

  it('exits 2 on usage and configuration errors', async () => {
    const usage = async (argv: string[], message: RegExp) => {
      const r = await pulse(...argv);
      expect(r.code, argv.join(' ')).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stdout).toBe('');
    };
    const workDir = join(tmp, 'usage');
    await usage(['archive', '--local', '--work-dir', workDir, '--kind', 'nope'], /--kind "nope": one of customEvents/);
    await usage(['archive', '--frobnicate'], /--frobnicate.*pulse archive --help/);
    await usage(['archive', '--config', noArchiveConfig], /no "archive" section/);
    // Refused before any peer started: nothing locked in the work directory.
    expect(existsSync(join(workDir, 'peers.lock'))).toBe(false);
    await usage(
      ['archive', '--local', '--work-dir', workDir, '--config', config, '--product', '123'],
      /--product 123: not in the config's products/,
    );
  });

  it('has a help text', async () => {
    const r = await pulse('help', 'archive');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(ARCHIVE_HELP);
    expect(ARCHIVE_HELP).toMatch(/--product ID[\s\S]*--kind KIND[\s\S]*--dry-run/);
  });
});
