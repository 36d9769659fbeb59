/**
 * The digest's side of at-most-once delivery (deliver-once.ts): its ledger keys, how each delivery outcome counts in
 * the run's result, and the owner's notice of a delivery whose outcome is unknown (one per such delivery, itself
 * sent at most once).
 */
import type { DigestConfig, PulseConfig } from '../../config/schema.ts';
import { renderUnknownDeliveryNotice } from '../../render/index.ts';
import { type DeliveryPorts, deliverOnce } from '../deliver-once.ts';
import { ownerNoticeMessage } from './failure-notice.ts';

export const digestLedgerKey = (digestId: string, isoWeek: string, address: string) =>
  `digest#${digestId}#${isoWeek}#${address.toLowerCase()}`;

/** The owner is told once of each delivery whose outcome is unknown. */
export const unknownNoticeKey = (deliveryKey: string) => `notice-unknown#${deliveryKey}`;

export type DigestCounts = {
  sent: number;
  /** The ledger says sent (by an earlier run, or recorded by the operator with --confirm-unknown). */
  skippedAlreadySent: number;
  /** Recipients not sent because the guard failed. */
  held: number;
  /** Certainly not sent (the mail server refused, or was not reached); the next run sends. */
  failed: number;
  /** Sent now, but the ledger could not record it; never sent again automatically. */
  sentUnconfirmed: number;
  /** A send that may or may not have gone out; not sent again until someone decides (--resend-unknown). */
  unknown: number;
  /** Another run is sending to this recipient right now. */
  inProgressElsewhere: number;
  /** Unknown deliveries recorded as delivered with --confirm-unknown, without sending. */
  confirmed: number;
};

export const emptyDigestCounts = (): DigestCounts => ({
  sent: 0,
  skippedAlreadySent: 0,
  held: 0,
  failed: 0,
  sentUnconfirmed: 0,
  unknown: 0,
  inProgressElsewhere: 0,
  confirmed: 0,
});

/** How a delivery counts: the shared tally, with its default counter names (the digest's). */
export { tallyDelivery } from '../delivery-tally.ts';

export interface UnknownDelivery {
  address: string;
  claimedAt: string;
  reason: string;
}

/** Tells the digest's owner of one delivery whose outcome is unknown, once; returns an error line if that failed. */
export async function noticeUnknownDelivery(
  config: PulseConfig,
  digest: DigestConfig,
  isoWeek: string,
  unknown: UnknownDelivery,
  ports: DeliveryPorts,
): Promise<string | undefined> {
  const select = `pulse digest --digest ${digest.id} --week ${isoWeek}`;
  const notice = renderUnknownDeliveryNotice({
    digestId: digest.id,
    digestTitle: digest.title,
    isoWeek,
    address: unknown.address,
    claimedAt: unknown.claimedAt,
    reason: unknown.reason,
    resendCommand: `${select} --resend-unknown`,
    confirmCommand: `${select} --confirm-unknown`,
    footer: 'Sent by Pulse',
  });
  const key = unknownNoticeKey(digestLedgerKey(digest.id, isoWeek, unknown.address));
  const headers = { 'X-Pulse-Week': isoWeek, 'X-Pulse-Notice': 'delivery-unknown' };
  const sent = await deliverOnce(ports, key, ownerNoticeMessage(config, digest, notice, headers));
  if (sent.outcome === 'sent' || sent.outcome === 'alreadySent' || sent.outcome === 'inProgressElsewhere') return;
  return `${digest.id} ${isoWeek}: notice to ${digest.owner} of the unknown delivery to ${unknown.address}: ${sent.outcome}: ${sent.error ?? ''}`;
}
