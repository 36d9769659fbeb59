/**
 * Checks that dynalite's LevelDB opens before dynalite starts on it: dynalite opens it lazily and reports a failure
 * (a damaged directory, a LOCK held elsewhere) as an unhandled error that ends the process with a stack trace.
 * LevelDB replays its own log after a kill, so a failure here is real damage, which is not repaired automatically:
 * the state table holds the digests' delivery claims, and losing some would send a digest twice.
 */
import { createRequire } from 'node:module';
import { LocalStateError } from './local-state-error.ts';

interface LevelDb {
  open(): Promise<void>;
  close(): Promise<void>;
}
// The `level` that dynalite itself uses, so both agree on the on-disk format.
const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
const { Level } = fromDynalite('level') as { Level: new (location: string) => LevelDb };

export async function assertDynaliteStateOpens(dir: string): Promise<void> {
  const db = new Level(dir);
  try {
    await db.open();
  } catch (e) {
    const err = e as Error & { cause?: Error };
    const reason = (err.cause?.message ?? err.message).replace(/\s+/g, ' ');
    throw new LocalStateError(
      `${dir}: the local DynamoDB state cannot be opened (${reason}); move the directory aside ` +
        `(mv ${dir} ${dir}.broken) to start with an empty state table (this week's digests may then be sent again)`,
    );
  }
  await db.close();
}
