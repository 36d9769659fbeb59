/** The versioning proxy in front of s3rver (versioned-s3-proxy.ts), through the real S3 client and archive store. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ArchiveStore, s3ClientFor } from '../../src/adapters/aws/s3-archive-store.ts';
import { ensureBucket, type RunningPeer, startS3rver } from '../../src/adapters/local/peer-servers.ts';
import { startVersionedS3Proxy, type VersionedS3Proxy } from './versioned-s3-proxy.ts';

const Bucket = 'versioned';
let dir: string;
let s3rver: RunningPeer;
let proxy: VersionedS3Proxy;
const client = () => s3ClientFor({ endpoint: proxy.url });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pulse-versioned-s3-'));
  s3rver = await startS3rver({ directory: dir });
  proxy = await startVersionedS3Proxy(s3rver.endpoint);
  await ensureBucket(client(), Bucket);
});
afterAll(async () => {
  await proxy?.close();
  await s3rver?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a versioned bucket in front of s3rver', () => {
  it('every put answers a new version; HEAD and GET answer the current one', async () => {
    const s3 = client();
    const first = await s3.send(new PutObjectCommand({ Bucket, Key: 'a/b.txt', Body: 'one' }));
    const second = await s3.send(new PutObjectCommand({ Bucket, Key: 'a/b.txt', Body: 'two' }));
    expect(first.VersionId).toMatch(/^[\w-]{32}$/);
    expect(second.VersionId).not.toBe(first.VersionId);
    expect((await s3.send(new HeadObjectCommand({ Bucket, Key: 'a/b.txt' }))).VersionId).toBe(second.VersionId);
    const got = await s3.send(new GetObjectCommand({ Bucket, Key: 'a/b.txt', VersionId: second.VersionId }));
    expect(await got.Body!.transformToString()).toBe('two');
    expect(got.VersionId).toBe(second.VersionId);
  });

  it('a version that is not the current one is NoSuchVersion (GET) or 404 (HEAD)', async () => {
    const s3 = client();
    const first = await s3.send(new PutObjectCommand({ Bucket, Key: 'c.txt', Body: 'one' }));
    await s3.send(new PutObjectCommand({ Bucket, Key: 'c.txt', Body: 'two' }));
    await expect(
      s3.send(new GetObjectCommand({ Bucket, Key: 'c.txt', VersionId: first.VersionId })),
    ).rejects.toMatchObject({ name: 'NoSuchVersion', $metadata: { httpStatusCode: 404 } });
    await expect(
      s3.send(new HeadObjectCommand({ Bucket, Key: 'c.txt', VersionId: first.VersionId })),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 404 } });
    expect(proxy.noSuchVersion).toBe(2);
  });

  it('a multipart upload completes as a new version, which the store reads back by its id', async () => {
    const store = new S3ArchiveStore({ client: client(), bucket: Bucket, partSize: 8, smallPartsAllowed: true });
    const stored = await store.put('m/parts.bin', Readable.from([Buffer.from('0123456789abcdefghij')]), {
      contentType: 'application/octet-stream',
    });
    expect(stored.versionId).toBe(proxy.versionOf(Bucket, 'm/parts.bin'));
    const read = await store.read('m/parts.bin', { versionId: stored.versionId });
    const chunks: Buffer[] = [];
    for await (const chunk of read!.body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('0123456789abcdefghij');
  });
});
