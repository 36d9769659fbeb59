/**
 * Streams a Readable into S3 with a hand-rolled multipart upload (@aws-sdk/lib-storage is not a dependency).
 * Memory is bounded by (queueSize + 1) × partSize whatever the stream's length: the source is read only as fast as
 * parts can be uploaded. A stream shorter than one part becomes a single PutObject. On any failure (the source
 * errors, a part fails, the checksum does not match, `verify` throws) the upload is aborted, so no object appears; if
 * the abort itself fails, the bucket's lifecycle rule (abortIncompleteMultipartUpload) removes the parts later.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';

/** S3's minimum size of every part but the last. */
export const MIN_PART_SIZE = 5 * 1024 * 1024;

export class ChecksumMismatchError extends Error {
  override name = 'ChecksumMismatchError';
}

export interface StreamUploadRequest {
  client: S3Client;
  bucket: string;
  key: string;
  body: Readable;
  contentType: string;
  metadata: Record<string, string>;
  ifNoneMatch: boolean;
  /** Checked against the SHA-256 of the bytes read before the object is committed. */
  sha256Base64?: string;
  /** Runs once the whole body is read and every part uploaded, before the commit; throwing aborts the upload. */
  verify?: (() => Promise<void>) | undefined;
  partSize: number;
  queueSize: number;
}

export interface StreamUploadResult {
  size: number;
  versionId?: string;
}

export const sha256Base64 = (data: Uint8Array): string => createHash('sha256').update(data).digest('base64');

/** One PutObject of bytes whose SHA-256 (`digest`) the caller has computed; S3 verifies it on arrival. */
export async function putObject(
  req: Omit<StreamUploadRequest, 'body' | 'partSize' | 'queueSize' | 'sha256Base64' | 'verify'>,
  data: Uint8Array,
  digest: string,
): Promise<StreamUploadResult> {
  const res = await req.client.send(
    new PutObjectCommand({
      Bucket: req.bucket,
      Key: req.key,
      Body: data,
      ContentType: req.contentType,
      Metadata: req.metadata,
      ChecksumSHA256: digest,
      ...(req.ifNoneMatch ? { IfNoneMatch: '*' } : {}),
    }),
  );
  return { size: data.byteLength, ...(res.VersionId ? { versionId: res.VersionId } : {}) };
}

export async function uploadStream(req: StreamUploadRequest): Promise<StreamUploadResult> {
  const { client, bucket, key } = req;
  // The whole-object hash serves the single PutObject's checksum and the `sha256Base64` check; once the body turns
  // out to need parts and no hash is expected, it is dropped (a second SHA-256 pass over a large file for nothing).
  let whole: ReturnType<typeof createHash> | undefined = createHash('sha256');
  let size = 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let uploadId: string | undefined;
  const parts: CompletedPart[] = [];
  const inflight = new Set<Promise<void>>();
  let failure: unknown;

  const takePending = (): Buffer => {
    const data = Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return data;
  };

  const startPart = async (data: Buffer): Promise<void> => {
    if (req.sha256Base64 === undefined) whole = undefined;
    uploadId ??= (
      await client.send(
        new CreateMultipartUploadCommand({
          Bucket: bucket,
          Key: key,
          ContentType: req.contentType,
          Metadata: req.metadata,
          // Per-part SHA-256 checksums: verified by S3, and they satisfy Object Lock's integrity-header requirement.
          ChecksumAlgorithm: 'SHA256',
        }),
      )
    ).UploadId;
    const partNumber = parts.length + 1;
    const checksum = sha256Base64(data);
    const part: CompletedPart = { PartNumber: partNumber, ChecksumSHA256: checksum };
    parts.push(part);
    const sending = client
      .send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber: partNumber,
          Body: data,
          ContentLength: data.byteLength,
          ChecksumSHA256: checksum,
        }),
      )
      .then(
        (res) => {
          part.ETag = res.ETag;
        },
        (e: unknown) => {
          failure ??= e;
        },
      )
      .finally(() => inflight.delete(sending));
    inflight.add(sending);
    while (inflight.size >= req.queueSize) await Promise.race(inflight);
    if (failure) throw failure;
  };

  try {
    for await (const chunk of req.body) {
      if (failure) throw failure;
      const buf: Uint8Array = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      whole?.update(buf);
      size += buf.byteLength;
      pending.push(buf);
      pendingBytes += buf.byteLength;
      if (pendingBytes >= req.partSize) await startPart(takePending());
    }
    const digest = whole?.digest('base64');
    if (req.sha256Base64 !== undefined && req.sha256Base64 !== digest) {
      throw new ChecksumMismatchError(
        `archive object ${key}: SHA-256 of the bytes read does not match the expected one`,
      );
    }
    if (uploadId === undefined) {
      const data = takePending();
      await req.verify?.();
      // `whole` is only dropped once a part has started, so `digest` is there; the fallback is for the type only.
      return await putObject(req, data, digest ?? sha256Base64(data));
    }
    if (pendingBytes > 0) await startPart(takePending());
    await Promise.all(inflight);
    if (failure) throw failure;
    await req.verify?.();
    const res = await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
        ...(req.ifNoneMatch ? { IfNoneMatch: '*' } : {}),
      }),
    );
    return { size, ...(res.VersionId ? { versionId: res.VersionId } : {}) };
  } catch (e) {
    // Parts still in flight must land before the abort, or they could outlive it.
    await Promise.all(inflight);
    if (uploadId !== undefined) {
      await client
        .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
        .catch(() => undefined); // best effort; the original failure is what the caller needs to see
    }
    throw e;
  }
}
