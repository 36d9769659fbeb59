/**
 * `--confirm-unknown` for a sender whose deliveries are one key each (the digest, the license report): the operator
 * checked that the message arrived; record it as sent, sending nothing, and count the key as what it now is.
 */
import type { Clock } from '../../ports/clock.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { JobResult } from '../job-result.ts';
import { confirmUnknown } from './deliver-once.ts';

export async function confirmDelivered<
  C extends { confirmed: number; skippedAlreadySent: number; inProgressElsewhere: number },
>(ports: { ledger: Ledger; clock: Clock }, key: string, result: JobResult<C>): Promise<void> {
  const now = await confirmUnknown(ports, key);
  // Settled by someone else in the meantime: count it as what it now is.
  if (now === 'confirmed') result.counts.confirmed++;
  else if (now === 'alreadySent') result.counts.skippedAlreadySent++;
  else result.counts.inProgressElsewhere++;
}
