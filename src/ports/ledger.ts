/**
 * Ledger port: at-most-once bookkeeping for anything Pulse sends (a digest per ISO week and recipient, a license
 * alert per key and stage, an owner notice). Claims are conditional writes, so of two schedulers racing on the same
 * key exactly one wins. Adapter: DynamoDB (also against dynalite locally).
 *
 * A record is `in-progress` (claimed, the send under way), `done` (sent, `complete` recorded it) or `unknown` (the
 * send may or may not have gone out). A claim that outlived its lease without `complete` is also `unknown`: its
 * holder died somewhere between claiming and recording, so nobody knows whether the message left. An `unknown`
 * record is never taken over automatically — only a deliberate `claim(key, { takeOverUnknown: true })` (an operator's
 * `--resend-unknown`) does that — because for email a missing message is visible and alarmed, a duplicate is not
 * undoable. See docs/delivery.md "Delivery states".
 */
export type ClaimResult =
  /** This caller now owns the key (in-progress) and must call `complete`, `release` or `markUnknown`. */
  | { outcome: 'claimed' }
  /** The work was already done; `detail` is what `complete` recorded. */
  | { outcome: 'done'; detail: Record<string, unknown> }
  /** Another caller holds a claim whose lease has not run out: it is sending right now. */
  | { outcome: 'busy'; claimedAt: string }
  /** A send whose outcome nobody knows (marked so, or a claim that outlived its lease): not claimed. */
  | { outcome: 'unknown'; claimedAt: string; reason: string };

export type LedgerRecord = (
  | { state: 'done'; detail: Record<string, unknown> }
  | { state: 'in-progress'; claimedAt: string }
  | { state: 'unknown'; claimedAt: string; reason: string }
) & {
  /** What mail servers and recipients reported after the send (bounces, complaints, rejects), oldest first. */
  mailEvents?: MailEventNote[];
};

/** A bounce, complaint or reject of a sent message (src/mail-events/), as its delivery's record keeps it. */
export interface MailEventNote {
  /** The event's own id: an event delivered twice is recorded once. */
  id: string;
  type: 'bounce' | 'complaint' | 'reject';
  /** When the mail server or recipient reported it (ISO 8601). */
  at: string;
  /** The recipients it names. */
  recipients: string[];
  /** What was reported: "Permanent/General: smtp; 550 5.1.1 user unknown", "complaint: abuse", "Bad content". */
  detail: string;
  /** Whether Pulse stops mailing the recipients for it (a hard bounce, a complaint). */
  suppressed: boolean;
}

export interface ClaimOptions {
  /** How long a claim counts as a live send; after that, without `complete`, it is `unknown`. */
  leaseSeconds?: number;
  /** The record's lifetime (TTL). */
  expiresInDays?: number;
  /** Claim an `unknown` record too (a deliberate resend); never set automatically. */
  takeOverUnknown?: boolean;
}

export interface Ledger {
  /** Claims `key` if it has no record (or, with `takeOverUnknown`, if its record is `unknown`). */
  claim(key: string, opts?: ClaimOptions): Promise<ClaimResult>;
  /** Records a claimed key as done (in-progress → done); fails if the caller no longer holds the claim. */
  complete(key: string, detail: Record<string, unknown>): Promise<void>;
  /** Gives a claim back when the message certainly did not go out, so a later run may send it. */
  release(key: string): Promise<void>;
  /** Keeps a claim as `unknown` when the message may have gone out: never resent without a person deciding. */
  markUnknown(key: string, reason: string): Promise<void>;
  /** The record of a key, if any, with an expired claim reported as `unknown`. */
  get(key: string, opts?: Pick<ClaimOptions, 'leaseSeconds'>): Promise<LedgerRecord | undefined>;
}

/** What the mail-events job adds to the ledger (the senders need none of it): a delivery's reported events. */
export interface MailEventRecorder {
  /**
   * Adds a mail event to the key's record without changing its state (or its claim); `noRecord` when the key has
   * none (never claimed, released, or expired), `alreadyRecorded` when the record has this event's id.
   */
  recordMailEvent(key: string, event: MailEventNote): Promise<'recorded' | 'alreadyRecorded' | 'noRecord'>;
}
