/**
 * Archive store port: write-once objects under keys (S3 in AWS, s3rver locally). Used by the digest (its HTML, raw
 * responses and figures) and by the export archive.
 */
import type { Readable } from 'node:stream';

export interface PutOptions {
  contentType: string;
  metadata?: Record<string, string>;
  /** Fail with ObjectExistsError instead of replacing an existing object (conditional write where supported). */
  ifNoneMatch?: boolean;
  /** Base64 SHA-256 of the body, checked by the store where it supports checksums. */
  sha256Base64?: string;
  /**
   * Called once the whole body has been read and uploaded, before the object becomes visible (before
   * CompleteMultipartUpload). Throwing aborts the upload: nothing is committed. Used to verify a download.
   */
  verify?: () => Promise<void>;
  /**
   * At most this many pieces of a streamed body in memory (and on the wire) at once, where the store uploads in
   * pieces; fewer than the store's default trades speed for memory. @default the store's own
   */
  maxPartsInFlight?: number;
}

export interface StoredObject {
  key: string;
  size: number;
  metadata: Record<string, string>;
  versionId?: string;
}

export class ObjectExistsError extends Error {
  override name = 'ObjectExistsError';
}

/**
 * A body the store reads into its own buffers, so nothing is allocated per chunk (a download through the archive's
 * tap): `readInto` fills `into` from its start and resolves with the bytes written, 0 at the end. One read at a time.
 */
export interface ByteSource {
  readInto(into: Uint8Array): Promise<number>;
}

export const isByteSource = (body: unknown): body is ByteSource =>
  typeof (body as Partial<ByteSource> | undefined)?.readInto === 'function';

/** An object's bytes as a stream, with what `head` tells of it. */
export interface ObjectStream extends StoredObject {
  body: Readable;
}

export interface ArchiveStore {
  put(key: string, body: Uint8Array | string | Readable | ByteSource, opts: PutOptions): Promise<StoredObject>;
  head(key: string): Promise<StoredObject | undefined>;
  /** The whole object in memory: for small objects (manifests, checksum files). */
  get(key: string): Promise<Uint8Array | undefined>;
  /**
   * The object's bytes streamed (memory does not grow with the object), of `versionId` when given and the store
   * keeps versions. The caller reads the body to its end or destroys it.
   */
  read(key: string, opts?: { versionId?: string | undefined }): Promise<ObjectStream | undefined>;
  list(prefix: string): AsyncIterable<StoredObject>;
  /** A link to the object for people (a presigned or public URL). */
  linkTo(key: string): Promise<string>;
}
