/**
 * At-most-once delivery of one email under one ledger key (`deliverOnce`), or under several keys already claimed
 * (`sendClaimed`: a license alert email carries many key stages, each claimed on its own): the one path every Pulse
 * sender takes. Chat channels take the same path with their own send (`claimKey`, `settleSend`;
 * src/core/channels/deliver-to-channel.ts). The states, and why email is at-most-once, are in docs/delivery.md "Delivery states".
 *
 * suppressed? → claim → send → complete. What can go wrong between the steps decides the outcome:
 * - the recipient is on the suppression list (a hard bounce or a complaint, src/mail-events/): nothing is
 *   claimed, so the next run after an operator cleared the address sends → `suppressed`;
 * - the claim is not ours: `alreadySent` (done), `inProgressElsewhere` (a live claim), `unknown` (an earlier send
 *   whose outcome nobody knows: never resent unless a person asks with `resendUnknown`);
 * - the send certainly did not go out (NotSentError: MailNotSentError, or a chat service's refusal): the claim is
 *   released and the next run sends → `failed`;
 * - the send may have gone out (any other error): the claim is kept as unknown → `unknown`;
 * - the send went out but `complete` keeps failing: the claim is left as it is, never released → `sentUnconfirmed`
 *   (a later run reads it as unknown once its lease is over and does not send again).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { forEachWithConcurrency } from '../../client/concurrency.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type { Ledger } from '../../ports/ledger.ts';
import type { Logger } from '../../ports/logger.ts';
import type { Mailer, MailMessage } from '../../ports/mailer.ts';
import { NotSentError } from '../../ports/not-sent.ts';
import { clearSuppressionCommand, type SuppressionList } from '../../ports/suppressions.ts';

/** Ledger calls in flight at once when many keys are settled together (a license alert email's claims). */
export const LEDGER_CALLS_IN_FLIGHT = 16;

export type DeliveryOutcome =
  | 'sent'
  | 'alreadySent'
  | 'inProgressElsewhere'
  | 'unknown'
  | 'sentUnconfirmed'
  | 'failed'
  | 'suppressed';

export interface Delivery {
  outcome: DeliveryOutcome;
  /** Why, for every outcome but `sent` and `alreadySent`. */
  error?: string;
  messageId?: string;
}

/** What sending under claims already held takes (`sendClaimed`). */
export interface SendPorts {
  ledger: Ledger;
  mailer: Mailer;
  logger: Logger;
  clock?: Clock;
}

/** What every delivery takes: the send's ports and the suppression list, read before anything is claimed. */
export interface DeliveryPorts extends SendPorts {
  suppressions: SuppressionList;
}

export interface DeliveryOptions {
  /** Send even when an earlier send's outcome is unknown: a person decided (`--resend-unknown`). */
  resendUnknown?: boolean;
  /** TTL of the ledger record. */
  expiresInDays?: number;
  /** Attempts at recording a sent message as done. @default 3 */
  completeAttempts?: number;
  /** Backoff before attempt n of `complete` is n × this. @default 200 */
  retryDelayMs?: number;
}

export async function deliverOnce(
  ports: DeliveryPorts,
  key: string,
  message: MailMessage,
  opts: DeliveryOptions = {},
): Promise<Delivery> {
  const suppressed = await suppressionOf(ports, message.to);
  if (suppressed) return suppressed;
  const claimed = await claimKey(ports, key, opts);
  if (claimed !== 'claimed') return claimed;

  return sendClaimed(ports, [key], { ...message, delivery: message.delivery ?? key }, opts);
}

/**
 * Claims `key` for one send: `'claimed'` when this caller now holds it, else what the key already is (sent, being
 * sent elsewhere, unknown) or `failed` when the ledger could not be asked (nothing claimed: the next run tries).
 */
