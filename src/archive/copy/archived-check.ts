/**
 * What an object already in the archive holds, judged without trusting anything a crash can leave half-done: it
 * must carry Pulse metadata agreeing with its size, and its SHA-256 must come from a place written with it — its
 * own metadata, else a checksum file bound to it (checksum-file.ts) — or from its bytes, hashed once, streamed (the
 * memory does not grow with the object), and then checked as a ZIP too. Never compared by size alone: a republished
 * file of the same size would pass for the archived one.
 *
 * An object that fails its own check is `broken` (the caller writes a new version, reported as `repaired`, never
 * `republished`: that outcome is a compliance flag about the service). A missing, empty, garbled or unbound
 * checksum file beside a sound object is reported for repair.
 */
import { createHash } from 'node:crypto';
import { ZipVerificationError, ZipVerifier } from '../../core/zip/zip-verifier.ts';
import type { ArchiveStore, StoredObject } from '../../ports/archive-store.ts';
import { boundTo, CHECKSUM_TOKEN, isSha256Hex, readChecksumFile } from './checksum-file.ts';

export type ArchivedState =
  | {
      ok: true;
      sha256: string;
      /** The checksum file is missing or wrong: the caller rewrites it if the object stays. */
      checksumFileWrong: boolean;
      /** The SHA-256 came from reading the whole object. */
      hashed: boolean;
    }
  | { ok: false; problem: string };

/** Keys Pulse writes in the metadata of every archived file; an object with none of them is not Pulse's. */
const PULSE_METADATA = ['product', 'kind', 'size', 'sha256', 'retrieved-at', CHECKSUM_TOKEN];

/** Why the object's metadata shows it is not a complete Pulse write, if it does. */
export function metadataProblem(o: StoredObject): string | undefined {
  if (!PULSE_METADATA.some((k) => o.metadata[k] !== undefined))
    return 'the archived object has no Pulse metadata (left by an interrupted write)';
  const size = o.metadata.size;
  if (size !== undefined && size !== String(o.size))
    return `the archived object has ${o.size} bytes, its metadata records ${size}`;
  if (o.metadata.sha256 !== undefined && !isSha256Hex(o.metadata.sha256))
    return 'the archived object records no valid SHA-256 in its metadata';
  return undefined;
}

/** Trust order: metadata SHA-256, then a bound checksum file agreeing with it, else the bytes (see the top). */
export async function checkArchived(store: ArchiveStore, existing: StoredObject): Promise<ArchivedState> {
  const problem = metadataProblem(existing);
  if (problem !== undefined) return { ok: false, problem };
  const recorded = existing.metadata.sha256;
  const file = await readChecksumFile(store, existing.key);
  const filed = file?.sha256;
  if (recorded !== undefined && (filed === recorded || filed === undefined))
    return { ok: true, sha256: recorded, checksumFileWrong: filed === undefined, hashed: false };
  if (recorded === undefined && filed !== undefined && boundTo(file!, existing))
    return { ok: true, sha256: filed, checksumFileWrong: false, hashed: false };
  // No hash recorded anywhere trustworthy, or two records that disagree: the bytes decide.
  const hashed = await hashArchived(store, existing);
  if ('problem' in hashed) return { ok: false, problem: hashed.problem };
  if (recorded !== undefined && hashed.sha256 !== recorded)
    return { ok: false, problem: 'the archived bytes do not match the SHA-256 in their metadata' };
  return { ok: true, sha256: hashed.sha256, checksumFileWrong: filed !== hashed.sha256, hashed: true };
}

/** The SHA-256 of the archived bytes (of the version `existing` describes), checked as a ZIP on the way. */
async function hashArchived(
  store: ArchiveStore,
  existing: StoredObject,
): Promise<{ sha256: string } | { problem: string }> {
  const read = await store.read(existing.key, { versionId: existing.versionId });
  if (!read) throw new Error(`archive object ${existing.key} vanished while being checked`);
  const hash = createHash('sha256');
  const zip = new ZipVerifier();
  let bytes = 0;
  try {
    for await (const chunk of read.body as AsyncIterable<Buffer>) {
      hash.update(chunk);
      bytes += chunk.byteLength;
      await zip.write(chunk);
    }
    await zip.end();
  } catch (e) {
    zip.abort(e);
    if (e instanceof ZipVerificationError) return { problem: `the archived object is not a valid ZIP: ${e.message}` };
    throw e;
  } finally {
    read.body.destroy();
  }
  if (bytes !== existing.size) return { problem: `the archived object changed while being checked` };
  return { sha256: hash.digest('hex') };
}
