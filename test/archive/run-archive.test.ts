/**
 * The export archive job end to end over real sockets: a small emulator (two products, one without the raw export
 * feature) and s3rver. What must hold: everything listed is archived under the key layout, the client data is exactly
 * the service's clients, a second run writes nothing, a deleted object is backfilled, hostile names never reach the
 * bucket.
 */
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Coverage } from '../../src/archive/coverage.ts';
import { MANIFEST_FORMAT, type Manifest, verifyManifestChain } from '../../src/archive/manifest.ts';
import type { ArchivePlan } from '../../src/archive/plan.ts';
import { terminalProgress } from '../../src/archive/progress.ts';
import { runArchive } from '../../src/archive/run-archive.ts';
import { ReportingClient } from '../../src/client/index.ts';
import type { JobResult } from '../../src/core/job-result.ts';
import { addingListedNames } from '../helpers/hostile-listing.ts';
import { type ArchivePeers, NO_RAW_PRODUCT, RAW_PRODUCT, startArchivePeers } from './archive-peers.ts';

let ap: ArchivePeers;
let first: JobResult;
/** Keys the default layout gives every file the service lists, found with a client of our own. */
let expectedKeys: string[];

const RUN_DATE = '2026-11-20';
const isExportFile = (key: string) => !/^pulse\/(manifests|coverage)\/|\/clientData\/|\.sha256$/.test(key);
const layout = (product: string, kind: string, fileName: string, date: string) =>
  `pulse/${product}/${kind}/${date.slice(0, 4)}/${date.slice(5, 7)}/${fileName}`;

async function listedKeys(): Promise<string[]> {
  const emu = ap.peers.emulator;
  const client = new ReportingClient({ baseUrl: emu.baseUrl, origin: emu.origin, credentials: emu.credentials });
  return client.withSession(async (c) => {
    const keys: string[] = [];
    for (const product of [NO_RAW_PRODUCT, RAW_PRODUCT]) {
      for (const kind of ['customEvents', 'exceptions'] as const) {
        const l =
          kind === 'customEvents' ? await c.customEventsListFiles(product) : await c.exceptionsListFiles(product);
        for (const f of l.dailyFiles) keys.push(layout(product, kind, f.fileName, f.fileDate));
        for (const f of l.monthlyFiles) keys.push(layout(product, kind, f.fileName, f.fileStartDate));
      }
    }
    for (const f of (await c.rawEventsListFiles(RAW_PRODUCT)).fileList)
      keys.push(layout(RAW_PRODUCT, 'rawEvents', f.fileName, f.fileDate));
    return keys.sort();
  });
}

