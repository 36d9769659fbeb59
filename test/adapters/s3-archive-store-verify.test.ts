/**
 * The `verify` hook of S3ArchiveStore.put against s3rver on 127.0.0.1: it runs after the whole body is read (and
 * every part uploaded), right before the request that commits the object; if it throws, nothing is committed.
 */
import { randomUUID } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3ArchiveStore, s3ClientFor } from '../../src/adapters/aws/s3-archive-store.ts';
import { startTestBucket, type TestBucket } from '../helpers/s3-bucket.ts';
import { chunked, MiB, patternBytes } from './byte-streams.ts';

const BUCKET = 'pulse-archive-verify-test';
let bucket: TestBucket;

beforeAll(async () => {
  bucket = await startTestBucket(BUCKET);
});
afterAll(() => bucket.close());

/** A store whose S3 client logs every command it sends into `events`, next to what the test logs there itself. */
function recordingStore(events: string[]): S3ArchiveStore {
  const client = s3ClientFor({ endpoint: bucket.endpoint });
  client.middlewareStack.add(
    (next, context) => async (args) => {
      events.push((context.commandName ?? '?').replace(/Command$/, ''));
      return next(args);
    },
    { step: 'initialize' },
  );
  return new S3ArchiveStore({ client, bucket: BUCKET, partSize: 5 * MiB, queueSize: 2 });
}

/** A body of `size` bytes that counts what the store has read of it. */
function countedBody(size: number, seed: number) {
  const data = patternBytes(size, seed);
  const counter = { read: 0 };
  const body = chunked(data).pipe(
    new PassThrough({
      transform(chunk: Buffer, _enc, done) {
        counter.read += chunk.length;
        done(null, chunk);
      },
    }),
  );
  return { data, body, counter };
}

describe('S3ArchiveStore put with verify (s3rver)', () => {
  it.each([
    ['a stream shorter than one part', 1 * MiB, ['PutObject']],
    ['a multipart stream', 11 * MiB, ['CreateMultipartUpload', 'UploadPart', 'UploadPart', 'UploadPart']],
  ])('verifies %s after reading all of it, then commits', async (_label, size, before) => {
    const events: string[] = [];
    const store = recordingStore(events);
    const key = `verify/${randomUUID()}.zip`;
    const { data, body, counter } = countedBody(size, 5);
    await store.put(key, body, {
      contentType: 'application/zip',
      metadata: { kind: 'test' },
      verify: async () => {
        expect(counter.read).toBe(size);
        events.push('verify');
      },
    });
    const commit =
      before[0] === 'PutObject' ? ['verify', 'PutObject'] : [...before, 'verify', 'CompleteMultipartUpload'];
    expect(events).toEqual(commit);
    expect(Buffer.from((await store.get(key))!).equals(data)).toBe(true);
    expect((await store.head(key))?.metadata).toEqual({ kind: 'test' });
  });

  it.each([
    ['a stream shorter than one part', 1 * MiB, ['PutObject']],
    ['a multipart stream', 11 * MiB, ['CompleteMultipartUpload']],
  ])('commits nothing when verify throws on %s, and rejects with its error', async (_label, size, never) => {
    const events: string[] = [];
    const store = recordingStore(events);
    const key = `verify/${randomUUID()}.zip`;
    const refusal = new Error('the ZIP is corrupt');
    const put = store.put(key, countedBody(size, 6).body, {
      contentType: 'application/zip',
      verify: async () => {
        throw refusal;
      },
    });
    await expect(put).rejects.toBe(refusal);
    for (const command of never) expect(events).not.toContain(command);
    if (size > 5 * MiB) expect(events.at(-1)).toBe('AbortMultipartUpload');
    expect(await store.head(key)).toBeUndefined();
  });

  it('verifies a buffer body before its PutObject, and sends nothing when verify throws', async () => {
    const events: string[] = [];
    const store = recordingStore(events);
    const key = `verify/${randomUUID()}.txt`;
    await store.put(key, 'hello', { contentType: 'text/plain', verify: async () => void events.push('verify') });
    expect(events).toEqual(['verify', 'PutObject']);

    events.length = 0;
    const refused = `verify/${randomUUID()}.txt`;
    const put = store.put(refused, new Uint8Array([1, 2, 3]), {
      contentType: 'application/octet-stream',
      verify: () => Promise.reject(new Error('no')),
    });
    await expect(put).rejects.toThrow('no');
    expect(events).toEqual([]);
    expect(await store.head(refused)).toBeUndefined();
  });
});
