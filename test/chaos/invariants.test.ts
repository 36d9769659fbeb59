/**
 * The chaos archive invariants read s3rver's files as s3rver-recovery does: an entry a killed run left half-written
 * was never committed, so the object the next run writes there is its first, not an overwrite.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ChaosState, checkArchive } from '../../scripts/chaos/invariants.ts';

const root = mkdtempSync(join(tmpdir(), 'pulse-chaos-invariants-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const bucketDir = join(root, 's3', 'pulse-archive');
const folder = join(bucketDir, 'chaos-e0', 'p');
mkdirSync(folder, { recursive: true });
const bytes = Buffer.from('the service bytes');
const sha = createHash('sha256').update(bytes).digest('hex');
const expected = new Map([
  ['a.zip', sha],
  ['b.zip', sha],
]);

/** An s3rver entry: the object, and its metadata file (`''` = the empty one a SIGKILL mid-write leaves). */
function entry(name: string, metadata: string, mtime: number): void {
  writeFileSync(join(folder, `${name}._S3rver_object`), bytes);
  writeFileSync(join(folder, `${name}._S3rver_metadata.json`), metadata);
  utimesSync(join(folder, `${name}._S3rver_object`), mtime, mtime);
}

it('a half-written entry is not an object; the write after it is not an overwrite', async () => {
  const state = new ChaosState();
  entry('a.zip', '{"content-type":"application/zip"}', 1000);
  entry('b.zip', '', 1000);
  const archived = await checkArchive(state, bucketDir, 'chaos-e0', expected);
  expect([...archived]).toEqual(['a.zip']);
  // The next start moves b.zip aside and the run archives it anew; a.zip is rewritten behind the job's back.
  entry('b.zip', '{"content-type":"application/zip"}', 2000);
  entry('a.zip', '{"content-type":"application/zip"}', 2000);
  const after = await checkArchive(state, bucketDir, 'chaos-e0', expected);
  expect([...after].sort()).toEqual(['a.zip', 'b.zip']);
  expect(state.violations).toEqual([
    {
      run: 0,
      invariant: 'archive: object never overwritten',
      detail: `chaos-e0/p/a.zip changed (sha ${sha} → ${sha})`,
    },
  ]);
});
