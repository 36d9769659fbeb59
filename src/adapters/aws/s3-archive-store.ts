/**
 * The ArchiveStore port over S3 (and, unchanged, over s3rver locally).
 *
 * - Buffers and strings go up with one PutObject; Readables and ByteSources (read into the part buffers) as a
 *   streamed multipart upload (s3-multipart-upload.ts).
 * - `sha256Base64` is checked here before anything is committed (so local peers behave like S3) and also sent as
 *   ChecksumSHA256 (S3 verifies it and it satisfies Object Lock's integrity-header requirement). For a multipart
 *   upload S3 checks each part's own SHA-256; the whole-object hash is checked here before CompleteMultipartUpload.
 * - `verify` runs once the whole body is read (and, streamed, every part uploaded), right before the request that
 *   commits the object (PutObject or CompleteMultipartUpload); if it throws, the upload is aborted and `put` rejects
 *   with its error, so nothing becomes visible. `metadata` is read when the request carrying it is sent: the one
 *   PutObject of a body shorter than a part (after `verify`), else CreateMultipartUpload, once a part is full.
 * - `ifNoneMatch` sends `If-None-Match: *`; S3 answers 412 (or 409 for a concurrent conditional write) →
 *   ObjectExistsError. s3rver ignores the header, so with `emulateConditionalWrites` a HEAD is made first: that
 *   check-then-write is racy and meant for local runs only.
 * - `read` streams an object (GetObject's body as it arrives), for hashing an archived object of any size.
 * - `list` does not return user metadata (S3 listings carry none): call `head` for it. S3 returns metadata keys
 *   lower-cased.
 * - A missing key is `undefined` from `head`, `get` and `read`, whether S3 answers 404 or, to a caller whose
 *   ListBucket is limited to prefixes, 403 (then one listing of that key decides: `#missing`).
 * - Every key is checked against the archive key rule (src/core/archive-key.ts) before any request: the last line
 *   behind the key builders, since s3rver stores a key as a path under the work directory.
 * - `linkTo` builds `${publicBaseUrl}/${key}` when a public base URL is configured (locally: s3rver serves objects
 *   without signing), else `s3://bucket/key`. Presigned URLs need @aws-sdk/s3-request-presigner, not a dependency.
 */
import { Readable } from 'node:stream';
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { unsafeKeyPartReason } from '../../config/archive-key-parts.ts';
import { ArchiveKeyError, checkedKey } from '../../core/archive-key.ts';
import {
  type ArchiveStore,
  type ByteSource,
  ObjectExistsError,
  type ObjectStream,
  type PutOptions,
  type StoredObject,
} from '../../ports/archive-store.ts';
import {
  ChecksumMismatchError,
  MIN_PART_SIZE,
  putObject,
  type StreamUploadResult,
  sha256,
  uploadStream,
} from './s3-multipart-upload.ts';

export { ChecksumMismatchError } from './s3-multipart-upload.ts';

export interface S3ClientOptions {
  /** A local S3-compatible server (s3rver), e.g. `http://127.0.0.1:4568`; absent for AWS. */
  endpoint?: string;
  region?: string;
}

/**
 * An S3 client for AWS (SDK defaults) or for a local endpoint: path-style addressing, and checksums only when an
 * operation requires them, because s3rver stores the SDK's aws-chunked trailer-checksum encoding verbatim and so
 * silently corrupts streamed uploads.
 */