beforeAll(async () => {
  ap = await startArchivePeers();
  first = await runArchive(ap.config, ap.ports());
  expectedKeys = await listedKeys();
});
afterAll(async () => {
  await ap?.close();
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('a full archive run', () => {
  it('archives every listed daily and monthly file of each kind of each product under the key layout', async () => {
    expect(first.errors).toEqual([]);
    expect(first.ok).toBe(true);
    expect(expectedKeys.length).toBeGreaterThan(300);
    expect((await ap.keys('pulse/')).filter(isExportFile)).toEqual(expectedKeys);
    // Each export has a checksum file (sha256sum format) holding the SHA-256 of the archived bytes.
    const checksums = (await ap.keys('pulse/')).filter((k) => k.endsWith('.zip.sha256'));
    expect(checksums.sort()).toEqual(expectedKeys.map((k) => `${k}.sha256`).sort());
    const sample = expectedKeys[0]!;
    const line = new TextDecoder().decode(await ap.peers.archive.get(`${sample}.sha256`));
    expect(line).toBe(`${sha256((await ap.peers.archive.get(sample))!)}  ${sample.split('/').at(-1)}\n`);
    const listed = expectedKeys.length + 2; // plus one client data file per product
    expect(first.counts).toMatchObject({ listed, archived: listed, skippedSame: 0, republished: 0, failed: 0 });
    expect(first.counts).toMatchObject({ rejected: 0, notEnabled: 1, backfilled: 0 });
    expect(first.outputs).toEqual([
      expect.stringMatching(/^pulse\/manifests\/2026-11-20T12-00-00\.000Z\.json$/),
      'pulse/coverage/2026-11-20T12-00-00.000Z.json',
    ]);

    // The manifest accounts for every file, with the size and SHA-256 of what is in the bucket.
    const manifest = await ap.json<Manifest>(first.outputs[0]!);
    expect(manifest.previous).toBeNull();
    expect(manifest.files.map((f) => f.key).sort()).toEqual(
      [...expectedKeys, ...[NO_RAW_PRODUCT, RAW_PRODUCT].map((p) => clientDataKey(p))].sort(),
    );
    let bytes = 0;
    for (const f of manifest.files.filter((_, i) => i % 25 === 0)) {
      const body = (await ap.peers.archive.get(f.key!))!;
      expect(f).toMatchObject({ outcome: 'archived', size: body.byteLength, sha256: sha256(body) });
    }
    for (const f of manifest.files) bytes += f.size ?? 0;
    expect(first.counts.bytes).toBe(bytes);
  });

  it('stores the bytes the service serves', async () => {
    const emu = ap.peers.emulator;
    const client = new ReportingClient({ baseUrl: emu.baseUrl, origin: emu.origin, credentials: emu.credentials });
    const fileName = expectedKeys.find((k) => k.includes(`/${RAW_PRODUCT}/customEvents/`) && k.includes('_to_'))!;
    const served = await client.withSession(async (c) => {
      const { downloadUrl } = await c.customEventsDownloadUrl(RAW_PRODUCT, { fileName: fileName.split('/').at(-1)! });
      return new Uint8Array(await new Response((await c.download(downloadUrl)).stream).arrayBuffer());
    });
    expect(sha256((await ap.peers.archive.get(fileName))!)).toBe(sha256(served));
  });

  it('reports the raw export of a product without the feature as notEnabled, not as a failure', async () => {
    const manifest = await ap.json<Manifest>(first.outputs[0]!);
    expect(manifest.kinds.find((k) => k.productId === NO_RAW_PRODUCT && k.kind === 'rawEvents')).toMatchObject({
      status: 'notEnabled',
    });
    const coverage = await ap.json<Coverage>(first.outputs[1]!);
    const raw = coverage.kinds.find((k) => k.productId === NO_RAW_PRODUCT && k.kind === 'rawEvents')!;
    expect(raw).toMatchObject({ status: 'notEnabled', archived: [], missing: [], failed: [] });
    const cust = coverage.kinds.find((k) => k.productId === RAW_PRODUCT && k.kind === 'customEvents')!;
    expect(cust.missing).toEqual([]);
    expect(cust.archived).toContain('2026-11-01/2026-11-19');
    expect(cust.archived).toContain('2026-11-19');
  });

  it('writes the client data as gzip NDJSON holding exactly the clients of the service', async () => {
    for (const product of [NO_RAW_PRODUCT, RAW_PRODUCT]) {
      const key = clientDataKey(product);
      const head = (await ap.peers.archive.head(key))!;
      const body = (await ap.peers.archive.get(key))!;
      const clients = gunzipSync(body)
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      const ids = ap.peers.emulator.state.products.get(product)!.clientIds;
      expect(clients.map((c) => c.clientId)).toEqual(ids);
      for (const c of clients)
        expect(Object.keys(c).sort()).toEqual(['clientId', ...ap.config.archive!.clientProperties].sort());
      expect(head.metadata).toMatchObject({ sha256: sha256(body), 'client-count': String(ids.length), product });
    }
  });
});

describe('later runs', () => {
  it('a second run writes nothing new', async () => {
    const before = (await ap.keys()).filter(isExportFile);
    const second = await runArchive(ap.config, ap.ports());
    expect(second.ok).toBe(true);
    expect(second.counts).toMatchObject({ archived: 0, skippedSame: first.counts.listed, failed: 0, bytes: 0 });
    expect(second.counts.listed).toBe(first.counts.listed);
    expect((await ap.keys()).filter(isExportFile)).toEqual(before);
  });

  it('backfills an archived object that went missing, and the coverage report shows it archived', async () => {
    const gap = expectedKeys.filter((k) => k.includes(`/${NO_RAW_PRODUCT}/exceptions/`) && !k.includes('_to_'))[40]!;
    const original = (await ap.peers.archive.get(gap))!;
    await ap.remove(gap);
    const dryRun = await planOf({ productIds: [NO_RAW_PRODUCT], kinds: ['exceptions'] });
    expect(dryRun.kinds[0]!.files.filter((f) => f.state === 'missing').map((f) => [f.key, f.backfill])).toEqual([
      [gap, true],
    ]);

    let drawn = '';
    const progress = terminalProgress({ isTTY: true, write: (t: string) => (drawn += t) }, { intervalMs: 0 });
    const run = await runArchive(ap.config, ap.ports(), {
      productIds: [NO_RAW_PRODUCT],
      kinds: ['exceptions'],
      progress,
    });
    expect(run.counts).toMatchObject({ archived: 1, backfilled: 1, failed: 0 });
    // On a terminal: one line redrawn in place, ending with every file done and the bytes moved.
    const lastLine = drawn.split('\r').at(-1)!;
    expect(lastLine).toMatch(
      new RegExp(
        `^archive \\[#{24}\\] ${run.counts.listed}/${run.counts.listed} files · [\\d.]+ (KiB|MiB)\\x1b\\[K\\n$`,
      ),
    );
    expect(drawn.split('\n')).toHaveLength(2);
    expect(run.counts.skippedSame).toBe(run.counts.listed - 1);
    expect(sha256((await ap.peers.archive.get(gap))!)).toBe(sha256(original));
    const coverage = await ap.json<Coverage>(run.outputs[1]!);
    const date = /_(\d{4}-\d{2}-\d{2})\.zip$/.exec(gap)![1]!;
    expect(coverage.kinds).toEqual([
      expect.objectContaining({ productId: NO_RAW_PRODUCT, kind: 'exceptions', missing: [], failed: [] }),
    ]);
    expect(coverage.kinds[0]!.archived).toContain(date);
    const manifest = await ap.json<Manifest>(run.outputs[0]!);
    expect(manifest.files.filter((f) => f.outcome === 'archived')).toEqual([
      expect.objectContaining({ key: gap, backfilled: true, sha256: sha256(original) }),
    ]);
  });

  it('rejects hostile file names from the service, reports them and writes nothing for them', async () => {
    const hostile = ['../../etc/passwd.zip', 'x\u0000.zip', `/${NO_RAW_PRODUCT}_cust_2026-11-18.zip`];
    const run = await runArchive(ap.config, ap.ports({ fetch: addingListedNames(hostile) }), {
      productIds: [NO_RAW_PRODUCT],
      kinds: ['customEvents'],
    });
    expect(run.ok).toBe(false);
    expect(run.counts).toMatchObject({ rejected: hostile.length, failed: 0, archived: 0 });
    expect(run.errors).toHaveLength(hostile.length);
    expect(run.errors.join('\n')).toContain('../../etc/passwd.zip');
    expect(run.errors.join('\n')).toContain(JSON.stringify('x\u0000.zip'));
    const manifest = await ap.json<Manifest>(run.outputs[0]!);
    const rejected = manifest.files.filter((f) => f.outcome === 'rejected');
    expect(rejected.map((f) => f.fileName).sort()).toEqual(
      [hostile[0]!, JSON.stringify(hostile[1]), hostile[2]!].sort(),
    );
    for (const r of rejected) {
      expect(r.key).toBeUndefined();
      expect(r.reason).toMatch(/\S/);
    }
    const coverage = await ap.json<Coverage>(run.outputs[1]!);
    expect(coverage.kinds[0]!.rejected).toHaveLength(hostile.length);
    // Nothing of theirs anywhere: not in the bucket, not on s3rver's disk.
    const theirs = (path: string) => path.includes('passwd') || path.includes('\u0000');
    for (const key of await ap.keys()) expect(theirs(key) || key.includes('..') || key.includes('//')).toBe(false);
    expect((await walk(ap.peers.workDir)).filter(theirs)).toEqual([]);
  });

  it('a dry run plans every file without writing anything', async () => {
    const before = await ap.keys();
    const result = await runArchive(ap.config, ap.ports(), { dryRun: true });
    expect(result.ok).toBe(true);
    expect(result.counts).toMatchObject({ listed: first.counts.listed, missing: 0, present: first.counts.listed });
    expect(result.counts).toMatchObject({ notEnabled: 1, rejected: 0, failed: 0 });
    expect(result.outputs).toEqual([]);
    expect(await ap.keys()).toEqual(before);
  });
});

describe('integrity of what the archive holds', () => {
  const exceptionKeys = () =>
    expectedKeys.filter((k) => k.includes(`/${NO_RAW_PRODUCT}/exceptions/`) && !k.includes('_to_'));
  const onlyExceptions = { productIds: [NO_RAW_PRODUCT], kinds: ['exceptions' as const] };
  const dateOf = (key: string) => /_(\d{4}-\d{2}-\d{2})\.zip$/.exec(key)![1]!;

  it('rewrites a missing checksum file, hashing the object once where it has no SHA-256, and says so', async () => {
    const [plain, legacy] = [exceptionKeys()[3]!, exceptionKeys()[4]!];
    await ap.remove(`${plain}.sha256`);
    // As a multipart upload of an earlier version left it: Pulse metadata without a SHA-256, no checksum file.
    const bytes = (await ap.peers.archive.get(legacy))!;
    await ap.peers.s3.send(
      new PutObjectCommand({
        Bucket: ap.peers.bucket,
        Key: legacy,
        Body: bytes,
        Metadata: { product: NO_RAW_PRODUCT, kind: 'exceptions', 'source-file': legacy.split('/').at(-1)! },
      }),
    );
    await ap.remove(`${legacy}.sha256`);
    const run = await runArchive(ap.config, ap.ports(), onlyExceptions);
    expect(run.errors).toEqual([]);
    expect(run.counts).toMatchObject({ skippedSame: run.counts.listed, checksumsRepaired: 2, repaired: 0 });
    const manifest = await ap.json<Manifest>(run.outputs[0]!);
    expect(manifest.files.filter((f) => f.checksumRepaired).map((f) => [f.key, f.outcome])).toEqual(
      [plain, legacy].sort().map((k) => [k, 'skippedSame']),
    );
    for (const key of [plain, legacy]) {
      const line = new TextDecoder().decode(await ap.peers.archive.get(`${key}.sha256`));
      expect(line).toBe(`${sha256((await ap.peers.archive.get(key))!)}  ${key.split('/').at(-1)}\n`);
    }
    const next = await runArchive(ap.config, ap.ports(), onlyExceptions);
    expect(next.counts).toMatchObject({ skippedSame: run.counts.listed, checksumsRepaired: 0 });
  });

  it('writes a new version over a truncated object without metadata, reported as repaired', async () => {
    const key = exceptionKeys()[5]!;
    const original = (await ap.peers.archive.get(key))!;
    // What a process killed mid-write leaves behind locally: part of the bytes, no metadata.
    await ap.peers.s3.send(
      new PutObjectCommand({ Bucket: ap.peers.bucket, Key: key, Body: original.subarray(0, 100) }),
    );
    const run = await runArchive(ap.config, ap.ports(), onlyExceptions);
    expect(run.errors).toEqual([]);
    expect(run.ok).toBe(true);
    expect(run.counts).toMatchObject({ repaired: 1, republished: 0, failed: 0, skippedSame: run.counts.listed - 1 });
    expect(run.counts.bytes).toBe(original.byteLength);
    expect(sha256((await ap.peers.archive.get(key))!)).toBe(sha256(original));
    const manifest = await ap.json<Manifest>(run.outputs[0]!);
    expect(manifest.files.filter((f) => f.outcome !== 'skippedSame')).toEqual([
      expect.objectContaining({ key, outcome: 'repaired', sha256: sha256(original), reason: expect.any(String) }),
    ]);
    const coverage = await ap.json<Coverage>(run.outputs[1]!);
    expect(coverage.kinds[0]!.repaired).toEqual([dateOf(key)]);
    expect(coverage.kinds[0]!.archived).toContain(dateOf(key));
  });

  it('a run that could not sign in says so in its manifest and coverage report, and fails', async () => {
    const emu = ap.peers.emulator;
    const wrong = new ReportingClient({
      baseUrl: emu.baseUrl,
      origin: emu.origin,
      credentials: { userName: emu.credentials.userName, password: 'not-the-password' },
      maxRetries: 0,
    });
    const run = await runArchive(ap.config, { ...ap.ports(), client: wrong });
    expect(run.ok).toBe(false);
    const kinds = ap.config.products.length * ap.config.archive!.kinds.length;
    expect(run.counts).toMatchObject({ listed: 0, failed: kinds });
    const manifest = await ap.json<Manifest>(run.outputs[0]!);
    expect(manifest.format).toBe(MANIFEST_FORMAT);
    expect(manifest.complete).toBe(false);
    expect(manifest.problems[0]).toMatch(/sign|auth|401|credentials/i);
    expect(manifest.kinds).toHaveLength(kinds);
    expect(manifest.kinds.every((k) => k.status === 'notListed' && /^not listed: /.test(k.reason ?? ''))).toBe(true);
    const coverage = await ap.json<Coverage>(run.outputs[1]!);
    expect(coverage.complete).toBe(false);
    expect(coverage.kinds).toHaveLength(kinds);
    expect(coverage.kinds.every((k) => k.status === 'notListed' && k.reason === manifest.kinds[0]!.reason)).toBe(true);
    expect(await verifyManifestChain(ap.peers.archive, 'pulse')).toMatchObject({ ok: true });
  });

  it('a listing that failed makes the run incomplete, and the coverage report names the kind', async () => {
    ap.peers.emulator.faults.set({ rules: [{ operations: ['exceptionsListFiles'], serverErrorRate: 1 }] });
    try {
      const run = await runArchive(ap.config, ap.ports(), { productIds: [NO_RAW_PRODUCT] });
      expect(run.ok).toBe(false);
      expect(run.counts.failed).toBe(1);
      const manifest = await ap.json<Manifest>(run.outputs[0]!);
      expect(manifest.complete).toBe(false);
      expect(manifest.problems).toEqual([expect.stringMatching(/^12345678901 exceptions: listing failed: /)]);
      const coverage = await ap.json<Coverage>(run.outputs[1]!);
      expect(coverage.complete).toBe(false);
      const exceptions = coverage.kinds.find((k) => k.kind === 'exceptions')!;
      expect(exceptions).toMatchObject({ status: 'failed', reason: expect.stringMatching(/ServerError|503/) });
      expect(coverage.kinds.find((k) => k.kind === 'customEvents')).toMatchObject({ status: 'listed' });
    } finally {
      ap.peers.emulator.faults.clear();
    }
  });

  it('a clean run says it is complete', async () => {
    const run = await runArchive(ap.config, ap.ports(), onlyExceptions);
    expect((await ap.json<Manifest>(run.outputs[0]!)).complete).toBe(true);
    expect((await ap.json<Coverage>(run.outputs[1]!)).complete).toBe(true);
  });
});

function clientDataKey(product: string): string {
  return `pulse/${product}/clientData/2026/11/${product}_clients_${RUN_DATE}.ndjson.gz`;
}

async function planOf(opts: Parameters<typeof runArchive>[2]): Promise<ArchivePlan> {
  let plan: ArchivePlan | undefined;
  await runArchive(ap.config, ap.ports(), { ...opts, dryRun: true, onPlan: (p) => (plan = p) });
  return plan!;
}

async function walk(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true });
  return entries.map((e) => join(dir, e));
}
