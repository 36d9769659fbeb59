/**
 * S3ArchiveStore against s3rver on 127.0.0.1 (real S3 wire protocol, files on disk). The faults s3rver cannot
 * produce are in s3-archive-store-faults.test.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChecksumMismatchError, S3ArchiveStore, s3ClientFor } from '../../src/adapters/aws/s3-archive-store.ts';
import { type ByteSource, ObjectExistsError } from '../../src/ports/archive-store.ts';
import { startTestBucket, type TestBucket } from '../helpers/s3-bucket.ts';
import { chunked, MiB, patternBytes, sha256 } from './byte-streams.ts';

const BUCKET = 'pulse-archive-test';
let bucket: TestBucket;
let client: S3Client;
let store: S3ArchiveStore;

beforeAll(async () => {
  bucket = await startTestBucket(BUCKET, (endpoint) => ({
    emulateConditionalWrites: true,
    publicBaseUrl: `${endpoint}/${BUCKET}/`,
  }));
  ({ client, store } = bucket);
});
afterAll(() => bucket.close());

/** A client of the peer that records the S3 operations it sends. */
function recordingClient(): { client: S3Client; sent: string[] } {
  const sent: string[] = [];
  const recording = s3ClientFor({ endpoint: bucket.endpoint });
  recording.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(context.commandName ?? '?');
      return next(args);
    },
    { step: 'initialize' },
  );
  return { client: recording, sent };
}

interface WireRequest {
  command: string;
  headers: Record<string, string>;
  bodyHex: string;
  bodyBase64: string;
  bytes: number;
}

/**
 * A client of the peer that records each signed request as it goes out: its headers and the SHA-256 of its body,
 * taken at that moment (part buffers are reused once their part is uploaded).
 */
function wireRecordingClient(): { client: S3Client; wire: WireRequest[] } {
  const wire: WireRequest[] = [];
  const recording = s3ClientFor({ endpoint: bucket.endpoint });
  // The deserialize step runs last, with the request as it is sent: serialized, checksummed and signed.
  recording.middlewareStack.add(
    (next, context) => async (args) => {
      const request = args.request as { headers: Record<string, string>; body: unknown };
      if (request.body instanceof Uint8Array) {
        const digest = createHash('sha256').update(request.body).digest();
        wire.push({
          command: context.commandName ?? '?',
          headers: { ...request.headers },
          bodyHex: digest.toString('hex'),
          bodyBase64: digest.toString('base64'),
          bytes: request.body.byteLength,
        });
      }
      return next(args);
    },
    { step: 'deserialize' },
  );
  return { client: recording, wire };
}

