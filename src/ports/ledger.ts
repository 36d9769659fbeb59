/**
 * Ledger port: exactly-once bookkeeping for anything Pulse sends (a digest per ISO week and recipient, a license
 * alert per key and stage, a failure notice per day). Claims are conditional writes, so two schedulers racing on the
 * same key cannot both win. Adapter: DynamoDB (also against dynalite locally).
 */
export type ClaimResult =
  /** This caller now owns the key (state in-progress) and must call `complete` or `release`. */
  | { outcome: 'claimed' }
  /** The work was already done; `detail` is what `complete` recorded. */
  | { outcome: 'done'; detail: Record<string, unknown> }
  /** Another caller holds a claim that has not expired yet. */
  | { outcome: 'busy'; claimedAt: string };

export interface Ledger {
  /**
   * Claims `key` if it is new, or if an earlier claim is older than `leaseSeconds` (its owner died). `expiresInDays`
   * sets the record's TTL.
   */
  claim(key: string, opts?: { leaseSeconds?: number; expiresInDays?: number }): Promise<ClaimResult>;
  /** Marks a claimed key as done (in-progress → done); fails if the caller no longer holds the claim. */
  complete(key: string, detail: Record<string, unknown>): Promise<void>;
  /** Gives a claim back after a failure, so a later run may try again. */
  release(key: string): Promise<void>;
  /** The record of a key, if any. */
  get(key: string): Promise<{ state: 'in-progress' | 'done'; detail?: Record<string, unknown> } | undefined>;
}
