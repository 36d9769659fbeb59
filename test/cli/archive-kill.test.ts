/**
 * `pulse archive --local` SIGKILLed at three points, each found by watching the file system, never by timing:
 * after some export objects were written, in the middle of a multipart upload (a part file in s3rver's upload
 * folder) and during the client-data step (its spool file growing). Every next run must start on the work directory
 * as the kill left it, and a final run without a kill must leave the archive whole: every file the service lists
 * (but today's open one, which is never archived) archived once with the SHA-256 of the emulator's own bytes, its
 * `.sha256` file present and right, the client data whole, no `republished` outcome, exit 0; and the digest runs on
 * the same work directory.
 *
 * The emulator's data set has 300 000 clients so the client data (~11 MB) goes up as a multipart upload of two
 * 8 MiB parts; its exceptions are the export files (94, small). Loopback only.
 */
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dayOfMs } from '../../emulator/data/dates.ts';
import { listing } from '../../emulator/families/files/catalog.ts';
import { FAMILIES } from '../../emulator/families/files/families.ts';
import { fileBytes } from '../../emulator/families/files/file-bytes.ts';
import { startEmulator } from '../../emulator/index.ts';
import { findBrokenS3rverEntries } from '../../src/adapters/local/s3rver-recovery.ts';
import { type PulseProcess, runPulse, STACK_FRAME, startPulse, writeExampleConfig } from '../helpers/pulse-process.ts';

const PRODUCT = '12345678901';
const EMULATOR = { clients: 300_000, today: '2026-11-20' };
/** Generous: a run takes a few seconds alone, more on a loaded machine. */
const KILL_POINT_TIMEOUT_MS = 90_000;
const POLL_MS = 20;

let tmp: string;
let config: string;
let workDir: string;
let s3Dir: string;
let bucketDir: string;
/** The children's TMPDIR: where the client data is spooled before its upload. */
let spoolDir: string;
let running: PulseProcess | undefined;

beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-cli-kill-'));
  config = await writeExampleConfig(tmp, 'config.json', (c) => {
    c.products = [{ id: PRODUCT }];
    delete c.usageAlerts; // its rules name the example's products
    // The digest at the end: on this product, and in UTC so its week has ended whatever the hour.
    for (const d of c.digests) {
      d.productIds = [PRODUCT];
      d.schedule.timeZone = 'UTC';
    }
  });
  workDir = join(tmp, 'work');
  s3Dir = join(workDir, 's3');
  bucketDir = join(s3Dir, 'pulse-archive');
  spoolDir = join(tmp, 'spool');
  await mkdir(spoolDir);
});
afterEach(() => {
  running?.child.kill('SIGKILL');
  running = undefined;
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const ARCHIVE_ARGS = () => ['archive', '--local', '--work-dir', workDir, '--config', config];
const ARCHIVE_KINDS = ['--kind', 'exceptions', '--kind', 'clientData'];
const env = () => ({ PULSE_LOCAL_EMULATOR: JSON.stringify(EMULATOR), TMPDIR: spoolDir });

/** Every file under `dir` (recursively), as paths; none when it does not exist (yet). */
async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** Starts an archive run and SIGKILLs it as soon as `reached` sees its kill point; fails if it never comes. */
async function killWhen(point: string, reached: () => Promise<boolean>): Promise<string> {
  const run = startPulse([...ARCHIVE_ARGS(), ...ARCHIVE_KINDS], env());
  running = run;
  let exited = false;
  void run.exited.then(() => {
    exited = true;
  });
  const deadline = Date.now() + KILL_POINT_TIMEOUT_MS;
  while (!(await reached())) {
    if (exited || Date.now() > deadline) {
      const how = exited ? `exited (${(await run.exited).code})` : 'timed out';
      throw new Error(`${point}: the run ${how} before the kill point\n${run.stderr()}`);
    }
    await sleep(POLL_MS);
  }
  run.child.kill('SIGKILL');
  const end = await run.exited;
  running = undefined;
  expect(end.signal, point).toBe('SIGKILL');
  return end.stderr;
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('pulse archive --local killed mid-run', () => {
  it('recovers the work directory after every kill; a final run archives every file exactly and correctly', async () => {
    const stderrs: string[] = [];
    stderrs.push(
      await killWhen('after some export objects', async () => {
        const objects = (await filesUnder(bucketDir)).filter((f) => f.endsWith('.zip._S3rver_object'));
        return objects.length >= 20;
      }),
    );
    stderrs.push(
      await killWhen('mid multipart upload', async () =>
        // s3rver streams each part to ._S3rver_uploads/<uploadId>/<partNumber> until the upload completes.
        (await filesUnder(join(bucketDir, '._S3rver_uploads'))).some((f) => /\/\d+$/.test(f)),
      ),
    );
    // Killed runs leave their spools behind (in TMPDIR, not in the work directory): only this run's count.
    const oldSpools = new Set(await filesUnder(spoolDir));
    stderrs.push(
      await killWhen('during the client-data step', async () => {
        const spools = (await filesUnder(spoolDir)).filter((f) => f.endsWith('.ndjson.gz') && !oldSpools.has(f));
        for (const f of spools) if ((await stat(f).catch(() => undefined))?.size) return true;
        return false;
      }),
    );

    const final = await runPulse([...ARCHIVE_ARGS(), ...ARCHIVE_KINDS, '--json'], env());
    stderrs.push(final.stderr);
    for (const s of stderrs) expect(s).not.toMatch(STACK_FRAME);
    expect(final.code, final.stderr).toBe(0);
    const result = JSON.parse(final.stdout);
    expect(result).toMatchObject({ ok: true, errors: [] });
    expect(result.counts).toMatchObject({ failed: 0, rejected: 0 });

    // What the service lists, and the bytes it serves, from an emulator with the same data set.
    const emu = await startEmulator(EMULATOR);
    let expected: Map<string, string>;
    let clients: number;
    try {
      const pd = emu.state.products.get(PRODUCT)!;
      clients = pd.n;
      const now = emu.clock.now();
      const listed = listing(pd, FAMILIES.exceptions, dayOfMs(now), now);
      expected = new Map([...listed.daily, ...listed.monthly].map((f) => [f.fileName, sha256(fileBytes(pd, f, now))]));
    } finally {
      await emu.close();
    }
    expect(expected.size).toBeGreaterThan(30);

    const files = await filesUnder(bucketDir);
    const objectsNamed = (name: string) => files.filter((f) => f.endsWith(`/${name}._S3rver_object`));
    const exportObjects = files.filter((f) => f.endsWith('.zip._S3rver_object'));
    expect(exportObjects, 'one object per listed file, no other').toHaveLength(expected.size);
    // Soft: every file that is wrong is reported, not only the first.
    for (const [fileName, sha] of expected) {
      const objects = objectsNamed(fileName);
      expect.soft(objects, `${fileName} archived once`).toHaveLength(1);
      if (objects.length === 1) expect.soft(sha256(await readFile(objects[0]!)), `${fileName}: SHA-256`).toBe(sha);
      const checksums = objectsNamed(`${fileName}.sha256`);
      expect.soft(checksums, `${fileName}.sha256 present`).toHaveLength(1);
      if (checksums.length === 1) {
        expect.soft(await readFile(checksums[0]!, 'utf8'), `${fileName}.sha256`).toBe(`${sha}  ${fileName}\n`);
      }
    }

    const [clientData, ...more] = files.filter((f) => /_clients_[\d-]+\.ndjson\.gz\._S3rver_object$/.test(f));
    expect(more).toEqual([]);
    const bytes = await readFile(clientData!);
    const metadata = JSON.parse(await readFile(clientData!.replace(/_object$/, '_metadata.json'), 'utf8'));
    expect(metadata).toMatchObject({ 'x-amz-meta-sha256': sha256(bytes), 'x-amz-meta-client-count': String(clients) });
    expect(bytes.byteLength).toBeGreaterThan(8 * 1024 * 1024); // it did go up in parts
    expect(gunzipSync(bytes).toString('utf8').trimEnd().split('\n')).toHaveLength(clients);

    // The final run's manifest: the service republished nothing, so no file may be reported as republished.
    const manifestKey: string = result.outputs[0];
    const manifest = JSON.parse(await readFile(join(bucketDir, `${manifestKey}._S3rver_object`), 'utf8'));
    const outcomes = manifest.files.map((f: { fileName: string; outcome: string }) => `${f.fileName}: ${f.outcome}`);
    expect.soft(outcomes.filter((o: string) => /: (republished|failed)$/.test(o))).toEqual([]);

    // The work directory is whole and usable: nothing half-written, no unfinished upload, and the digest runs.
    expect(findBrokenS3rverEntries(s3Dir)).toEqual([]);
    const digest = await runPulse(['digest', '--local', '--work-dir', workDir, '--config', config, '--json'], env());
    expect(digest.stderr).not.toMatch(STACK_FRAME);
    expect(digest.code, digest.stderr).toBe(0);
    // Two emails and the example's three channel posts.
    expect(JSON.parse(digest.stdout)).toMatchObject({ job: 'digest', ok: true, counts: { sent: 5 } });
  }, 240_000);
});
