/**
 * Write-once puts for what a job keeps beside what it sends (the digest's archive record, the license report's):
 * the first record of a week is kept, and a later run for the same week (another recipient's send time) finds the
 * object there and leaves it.
 */
import { type ArchiveStore, ObjectExistsError } from '../ports/archive-store.ts';

/** Writes an object unless it is there already (the first record is kept); returns its key. */
export async function putOnce(store: ArchiveStore, key: string, body: Uint8Array | string, contentType: string) {
  try {
    await store.put(key, body, { contentType, ifNoneMatch: true });
  } catch (e) {
    if (!(e instanceof ObjectExistsError)) throw e;
  }
  return key;
}
