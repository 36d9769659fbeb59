/**
 * Streams a Readable into S3 with a hand-rolled multipart upload (@aws-sdk/lib-storage is not a dependency).
 * Memory is bounded by queueSize × partSize whatever the stream's length: the source is read only as fast as parts
 * can be uploaded, into at most queueSize part buffers, each reused once its part is uploaded (the next part is
 * filled only when fewer than queueSize are in flight). A stream shorter than one
 * part becomes a single PutObject. On any failure (the source errors, a part fails, the checksum does not match,
 * `verify` throws) the upload is aborted, so no object appears; if the abort itself fails, the bucket's lifecycle
 * rule (abortIncompleteMultipartUpload) removes the parts later.
 *
 * Each part (and a single PutObject) is hashed once, while it is filled: the SHA-256 goes out both as
 * ChecksumSHA256 (S3 verifies it, and Object Lock requires an integrity header) and as the SigV4 payload hash
 * (`x-amz-content-sha256`), which the signer would otherwise compute again over the same bytes.
 */
import { createHash, type Hash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { type ByteSource, isByteSource } from '../../ports/archive-store.ts';

/** S3's minimum size of every part but the last. */
export const MIN_PART_SIZE = 5 * 1024 * 1024;

export class ChecksumMismatchError extends Error {
  override name = 'ChecksumMismatchError';
}

export interface StreamUploadRequest {
  client: S3Client;
  bucket: string;
  key: string;
  /** A Readable (or any other async iterable of bytes), or a ByteSource, read straight into the part buffers. */
  body: AsyncIterable<Uint8Array | string> | ByteSource;
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

export const sha256 = (data: Uint8Array): Buffer => createHash('sha256').update(data).digest();

/**
 * A build-step middleware that gives a request `digest` as its SigV4 payload hash: the signer takes an
 * `x-amz-content-sha256` header that is already there instead of hashing the body itself.
 */
const payloadHash = (digest: Buffer) => {
  const hex = digest.toString('hex');
  return <A extends { request: unknown }, R>(next: (args: A) => Promise<R>) =>
    (args: A): Promise<R> => {
      const request = args.request as { headers?: Record<string, string> };
      if (request.headers) request.headers['x-amz-content-sha256'] = hex;
      return next(args);
    };
};
const PAYLOAD_HASH = { step: 'build', name: 'pulsePayloadHash' } as const;

/** One PutObject of bytes whose SHA-256 (`digest`) the caller has computed; S3 verifies it on arrival. */
export async function putObject(
  req: Omit<StreamUploadRequest, 'body' | 'partSize' | 'queueSize' | 'sha256Base64' | 'verify'>,
  data: Uint8Array,
  digest: Buffer,
): Promise<StreamUploadResult> {
  const command = new PutObjectCommand({
    Bucket: req.bucket,
    Key: req.key,
    Body: data,
    ContentType: req.contentType,
    Metadata: req.metadata,
    ChecksumSHA256: digest.toString('base64'),
    ...(req.ifNoneMatch ? { IfNoneMatch: '*' } : {}),
  });
  command.middlewareStack.add(payloadHash(digest), PAYLOAD_HASH);
  const res = await req.client.send(command);
  return { size: data.byteLength, ...(res.VersionId ? { versionId: res.VersionId } : {}) };
}

/** A part being filled: its buffer (reused from an uploaded part when one is free), the bytes in it, their hash. */
interface Part {
  buffer: Buffer;
  used: number;
  hash: Hash;
}

export async function uploadStream(req: StreamUploadRequest): Promise<StreamUploadResult> {
  const { client, bucket, key, partSize } = req;
  // Only an expected hash needs the whole object's: a body of one part is hashed as that part anyway.
  const whole = req.sha256Base64 !== undefined ? createHash('sha256') : undefined;
  const free: Buffer[] = [];
  const nextPart = (): Part => ({
    buffer: free.pop() ?? Buffer.allocUnsafeSlow(partSize),
    used: 0,
    hash: createHash('sha256'),
  });
  let size = 0;
  let uploadId: string | undefined;
  const parts: CompletedPart[] = [];
  const inflight = new Set<Promise<void>>();
  let failure: unknown;

  const startPart = async (filled: Part): Promise<void> => {
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
    const digest = filled.hash.digest();
    const part: CompletedPart = { PartNumber: partNumber, ChecksumSHA256: digest.toString('base64') };
    parts.push(part);
    const command = new UploadPartCommand({
      Bucket: bucket,
      Key: key,
      UploadId: uploadId,
      PartNumber: partNumber,
      Body: filled.buffer.subarray(0, filled.used),
      ContentLength: filled.used,
      ChecksumSHA256: part.ChecksumSHA256,
    });
    command.middlewareStack.add(payloadHash(digest), PAYLOAD_HASH);
    const sending = client
      .send(command)
      .then(
        (res) => {
          part.ETag = res.ETag;
          // Sent and answered: the buffer is free for the next part. A failed part's is not reused (nothing is).
          free.push(filled.buffer);
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

  let filling = nextPart();
  /** Takes the `n` bytes just written at the end of the part being filled; starts the part once it is full. */
  const filled = async (n: number): Promise<void> => {
    const data = filling.buffer.subarray(filling.used, filling.used + n);
    whole?.update(data);
    filling.hash.update(data);
    filling.used += n;
    size += n;
    if (filling.used === partSize) {
      await startPart(filling);
      filling = nextPart();
    }
  };
  try {
    const body = req.body;
    if (isByteSource(body)) {
      for (let n = -1; n !== 0; ) {
        if (failure) throw failure;
        n = await body.readInto(filling.buffer.subarray(filling.used));
        await filled(n);
      }
    } else {
      for await (const chunk of body) {
        if (failure) throw failure;
        let data: Uint8Array = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
        while (data.byteLength > 0) {
          const piece = data.subarray(0, partSize - filling.used);
          filling.buffer.set(piece, filling.used);
          data = data.subarray(piece.byteLength);
          await filled(piece.byteLength);
        }
      }
    }
    if (uploadId === undefined) {
      const digest = filling.hash.digest();
      checkExpected(req, key, digest);
      await req.verify?.();
      return await putObject(req, filling.buffer.subarray(0, filling.used), digest);
    }
    if (whole) checkExpected(req, key, whole.digest());
    if (filling.used > 0) await startPart(filling);
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

function checkExpected(req: StreamUploadRequest, key: string, digest: Buffer): void {
  if (req.sha256Base64 !== undefined && req.sha256Base64 !== digest.toString('base64')) {
    throw new ChecksumMismatchError(`archive object ${key}: SHA-256 of the bytes read does not match the expected one`);
  }
}
