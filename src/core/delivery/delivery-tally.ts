/**
 * How one delivery outcome (deliver-once.ts) counts in a job's result, for every sender: sent, already sent and in
 * progress elsewhere are fine; failed, sent-but-unconfirmed, unknown and suppressed fail the run (exit 1,
 * `JobFailed`) with a line saying which message and why. Each job names its own counters (`sent` for the digest, `emails` for the
 * license alerts).
 */

import type { JobResult } from '../job-result.ts';
import type { Delivery, DeliveryOutcome } from './deliver-once.ts';

export type OutcomeCounters = Record<DeliveryOutcome, string>;

/** The counts of a job that uses DEFAULT_COUNTERS (the digest, the license report). */
export type DeliveryCounts = {
  sent: number;
  skippedAlreadySent: number;
  failed: number;
  sentUnconfirmed: number;
  unknown: number;
  inProgressElsewhere: number;
  suppressed: number;
};

export const DEFAULT_COUNTERS: OutcomeCounters = {
  sent: 'sent',
  alreadySent: 'skippedAlreadySent',
  inProgressElsewhere: 'inProgressElsewhere',
  failed: 'failed',
  sentUnconfirmed: 'sentUnconfirmed',
  unknown: 'unknown',
  suppressed: 'suppressed',
};

const FINE: ReadonlySet<DeliveryOutcome> = new Set(['sent', 'alreadySent', 'inProgressElsewhere']);

/** Whether a delivery needs no one's attention: sent now, sent earlier, or being sent by another run. */
export const deliveredOrUnderWay = (delivery: Delivery): boolean => FINE.has(delivery.outcome);

export function tallyDelivery<C extends Record<string, number>>(
  result: JobResult<C>,
  delivery: Delivery,
  label: string,
  counters: OutcomeCounters = DEFAULT_COUNTERS,
): void {
  const counts = result.counts as Record<string, number>;
  const name = counters[delivery.outcome];
  counts[name] = (counts[name] ?? 0) + 1;
  if (deliveredOrUnderWay(delivery)) return;
  result.ok = false;
  result.errors.push(`${label}: ${delivery.outcome}: ${delivery.error ?? ''}`);
}
