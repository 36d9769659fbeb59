/**
 * The session budget: how the Reporting Service sessions that all deployed functions may hold at once
 * (`service.sessionBudget`, 3 or 4; the service allows 5 per user, so a person can still sign in) are shared out.
 *
 * - The scheduled functions (digest at :05, license alerts at :10, license report at :15, usage alerts at :40, archive
 *   plan at 02:20) are staggered, each holds one session for its run and signs out when the run ends: together they
 *   get 1. The usage alerts add no share: a run is a handful of report calls, at :40, after the others' windows.
 * - The archive copiers keep their session between invocations (one per warm container, src/app/warm-client.ts),
 *   so the copy queue's maxConcurrency is the number of copier sessions: the rest of the budget, budget − 1.
 *
 * Total: (budget − 1) + 1 = budget. SQS event sources need a maxConcurrency of at least 2, which is why the budget is
 * at least 3. The plan step signs out before it queues the copy tasks, so it never holds a session while copiers do.
 * - The license sync (an upload under `license-sync/incoming/`) runs one at a time (reserved concurrency 1: its
 *   share, LICENSE_SYNC_SESSIONS), however many files arrive: budget + 1 ≤ 5, since the budget is at most 4.
 * What this cannot bound: two scheduled runs that overlap take one session more; a copier that meets the limit hands
 * its batch back to the queue (item failures) instead of failing it.
 */

/**
 * Sessions the license sync may hold at once: reserved concurrency 1 (an SQS queue in front would need an event
 * source maxConcurrency of at least 2, one session more than the budget leaves).
 */
export const LICENSE_SYNC_SESSIONS = 1;
export function copierConcurrency(sessionBudget: number): number {
  const copiers = sessionBudget - 1;
  if (!Number.isInteger(sessionBudget) || copiers < 2)
    throw new RangeError(
      `service.sessionBudget: at least 3 (2 copiers and 1 scheduled function), got ${sessionBudget}`,
    );
  return copiers;
}
