/**
 * The session budget: how the Reporting Service sessions that all deployed functions may hold at once
 * (`service.sessionBudget`, 3 or 4; the service allows 5 per user, so a person can still sign in) are shared out.
 *
 * - The scheduled functions (digest at :05, license alerts at :10, license report at :15, archive plan at 02:20) are
 *   staggered, each holds one session for its run and signs out when the run ends: together they get 1.
 * - The archive copiers keep their session between invocations (one per warm container, src/app/warm-client.ts),
 *   so the copy queue's maxConcurrency is the number of copier sessions: the rest of the budget, budget − 1.
 *
 * Total: (budget − 1) + 1 = budget. SQS event sources need a maxConcurrency of at least 2, which is why the budget is
 * at least 3. The plan step signs out before it queues the copy tasks, so it never holds a session while copiers do.
 * What this cannot bound: two scheduled runs that overlap (or a license sync upload during one) take one session
 * more, still under the service's 5 with the default budget; a copier that meets the limit hands its batch back to
 * the queue (item failures) instead of failing it.
 */
export function copierConcurrency(sessionBudget: number): number {
  const copiers = sessionBudget - 1;
  if (!Number.isInteger(sessionBudget) || copiers < 2)
    throw new RangeError(
      `service.sessionBudget: at least 3 (2 copiers and 1 scheduled function), got ${sessionBudget}`,
    );
  return copiers;
}
