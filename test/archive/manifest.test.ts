/**
 * The manifest chain over s3rver: runs of the archive job (client data only, to keep them short) each write a
 * manifest that links to the one before by key and SHA-256; `verifyManifestChain` accepts the chain as written and
 * names the manifest whose link breaks when one is altered, deleted or forged.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Manifest,
  manifestKey,
  nextManifestSlot,
  parseRunId,
  runIdOf,
  verifyManifestChain,
  writeManifest,
} from '../../src/archive/manifest.ts';
import { runArchive } from '../../src/archive/run-archive.ts';
import { type ArchivePeers, RAW_PRODUCT, startArchivePeers } from './archive-peers.ts';

let ap: ArchivePeers;
/** Manifest keys of the runs made in beforeAll, in run order. */
const runs: string[] = [];

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const runOnce = async () => {
  const r = await runArchive(ap.config, ap.ports(), { kinds: ['clientData'] });
  expect(r.errors).toEqual([]);
  return r.outputs[0]!;
};

beforeAll(async () => {
  ap = await startArchivePeers({ productIds: [RAW_PRODUCT], clients: 100 });
  for (let i = 0; i < 4; i++) runs.push(await runOnce());
});
afterAll(async () => {
  await ap?.close();
});

describe('run ids', () => {
  it('are sortable UTC timestamps that round-trip', () => {
    const at = new Date('2026-11-20T09:05:03.042Z');
    expect(runIdOf(at)).toBe('2026-11-20T09-05-03.042Z');
    expect(parseRunId(runIdOf(at))?.toISOString()).toBe(at.toISOString());
    expect(parseRunId('2026-11-20T09:05:03.042Z')).toBeUndefined();
    expect(parseRunId('../2026-11-20T09-05-03.042Z')).toBeUndefined();
  });

  it('keep run order in key order even when the clock stands still', () => {
    // The test clock is fixed: each run still gets an id after the one before.
    expect(runs).toEqual([...runs].sort());
    expect(new Set(runs).size).toBe(runs.length);
    expect(runs[0]).toBe('pulse/manifests/2026-11-20T12-00-00.000Z.json');
    expect(runs[1]).toBe('pulse/manifests/2026-11-20T12-00-00.001Z.json');
  });
});

describe('the manifest chain', () => {
  it('links every manifest to the one before by key and SHA-256', async () => {
    const manifests = await Promise.all(runs.map((k) => ap.json<Manifest>(k)));
    expect(manifests[0]!.previous).toBeNull();
    for (let i = 1; i < runs.length; i++) {
      const before = (await ap.peers.archive.get(runs[i - 1]!))!;
      expect(manifests[i]!.previous).toEqual({ key: runs[i - 1], sha256: sha256(before) });
    }
    // The first run wrote today's client data; the later ones found it there.
    expect(manifests.map((m) => m.files.map((f) => f.outcome))).toEqual([
      ['archived'],
      ['skippedSame'],
      ['skippedSame'],
      ['skippedSame'],
    ]);
    const file = manifests[0]!.files[0]!;
    const body = (await ap.peers.archive.get(file.key!))!;
    expect(file).toMatchObject({ kind: 'clientData', size: body.byteLength, sha256: sha256(body) });
    expect(manifests[3]!.files[0]).toMatchObject({ sha256: file.sha256, size: file.size });
  });

  it('verifies as written', async () => {
    expect(await verifyManifestChain(ap.peers.archive, 'pulse')).toEqual({
      ok: true,
      manifests: runs.length,
      latest: runs.at(-1),
      breaks: [],
    });
  });

  it('names the manifest after an altered one', async () => {
    const original = Buffer.from((await ap.peers.archive.get(runs[1]!))!).toString('utf8');
    const forged = JSON.parse(original) as Manifest;
    forged.files = [];
    await ap.overwrite(runs[1]!, `${JSON.stringify(forged, null, 2)}\n`);
    try {
      const report = await verifyManifestChain(ap.peers.archive, 'pulse');
      expect(report.ok).toBe(false);
      expect(report.breaks).toEqual([{ key: runs[2], problem: expect.stringMatching(/altered/) }]);
    } finally {
      await ap.overwrite(runs[1]!, original);
    }
    expect((await verifyManifestChain(ap.peers.archive, 'pulse')).ok).toBe(true);
  });

  it('names the manifest whose previous one was deleted', async () => {
    const original = Buffer.from((await ap.peers.archive.get(runs[2]!))!).toString('utf8');
    await ap.remove(runs[2]!);
    try {
      const report = await verifyManifestChain(ap.peers.archive, 'pulse');
      expect(report).toMatchObject({ ok: false, manifests: runs.length - 1 });
      expect(report.breaks).toEqual([{ key: runs[3], problem: `previous manifest ${runs[2]} is missing` }]);
    } finally {
      await ap.overwrite(runs[2]!, original);
    }
  });

  it('names a forged manifest appended to the chain, and objects that are not manifests', async () => {
    const forgedKey = 'pulse/manifests/2026-11-20T12-00-00.900Z.json';
    const stray = 'pulse/manifests/notes.txt';
    const forged: Manifest = { ...(await ap.json<Manifest>(runs[0]!)), runId: '2026-11-20T12-00-00.900Z' };
    await ap.overwrite(forgedKey, JSON.stringify(forged));
    await ap.overwrite(stray, 'not a manifest');
    try {
      const report = await verifyManifestChain(ap.peers.archive, 'pulse');
      expect(report).toMatchObject({ ok: false, latest: forgedKey });
      expect(report.breaks).toEqual([
        { key: stray, problem: 'not a manifest name' },
        { key: forgedKey, problem: `starts a new chain although ${runs[3]} comes before it` },
      ]);
    } finally {
      await ap.remove(forgedKey);
      await ap.remove(stray);
    }
  });

  it('accepts a chain that starts with manifests of the earlier format (1) and goes on in the current one', async () => {
    // Under a prefix of its own: format 1 had no `complete` or `problems`.
    const { complete: _, problems: __, ...rest } = await ap.json<Manifest>(runs[0]!);
    const legacyKey = manifestKey('legacy', rest.runId);
    await ap.overwrite(legacyKey, `${JSON.stringify({ ...rest, format: 'pulse-archive-manifest/1' }, null, 2)}\n`);
    const { runId, previous } = await nextManifestSlot(ap.peers.archive, 'legacy', new Date(0));
    expect(previous?.key).toBe(legacyKey);
    await writeManifest(ap.peers.archive, 'legacy', { ...rest, runId, previous, complete: true, problems: [] });
    expect(await verifyManifestChain(ap.peers.archive, 'legacy')).toMatchObject({ ok: true, manifests: 2 });
  });
});