export function s3ClientFor(opts: S3ClientOptions = {}): S3Client {
  const config: S3ClientConfig = opts.region ? { region: opts.region } : {};
  if (opts.endpoint === undefined) return new S3Client(config);
  return new S3Client({
    ...config,
    region: opts.region ?? 'us-east-1',
    endpoint: opts.endpoint,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    // s3rver's built-in account.
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
}

/** Multipart part size and parts uploaded at once, unless the options say otherwise. */
export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
export const DEFAULT_QUEUE_SIZE = 4;

export interface S3ArchiveStoreOptions {
  client: S3Client;
  bucket: string;
  /** Base of `linkTo` links, e.g. `https://archive.example.com` or `http://127.0.0.1:4568/pulse-archive`. */
  publicBaseUrl?: string;
  /** HEAD before a conditional write, for stores that ignore If-None-Match (s3rver). Racy: local use only. */
  emulateConditionalWrites?: boolean;
  /** Multipart part size in bytes (at least 5 MiB, S3's minimum, unless `smallPartsAllowed`). @default 8 MiB */
  partSize?: number;
  /** The store takes parts below S3's 5 MiB minimum (s3rver does): local runs that send small files multipart. */
  smallPartsAllowed?: boolean;
  /** Parts uploaded at once. @default 4 */
  queueSize?: number;
}

const statusOf = (e: unknown): number | undefined =>
  (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
const isNotFound = (e: unknown): boolean =>
  statusOf(e) === 404 || ['NotFound', 'NoSuchKey'].includes((e as Error)?.name);

export class S3ArchiveStore implements ArchiveStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #publicBaseUrl: string | undefined;
  readonly #emulateConditionalWrites: boolean;
  readonly #partSize: number;
  readonly #queueSize: number;

  constructor(opts: S3ArchiveStoreOptions) {
    this.#client = opts.client;
    this.#bucket = opts.bucket;
    this.#publicBaseUrl = opts.publicBaseUrl?.replace(/\/+$/, '');
    this.#emulateConditionalWrites = opts.emulateConditionalWrites ?? false;
    this.#partSize = opts.partSize ?? DEFAULT_PART_SIZE;
    this.#queueSize = opts.queueSize ?? DEFAULT_QUEUE_SIZE;
    const minPartSize = opts.smallPartsAllowed ? 1 : MIN_PART_SIZE;
    if (!Number.isInteger(this.#partSize) || this.#partSize < minPartSize)
      throw new RangeError(`partSize must be an integer of at least ${minPartSize} bytes`);
    if (!Number.isInteger(this.#queueSize) || this.#queueSize < 1) throw new RangeError('queueSize must be ≥ 1');
  }

  async put(key: string, body: Uint8Array | string | Readable | ByteSource, opts: PutOptions): Promise<StoredObject> {
    checkedKey(key);
    const ifNoneMatch = opts.ifNoneMatch ?? false;
    const metadata = opts.metadata ?? {};
    if (ifNoneMatch && this.#emulateConditionalWrites && (await this.head(key))) throw this.#exists(key);
    const target = {
      client: this.#client,
      bucket: this.#bucket,
      key,
      contentType: opts.contentType,
      metadata,
      ifNoneMatch,
    };
    try {
      let res: StreamUploadResult;
      if (typeof body === 'string' || body instanceof Uint8Array) {
        const bytes = typeof body === 'string' ? Buffer.from(body) : body;
        const digest = sha256(bytes);
        if (opts.sha256Base64 !== undefined && opts.sha256Base64 !== digest.toString('base64')) {
          throw new ChecksumMismatchError(`archive object ${key}: SHA-256 of the body does not match the expected one`);
        }
        await opts.verify?.();
        res = await putObject(target, bytes, digest);
      } else {
        res = await uploadStream({
          ...target,
          body,
          ...(opts.sha256Base64 !== undefined ? { sha256Base64: opts.sha256Base64 } : {}),
          verify: opts.verify,
          partSize: this.#partSize,
          queueSize: Math.max(1, Math.min(this.#queueSize, opts.maxPartsInFlight ?? this.#queueSize)),
        });
      }
      return stored(key, res.size, metadata, res.versionId);
    } catch (e) {
      const status = statusOf(e);
      if (ifNoneMatch && (status === 412 || status === 409)) throw this.#exists(key);
      throw e;
    }
  }

  async head(key: string): Promise<StoredObject | undefined> {
    try {
      const res = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: checkedKey(key) }));
      return stored(key, res.ContentLength ?? 0, res.Metadata ?? {}, res.VersionId);
    } catch (e) {
      if (await this.#missing(key, e)) return undefined;
      throw e;
    }
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    try {
      const res = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: checkedKey(key) }));
      return res.Body ? await res.Body.transformToByteArray() : new Uint8Array();
    } catch (e) {
      if (await this.#missing(key, e)) return undefined;
      throw e;
    }
  }

  async read(key: string, opts: { versionId?: string | undefined } = {}): Promise<ObjectStream | undefined> {
    try {
      const res = await this.#client.send(
        new GetObjectCommand({
          Bucket: this.#bucket,
          Key: key,
          ...(opts.versionId !== undefined ? { VersionId: opts.versionId } : {}),
        }),
      );
      // In Node the SDK's body is the response's IncomingMessage: a Readable, read as it arrives.
      const body = (res.Body as Readable | undefined) ?? Readable.from([]);
      return { ...stored(key, res.ContentLength ?? 0, res.Metadata ?? {}, res.VersionId), body };
    } catch (e) {
      if (await this.#missing(key, e)) return undefined;
      throw e;
    }
  }

  /**
   * ListObjects (v1) paged by marker = last key, a documented equivalent of ListObjectsV2 without a delimiter:
   * s3rver builds V2 continuation tokens with DES, which Node's OpenSSL 3 lacks, so any truncated V2 page fails there.
   */
  async *list(prefix: string): AsyncIterable<StoredObject> {
    const problem = unsafeKeyPartReason(prefix);
    if (problem) throw new ArchiveKeyError(`archive listing prefix ${JSON.stringify(prefix.slice(0, 200))} ${problem}`);
    let marker: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsCommand({
          Bucket: this.#bucket,
          Prefix: prefix,
          ...(marker !== undefined ? { Marker: marker } : {}),
        }),
      );
      const contents = page.Contents ?? [];
      for (const o of contents) if (o.Key !== undefined) yield stored(o.Key, o.Size ?? 0, {}, undefined);
      marker = page.IsTruncated ? contents.at(-1)?.Key : undefined;
    } while (marker !== undefined);
  }

  async linkTo(key: string): Promise<string> {
    if (this.#publicBaseUrl === undefined) return `s3://${this.#bucket}/${key}`;
    return `${this.#publicBaseUrl}/${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  /**
   * Whether a failed HEAD or GET means the key is missing. S3 answers 404 for a missing key only to a caller that may
   * list the whole bucket; the functions may list only their own prefixes (lib/stacks/pulse-stack.ts), and to them a
   * missing key is 403, like a refused one. Listing that one key tells the two apart (MaxKeys 1: the key itself
   * sorts before every longer key it prefixes).
   */
  async #missing(key: string, e: unknown): Promise<boolean> {
    if (isNotFound(e)) return true;
    if (statusOf(e) !== 403) return false;
    const page = await this.#client.send(new ListObjectsCommand({ Bucket: this.#bucket, Prefix: key, MaxKeys: 1 }));
    return !(page.Contents ?? []).some((o) => o.Key === key);
  }

  #exists(key: string): ObjectExistsError {
    return new ObjectExistsError(`archive object ${key} already exists`);
  }
}

function stored(key: string, size: number, metadata: Record<string, string>, versionId: string | undefined) {
  const o: StoredObject = { key, size, metadata };
  if (versionId !== undefined && versionId !== 'null') o.versionId = versionId;
  return o;
}