describe('S3ArchiveStore against s3rver', () => {
  it('puts, heads, gets and lists objects with their metadata', async () => {
    const prefix = `digests/${randomUUID()}/2026-W47/`;
    const html = '<p>Weekly digest — ünïcode</p>';
    const figures = new TextEncoder().encode(JSON.stringify({ active: 1234 }));
    const put = await store.put(`${prefix}digest.html`, html, {
      contentType: 'text/html; charset=utf-8',
      metadata: { digest: 'exec-weekly', week: '2026-W47' },
      sha256Base64: sha256(Buffer.from(html)),
    });
    expect(put).toMatchObject({ key: `${prefix}digest.html`, size: Buffer.byteLength(html) });
    await store.put(`${prefix}figures.json`, figures, { contentType: 'application/json' });

    expect(await store.head(`${prefix}digest.html`)).toMatchObject({
      size: Buffer.byteLength(html),
      metadata: { digest: 'exec-weekly', week: '2026-W47' },
    });
    expect(new TextDecoder().decode(await store.get(`${prefix}digest.html`))).toBe(html);
    expect(await store.get(`${prefix}figures.json`)).toEqual(new Uint8Array(figures));
    expect(await store.head(`${prefix}missing.html`)).toBeUndefined();
    expect(await store.get(`${prefix}missing.html`)).toBeUndefined();

    const listed = [];
    for await (const o of store.list(prefix)) listed.push(o);
    expect(listed.map((o) => [o.key, o.size]).sort()).toEqual([
      [`${prefix}digest.html`, Buffer.byteLength(html)],
      [`${prefix}figures.json`, figures.byteLength],
    ]);
    expect(await store.linkTo(`${prefix}digest.html`)).toBe(`${bucket.endpoint}/${BUCKET}/${prefix}digest.html`);
    const viaLink = await fetch(await store.linkTo(`${prefix}digest.html`));
    expect(await viaLink.text()).toBe(html);
  });

  it('lists across pages', async () => {
    const prefix = `paged/${randomUUID()}/`;
    const keys = Array.from({ length: 7 }, (_, i) => `${prefix}${String(i).padStart(2, '0')}.txt`);
    await Promise.all(keys.map((k) => store.put(k, k, { contentType: 'text/plain' })));
    let pages = 0;
    // A client of the same peer that asks for 3 keys per page.
    const paging = s3ClientFor({ endpoint: bucket.endpoint });
    paging.middlewareStack.add(
      (next) => async (args) => {
        (args.input as { MaxKeys?: number }).MaxKeys = 3;
        pages++;
        return next(args);
      },
      { step: 'initialize' },
    );
    const listed = [];
    for await (const o of new S3ArchiveStore({ client: paging, bucket: BUCKET }).list(prefix)) listed.push(o.key);
    paging.destroy();
    expect(listed.sort()).toEqual(keys);
    expect(pages).toBe(3);
  });

  it('refuses to replace an object when ifNoneMatch is set', async () => {
    const key = `once/${randomUUID()}.txt`;
    await store.put(key, 'first', { contentType: 'text/plain', ifNoneMatch: true });
    await expect(store.put(key, 'second', { contentType: 'text/plain', ifNoneMatch: true })).rejects.toBeInstanceOf(
      ObjectExistsError,
    );
    await expect(
      store.put(key, chunked(Buffer.from('third')), { contentType: 'text/plain', ifNoneMatch: true }),
    ).rejects.toBeInstanceOf(ObjectExistsError);
    expect(new TextDecoder().decode(await store.get(key))).toBe('first');
  });

  it('streams a 12 MiB Readable as a multipart upload that reads back byte for byte', async () => {
    const data = patternBytes(12 * MiB + 123, 42);
    const key = `exports/${randomUUID()}/big.zip`;
    const { client: recording, sent } = recordingClient();
    const small = new S3ArchiveStore({ client: recording, bucket: BUCKET, partSize: 5 * MiB, queueSize: 2 });
    const put = await small.put(key, chunked(data), {
      contentType: 'application/zip',
      metadata: { sha256: sha256(data) },
      sha256Base64: sha256(data),
    });
    expect(put.size).toBe(data.length);
    expect((await small.head(key))?.metadata).toEqual({ sha256: sha256(data) });
    const back = await small.get(key);
    expect(back?.length).toBe(data.length);
    expect(sha256(back!)).toBe(sha256(data));
    expect(sent.slice(0, 5)).toEqual([
      'CreateMultipartUploadCommand',
      'UploadPartCommand',
      'UploadPartCommand',
      'UploadPartCommand',
      'CompleteMultipartUploadCommand',
    ]);
    recording.destroy();
  });

  it('signs every part and single PUT with the SHA-256 it sends as checksum, that of the bytes on the wire', async () => {
    const data = patternBytes(11 * MiB + 5, 9);
    const { client: recording, wire } = wireRecordingClient();
    const small = new S3ArchiveStore({ client: recording, bucket: BUCKET, partSize: 5 * MiB, queueSize: 2 });
    const key = `exports/${randomUUID()}/signed.zip`;
    await small.put(key, chunked(data), { contentType: 'application/zip' });
    await small.put(`${key}.one-part`, chunked(data.subarray(0, MiB)), { contentType: 'application/zip' });
    await small.put(`${key}.sha256`, 'checksum file', { contentType: 'text/plain' });
    expect(wire.map((w) => [w.command, w.bytes])).toEqual([
      ['UploadPartCommand', 5 * MiB],
      ['UploadPartCommand', 5 * MiB],
      ['UploadPartCommand', MiB + 5],
      ['PutObjectCommand', MiB],
      ['PutObjectCommand', 'checksum file'.length],
    ]);
    for (const w of wire) {
      expect(w.headers['x-amz-content-sha256']).toBe(w.bodyHex);
      expect(w.headers['x-amz-checksum-sha256']).toBe(w.bodyBase64);
      expect(w.headers.authorization).toMatch(/SignedHeaders=[^,]*x-amz-content-sha256/);
    }
    expect(Buffer.from((await store.get(key))!).equals(data)).toBe(true);
    recording.destroy();
  });

  it('reads a ByteSource straight into its part buffers, with no more parts in flight than asked', async () => {
    const data = patternBytes(17 * MiB + 77, 5);
    const key = `exports/${randomUUID()}/read-into.zip`;
    const recording = s3ClientFor({ endpoint: bucket.endpoint });
    let inFlight = 0;
    let mostInFlight = 0;
    recording.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName !== 'UploadPartCommand') return next(args);
        mostInFlight = Math.max(mostInFlight, ++inFlight);
        try {
          return await next(args);
        } finally {
          inFlight--;
        }
      },
      { step: 'initialize' },
    );
    const targets = new Set<ArrayBufferLike>();
    let at = 0;
    const source: ByteSource = {
      // Odd, uneven read sizes, as a socket or a file gives them.
      async readInto(into) {
        targets.add(into.buffer);
        const n = Math.min(into.byteLength, data.length - at, 1 + ((at * 7919) % 700_000));
        into.set(data.subarray(at, at + n));
        at += n;
        return n;
      },
    };
    const store3 = new S3ArchiveStore({ client: recording, bucket: BUCKET, partSize: 5 * MiB, queueSize: 3 });
    const put = await store3.put(key, source, {
      contentType: 'application/zip',
      sha256Base64: sha256(data),
      maxPartsInFlight: 1,
    });
    expect(put.size).toBe(data.length);
    expect(Buffer.from((await store.get(key))!).equals(data)).toBe(true);
    expect(mostInFlight).toBe(1);
    // The reads landed in the part buffers themselves: one, reused, since only one part is ever in flight.
    expect(targets.size).toBe(1);

    at = 0;
    mostInFlight = 0;
    targets.clear();
    await store3.put(`${key}.3`, source, { contentType: 'application/zip' });
    expect(mostInFlight).toBe(3);
    expect(targets.size).toBeLessThanOrEqual(4); // three in flight, one being filled
    recording.destroy();
  });

  it('leaves no object when the source stream fails half way, nor when the checksum does not match', async () => {
    const data = patternBytes(12 * MiB, 7);
    const key = `exports/${randomUUID()}/broken.zip`;
    const small = new S3ArchiveStore({ client, bucket: BUCKET, partSize: 5 * MiB, queueSize: 1 });
    await expect(small.put(key, chunked(data, 6 * MiB), { contentType: 'application/zip' })).rejects.toThrow(
      'source broke',
    );
    expect(await small.head(key)).toBeUndefined();
    const wrong = sha256(Buffer.from('something else'));
    await expect(
      small.put(key, chunked(data), { contentType: 'application/zip', sha256Base64: wrong }),
    ).rejects.toBeInstanceOf(ChecksumMismatchError);
    await expect(small.put(key, data, { contentType: 'application/zip', sha256Base64: wrong })).rejects.toBeInstanceOf(
      ChecksumMismatchError,
    );
    expect(await small.head(key)).toBeUndefined();
  });
});