export async function claimKey(
  ports: Pick<SendPorts, 'ledger' | 'logger'>,
  key: string,
  opts: Pick<DeliveryOptions, 'resendUnknown' | 'expiresInDays'> = {},
): Promise<'claimed' | Delivery> {
  let claim: Awaited<ReturnType<Ledger['claim']>>;
  try {
    claim = await ports.ledger.claim(key, {
      ...(opts.resendUnknown ? { takeOverUnknown: true } : {}),
      ...(opts.expiresInDays !== undefined ? { expiresInDays: opts.expiresInDays } : {}),
    });
  } catch (e) {
    // Nothing claimed, nothing sent: the next run tries again.
    return failed(ports.logger, key, `ledger claim failed: ${describe(e)}`);
  }
  if (claim.outcome === 'done') return { outcome: 'alreadySent' };
  if (claim.outcome === 'busy') {
    return { outcome: 'inProgressElsewhere', error: `another run has been sending since ${claim.claimedAt}` };
  }
  if (claim.outcome === 'unknown') return { outcome: 'unknown', error: unknownError(claim.claimedAt, claim.reason) };
  return 'claimed';
}

/**
 * `suppressed` (or `failed`, when the list cannot be read) if `address` must not be mailed; undefined if it may.
 * Every sender asks before it claims anything (deliverOnce; the license alerts before their claims).
 */
export async function suppressionOf(
  ports: Pick<DeliveryPorts, 'suppressions' | 'logger'>,
  address: string,
): Promise<Delivery | undefined> {
  let entry: Awaited<ReturnType<SuppressionList['get']>>;
  try {
    entry = await ports.suppressions.get(address);
  } catch (e) {
    // Nothing claimed, nothing sent: the next run asks again.
    return failed(ports.logger, address, `suppression list not read: ${describe(e)}`);
  }
  if (entry === undefined) return undefined;
  const why = entry.reason === 'bounce' ? 'a hard bounce' : 'a complaint';
  return {
    outcome: 'suppressed',
    error:
      `${entry.address} is suppressed since ${entry.since} after ${why} (${entry.detail}; delivery ${entry.deliveryKey}); ` +
      `not sent. Once the address works again, run \`${clearSuppressionCommand(entry.address)}\``,
  };
}

/**
 * `--confirm-unknown`: a person checked the mail server's log and the message arrived; record the unknown key as
 * done without sending. Returns what the key now is (settled by someone else in the meantime: `alreadySent` or
 * `inProgressElsewhere`).
 */
export async function confirmUnknown(
  ports: { ledger: Ledger; clock: Clock },
  key: string,
): Promise<'confirmed' | 'alreadySent' | 'inProgressElsewhere'> {
  const claim = await ports.ledger.claim(key, { takeOverUnknown: true });
  if (claim.outcome === 'done') return 'alreadySent';
  if (claim.outcome !== 'claimed') return 'inProgressElsewhere';
  await ports.ledger.complete(key, { confirmedByOperator: true, confirmedAt: ports.clock.now().toISOString() });
  return 'confirmed';
}

/**
 * Sends `message` under claims this caller holds (`keys`, from `ledger.claim`), settled as `settleSend` says.
 */
export async function sendClaimed(
  ports: SendPorts,
  keys: Iterable<string> | AsyncIterable<string>,
  message: MailMessage,
  opts: Pick<DeliveryOptions, 'resendUnknown' | 'completeAttempts' | 'retryDelayMs'> = {},
): Promise<Delivery> {
  return settleSend(ports, keys, () => ports.mailer.send(message), opts);
}

/** What any send under claims reports: the id the receiver gave it. A NotSentError means it certainly did not go. */
export type Send = () => Promise<{ messageId: string }>;

/**
 * Runs `send` under claims this caller holds (`keys`) and settles every key the same way: complete after a send,
 * release when it certainly did not go out (NotSentError), unknown when it may have. `keys` is read once, after the
 * send: a license alert's claims come from a file, not from memory.
 */
