/** Where local runs keep their state; its own module so that the CLI can name it without loading the peers. */
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
