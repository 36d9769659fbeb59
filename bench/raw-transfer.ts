/**
 * The baselines of bench/archive-copy.ts: the same signed URL streamed into the same S3 server with nothing in
 * between — no hashing, no ZIP check, no checksums, no client library — so the archive copy's throughput can be
 * compared with what the two servers and Node's streams allow.
 * - `multipart`: fetch (undici) → parts of the archive store's part size, as many in flight as the store uses,
 *   plain UploadPart/CompleteMultipartUpload: the same requests the copy makes, minus their checksums.
 * - `put`: fetch → one streamed PutObject with the announced Content-Length (s3rver then skips the assembly of parts).
 */
import { Readable } from 'node:stream';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

export interface RawTarget {
  client: S3Client;
  bucket: string;
  key: string;
  partSize: number;
  queueSize: number;
}

/** Streams `url` into `target` as a multipart upload; returns the bytes moved. */
export async function rawMultipart(url: string, target: RawTarget): Promise<number> {
  const { client, bucket, key } = target;
  const res = await fetch(url);
  if (res.status !== 200 || !res.body) throw new Error(`storage answered ${res.status}`);
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
  const parts: { PartNumber: number; ETag?: string | undefined }[] = [];
  const inflight = new Set<Promise<void>>();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let total = 0;
  const flush = async () => {
    const part = { PartNumber: parts.length + 1 } as (typeof parts)[number];
    parts.push(part);
    const body = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    const sending: Promise<void> = client
      .send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId, PartNumber: part.PartNumber, Body: body }))
      .then((r) => {
        part.ETag = r.ETag;
      })
      .finally(() => inflight.delete(sending));
    inflight.add(sending);
    while (inflight.size >= target.queueSize) await Promise.race(inflight);
  };
  for await (const chunk of res.body) {
    pending.push(chunk);
    pendingBytes += chunk.byteLength;
    total += chunk.byteLength;
    if (pendingBytes >= target.partSize) await flush();
  }
  if (pendingBytes > 0) await flush();
  await Promise.all(inflight);
  await client.send(
    new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId, MultipartUpload: { Parts: parts } }),
  );
  return total;
}

/** Streams `url` into one PutObject; returns the bytes moved. */
export async function rawPut(url: string, target: Pick<RawTarget, 'client' | 'bucket' | 'key'>): Promise<number> {
  const res = await fetch(url);
  const length = Number(res.headers.get('content-length'));
  if (res.status !== 200 || !res.body || !(length > 0)) throw new Error(`storage answered ${res.status}`);
  await target.client.send(
    new PutObjectCommand({
      Bucket: target.bucket,
      Key: target.key,
      Body: Readable.fromWeb(res.body),
      ContentLength: length,
    }),
  );
  return length;
}