export async function settleSend(
  ports: Omit<SendPorts, 'mailer'>,
  keys: Iterable<string> | AsyncIterable<string>,
  send: Send,
  opts: Pick<DeliveryOptions, 'resendUnknown' | 'completeAttempts' | 'retryDelayMs'> & {
    /** Who may have taken an uncertain send, for its reason: "the mail server" (default), "Slack channel ops". */
    receiver?: string;
  } = {},
): Promise<Delivery> {
  const { ledger, logger } = ports;
  let messageId: string;
  try {
    ({ messageId } = await send());
  } catch (e) {
    if (e instanceof NotSentError) {
      // A release that fails leaves the claim to expire into `unknown`: visible, never a duplicate.
      const settled = await eachKey(keys, (key) =>
        ledger.release(key).catch((r: unknown) => logger.error('ledger release failed', { key, error: describe(r) })),
      );
      return failed(logger, settled.label, describe(e));
    }
    const reason = `${opts.receiver ?? 'the mail server'} may have taken it: ${describe(e)}`;
    const settled = await eachKey(keys, (key) =>
      ledger
        .markUnknown(key, reason)
        .catch((r: unknown) => logger.error('ledger mark-unknown failed', { key, error: describe(r) })),
    );
    logger.error('delivery unknown', { key: settled.label, error: describe(e) });
    return { outcome: 'unknown', error: reason };
  }

  const sentAt = (ports.clock ?? systemClock).now().toISOString();
  const detail = { messageId, sentAt, ...(opts.resendUnknown ? { resentAfterUnknown: true } : {}) };
  let unrecorded = 0;
  const settled = await eachKey(keys, async (key) => {
    const error = await completeWithRetries(ledger, key, detail, opts);
    if (error === undefined) return;
    unrecorded++;
    logger.error('sent but unconfirmed', { key, messageId, error });
  });
  if (unrecorded === 0) {
    logger.info('sent', { key: settled.label, messageId });
    return { outcome: 'sent', messageId };
  }
  const which = settled.count === 1 ? '' : ` (${unrecorded} of ${settled.count} keys)`;
  return { outcome: 'sentUnconfirmed', messageId, error: `sent (${messageId}) but not recorded in the ledger${which}` };
}

/**
 * `call` for every key, LEDGER_CALLS_IN_FLIGHT at a time: a license alert email may carry thousands of keys, and
 * one round trip after another would take minutes. The calls here never reject (their errors are handled inside).
 * Returns how many keys there were and a label for the log ("k1 and 41 more").
 */
async function eachKey(
  keys: Iterable<string> | AsyncIterable<string>,
  call: (key: string) => Promise<unknown>,
): Promise<{ count: number; label: string }> {
  let count = 0;
  let first = '';
  await forEachWithConcurrency(keys, LEDGER_CALLS_IN_FLIGHT, async (key, i) => {
    if (i === 0) first = key;
    count++;
    await call(key);
  });
  return { count, label: count === 1 ? first : `${first} and ${count - 1} more` };
}

/** Records a sent key as done, retrying what may pass; the last error when it never succeeded. */
async function completeWithRetries(
  ledger: Ledger,
  key: string,
  detail: Record<string, unknown>,
  opts: Pick<DeliveryOptions, 'completeAttempts' | 'retryDelayMs'>,
): Promise<string | undefined> {
  const attempts = opts.completeAttempts ?? 3;
  for (let n = 1; ; n++) {
    try {
      await ledger.complete(key, detail);
      return undefined;
    } catch (e) {
      // A claim taken over cannot be completed by retrying; anything else (throttling, a timeout) may pass.
      if (n >= attempts || (e as Error).name === 'ClaimLostError') return describe(e);
      await sleep((opts.retryDelayMs ?? 200) * n);
    }
  }
}

function unknownError(claimedAt: string, reason: string): string {
  return `an earlier send (claimed ${claimedAt}) may or may not have gone out: ${reason}`;
}

function failed(logger: Logger, key: string, error: string): Delivery {
  logger.error('not sent', { key, error });
  return { outcome: 'failed', error };
}

function describe(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
