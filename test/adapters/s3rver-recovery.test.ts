/**
 * The check of s3rver's store before it starts: every partial state a killed write can leave (see s3rver's
 * lib/stores/filesystem.js) is found and moved aside whole, a sound entry is left alone, and s3rver then serves the
 * bucket again. Also how long the check takes on a store of thousands of objects.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ArchiveStore, s3ClientFor } from '../../src/adapters/aws/s3-archive-store.ts';
import { startS3rver } from '../../src/adapters/local/peer-servers.ts';
import { findBrokenS3rverEntries, quarantineBrokenS3rverEntries } from '../../src/adapters/local/s3rver-recovery.ts';

let tmp: string;
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'pulse-s3rver-recovery-'));
});
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

const MD5 = 'd41d8cd98f00b204e9800998ecf8427e';
const METADATA = JSON.stringify({ 'content-type': 'application/zip', 'x-amz-meta-sha256': 'ab' });

/** Writes one entry the way s3rver lays it out; `undefined` leaves a file out. */
async function entry(s3Dir: string, key: string, files: { object?: string; md5?: string; metadata?: string }) {
  const base = join(s3Dir, 'bucket', key);
  await mkdir(dirname(base), { recursive: true });
  if (files.object !== undefined) await writeFile(`${base}._S3rver_object`, files.object);
  if (files.md5 !== undefined) await writeFile(`${base}._S3rver_object.md5`, files.md5);
  if (files.metadata !== undefined) await writeFile(`${base}._S3rver_metadata.json`, files.metadata);
}

describe('s3rver store recovery', () => {
  it('finds every half-written entry, moves each aside whole, and leaves sound ones', async () => {
    const s3Dir = join(tmp, 'cases', 's3');
    await entry(s3Dir, 'a/sound.zip', { object: 'bytes', md5: MD5, metadata: METADATA });
    await entry(s3Dir, 'a/copied-without-md5.zip', { object: 'bytes', metadata: METADATA });
    await entry(s3Dir, 'a/empty-metadata.zip', { object: 'bytes', md5: MD5, metadata: '' });
    await entry(s3Dir, 'a/partial-metadata.zip', { object: 'bytes', md5: MD5, metadata: '{"content-ty' });
    await entry(s3Dir, 'b/no-metadata.zip', { object: 'byt', md5: MD5 });
    await entry(s3Dir, 'b/bytes-only.zip', { object: 'by' });
    await entry(s3Dir, 'b/empty-md5.zip', { object: 'bytes', md5: '', metadata: METADATA });
    await entry(s3Dir, 'c/orphan-metadata.zip', { md5: MD5, metadata: METADATA });
    const upload = join(s3Dir, 'bucket', '._S3rver_uploads', 'upload-1');
    await mkdir(upload, { recursive: true });
    await writeFile(join(upload, 'key'), 'c/big.ndjson.gz');
    await writeFile(join(upload, '1'), 'part one');

    const broken = findBrokenS3rverEntries(s3Dir);
    expect(broken.map((b) => [b.entry, b.reason])).toEqual([
      ['bucket/a/empty-metadata.zip', 'metadata file is empty: the write never finished'],
      ['bucket/a/partial-metadata.zip', 'metadata file is not valid JSON: the write never finished'],
      ['bucket/b/bytes-only.zip', 'metadata file missing: the write never finished'],
      ['bucket/b/empty-md5.zip', 'MD5 file is damaged: the write never finished'],
      ['bucket/b/no-metadata.zip', 'metadata file missing: the write never finished'],
      ['bucket/c/big.ndjson.gz', 'multipart upload never completed'],
      ['bucket/c/orphan-metadata.zip', 'object file missing (left by an interrupted write or delete)'],
    ]);

    const quarantine = join(tmp, 'cases', 'quarantine');
    const moved = quarantineBrokenS3rverEntries(s3Dir, quarantine);
    expect(moved).toHaveLength(7);
    expect(moved.find((m) => m.entry === 'bucket/a/empty-metadata.zip')?.movedTo).toBe(
      join(quarantine, 'bucket', 'a', 'empty-metadata.zip._S3rver_object'),
    );
    // Nothing is deleted: every file of a broken entry is in the quarantine, under its own path.
    expect((await readdir(join(quarantine, 'bucket', 'a'))).sort()).toEqual([
      'empty-metadata.zip._S3rver_metadata.json',
      'empty-metadata.zip._S3rver_object',
      'empty-metadata.zip._S3rver_object.md5',
      'partial-metadata.zip._S3rver_metadata.json',
      'partial-metadata.zip._S3rver_object',
      'partial-metadata.zip._S3rver_object.md5',
    ]);
    expect(await readFile(join(quarantine, 'bucket', 'b', 'no-metadata.zip._S3rver_object'), 'utf8')).toBe('byt');
    expect(await readFile(join(quarantine, 'bucket', '._S3rver_uploads', 'upload-1', '1'), 'utf8')).toBe('part one');
    expect((await readdir(join(s3Dir, 'bucket', 'a'))).sort()).toEqual([
      'copied-without-md5.zip._S3rver_metadata.json',
      'copied-without-md5.zip._S3rver_object',
      'sound.zip._S3rver_metadata.json',
      'sound.zip._S3rver_object',
      'sound.zip._S3rver_object.md5',
    ]);
    expect(existsSync(upload)).toBe(false);
    expect(findBrokenS3rverEntries(s3Dir)).toEqual([]);

    // s3rver serves the bucket again: it lists exactly the sound entries.
    const s3rver = await startS3rver({ directory: s3Dir });
    const client = s3ClientFor({ endpoint: s3rver.endpoint });
    try {
      const store = new S3ArchiveStore({ client, bucket: 'bucket' });
      const keys: string[] = [];
      for await (const o of store.list('')) keys.push(o.key);
      expect(keys).toEqual(['a/copied-without-md5.zip', 'a/sound.zip']);
    } finally {
      client.destroy();
      await s3rver.close();
    }
  });

  it('finds nothing in a store without buckets or without the s3 directory', async () => {
    expect(findBrokenS3rverEntries(join(tmp, 'absent'))).toEqual([]);
    const empty = join(tmp, 'empty');
    await mkdir(empty);
    expect(quarantineBrokenS3rverEntries(empty, join(tmp, 'q'))).toEqual([]);
    expect(existsSync(join(tmp, 'q'))).toBe(false);
  });

  it('checks a store of 5000 sound objects quickly', async () => {
    const s3Dir = join(tmp, 'many', 's3');
    // The archive's layout: <prefix>/<product>/<kind>/<yyyy>/<mm>/<file> and a .sha256 file beside each.
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 2500; i++) {
      const key = `pulse/${1000 + (i % 5)}/rawEvents/2026/${String(1 + (i % 12)).padStart(2, '0')}/f${i}.zip`;
      writes.push(entry(s3Dir, key, { object: 'x'.repeat(1024), md5: MD5, metadata: METADATA }));
      writes.push(entry(s3Dir, `${key}.sha256`, { object: 'sum', md5: MD5, metadata: '{}' }));
    }
    await Promise.all(writes);
    const started = performance.now();
    expect(findBrokenS3rverEntries(s3Dir)).toEqual([]);
    const ms = performance.now() - started;
    console.log(`s3rver store check: 5000 objects in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(5000); // typically well under 0.2 s; the bound only catches a pathology
  });
});
