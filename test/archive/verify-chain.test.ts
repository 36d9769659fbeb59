/**
 * The archive-verify job (functions/archive-verify, `pulse archive --verify`) against s3rver: an intact chain is a
 * success, an overwritten or deleted manifest a failure whose `job-metric` line reports `JobFailed` for
 * `archive-verify` (the "archive manifest chain broken" alarm). s3rver keeps no versions, so overwriting a manifest
 * is the tampering S3 would keep as a new current version.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobMetricLine } from '../../src/app/job-metric.ts';
import { MANIFEST_FORMAT, type Manifest, nextManifestSlot, writeManifest } from '../../src/archive/manifest.ts';
import { verifyArchiveChain } from '../../src/archive/verify-chain.ts';
import { type ArchivePeers, NO_RAW_PRODUCT, startArchivePeers } from './archive-peers.ts';

let ap: ArchivePeers;
const runs: string[] = [];

/** A run's manifest, linked to the latest one as finish-run.ts writes it. */
async function writeRun(at: string): Promise<string> {
  const { runId, previous } = await nextManifestSlot(ap.peers.archive, 'pulse', new Date(at));
  const manifest: Manifest = {
    format: MANIFEST_FORMAT,
    runId,
    startedAt: at,
    finishedAt: at,
    previous,
    complete: true,
    problems: [],
    counts: { archived: 1 },
    kinds: [],
    files: [],
    errors: [],
  };
  return writeManifest(ap.peers.archive, 'pulse', manifest);
}

const metricOf = (line: string) => JSON.parse(line) as { job: string; JobFailed: number; JobSucceeded: number };

beforeAll(async () => {
  ap = await startArchivePeers({ productIds: [NO_RAW_PRODUCT], clients: 20 });
  for (const day of ['2026-11-17', '2026-11-18', '2026-11-19', '2026-11-20'])
    runs.push(await writeRun(`${day}T02:30:00.000Z`));
}, 60_000);
afterAll(() => ap?.close());

describe('archive-verify job', () => {
  it('reports an intact chain as a success: every manifest counted, the latest named, JobSucceeded', async () => {
    const result = await verifyArchiveChain(ap.peers.archive, 'pulse');
    expect(result).toEqual({
      job: 'archive-verify',
      ok: true,
      counts: { manifests: 4, breaks: 0 },
      outputs: [runs[3]],
      errors: [],
    });
    expect(metricOf(jobMetricLine(result))).toMatchObject({ job: 'archive-verify', JobFailed: 0, JobSucceeded: 1 });
  });

  it('reports an overwritten manifest as a break of the next link: JobFailed', async () => {
    const original = Buffer.from((await ap.peers.archive.get(runs[1]!))!).toString('utf8');
    const forged = { ...(JSON.parse(original) as Manifest), counts: { archived: 0 } };
    await ap.overwrite(runs[1]!, `${JSON.stringify(forged, null, 2)}\n`);
    try {
      const result = await verifyArchiveChain(ap.peers.archive, 'pulse');
      expect(result).toMatchObject({ ok: false, counts: { manifests: 4, breaks: 1 } });
      expect(result.errors).toEqual([expect.stringMatching(new RegExp(`^${runs[2]}: .*${runs[1]} was altered`))]);
      expect(metricOf(jobMetricLine(result))).toMatchObject({ job: 'archive-verify', JobFailed: 1, JobSucceeded: 0 });
    } finally {
      await ap.overwrite(runs[1]!, original);
    }
    expect((await verifyArchiveChain(ap.peers.archive, 'pulse')).ok).toBe(true);
  });

  it('reports a deleted manifest as a link to a missing one: JobFailed', async () => {
    const original = Buffer.from((await ap.peers.archive.get(runs[0]!))!).toString('utf8');
    await ap.remove(runs[0]!);
    try {
      const result = await verifyArchiveChain(ap.peers.archive, 'pulse');
      expect(result).toMatchObject({ ok: false, counts: { manifests: 3, breaks: 1 } });
      expect(result.errors).toEqual([`${runs[1]}: previous manifest ${runs[0]} is missing`]);
      expect(metricOf(jobMetricLine(result)).JobFailed).toBe(1);
    } finally {
      await ap.overwrite(runs[0]!, original);
    }
  });
});
