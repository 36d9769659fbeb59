/**
 * What the console finds in a local work directory (src/adapters/local/local-peers.ts lays it out): whether a local
 * run ever used it, and whether one holds it right now (`peers.lock` naming a live process). Read only: the lock is
 * read, never taken or cleared.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { liveLockHolder, WORK_DIR_LOCK } from '../adapters/local/work-dir.ts';

export const WORK_DIR_PARTS = { dynamodb: 'dynamodb', s3: 's3', outbox: 'outbox' } as const;

export interface WorkDirState {
  dir: string;
  /** False when the directory is missing or holds none of the local peers' state. */
  used: boolean;
  /** The pid of a live process holding the work directory (a run under way), if any. */
  heldBy?: number;
}

export async function inspectWorkDir(dir: string): Promise<WorkDirState> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const used = await someNonEmpty(Object.values(WORK_DIR_PARTS).map((p) => join(dir, p)));
  const heldBy = names.includes(WORK_DIR_LOCK) ? await liveLockHolder(dir) : undefined;
  return { dir, used, ...(heldBy !== undefined ? { heldBy } : {}) };
}

async function someNonEmpty(dirs: string[]): Promise<boolean> {
  for (const d of dirs) {
    if ((await readdir(d).catch(() => [])).length > 0) return true;
  }
  return false;
}

/** A cache key for a folder's content: its entries' names, sizes and modification times (one level). */
export async function folderFingerprint(dir: string): Promise<string> {
  const names = (await readdir(dir).catch(() => [] as string[])).sort();
  const parts = await Promise.all(
    names.map(async (n) => {
      const s = await stat(join(dir, n)).catch(() => undefined);
      return s ? `${n}:${s.size}:${s.mtimeMs}` : n;
    }),
  );
  return parts.join('|');
}
