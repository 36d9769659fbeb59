/** Where local runs keep their state; its own module so that the CLI can name it without loading the peers. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

export const DEFAULT_WORK_DIR = '.pulse';

/** The pid file a run holds while its local peers use the work directory (local-peers.ts takes it). */
export const WORK_DIR_LOCK = 'peers.lock';

/** Whether a process lives: signal 0 tests for it without touching it; EPERM means it exists under another user. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The pid of the live process whose local peers hold `workDir` (its WORK_DIR_LOCK), or undefined: no lock, an
 * unreadable one, or one left by a process that has died. Read only: local-peers.ts takes the lock, the console and
 * `pulse doctor --send-test --local` only ask.
 */
export async function liveLockHolder(workDir: string): Promise<number | undefined> {
  const pid = Number.parseInt(await readFile(join(workDir, WORK_DIR_LOCK), 'utf8').catch(() => ''), 10);
  return Number.isInteger(pid) && pid > 0 && isProcessAlive(pid) ? pid : undefined;
}
