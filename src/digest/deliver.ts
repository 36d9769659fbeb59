/**
 * The digest's side of at-most-once delivery (deliver-once.ts): its ledger keys, how each delivery outcome counts in
 * the run's result, and the owner's notice of a delivery whose outcome is unknown (one per such delivery, itself
 * sent at most once, through unknown-delivery-notice.ts like every sender's).
 */
import type { DigestConfig, PulseConfig } from '../config/schema.ts';
import { noticeChannelsOf } from '../core/channels/notice-channels.ts';
import { digestLabel } from '../core/delivery/delivery-label.ts';
import { digestLedgerKey } from '../core/delivery/ledger-keys.ts';
import { noticeUnknownDelivery, type UnknownDelivery } from '../core/delivery/unknown-delivery-notice.ts';

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
  /** Not sent: the recipient is on the suppression list (a hard bounce or a complaint) until an operator clears it. */
  suppressed: number;
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
  suppressed: 0,
});

/** Tells the digest's owner of one delivery whose outcome is unknown, once; returns an error line if that failed. */
export async function noticeUnknownDigestDelivery(
  config: PulseConfig,
  digest: DigestConfig,
  isoWeek: string,
  unknown: UnknownDelivery,
  ports: Parameters<typeof noticeUnknownDelivery>[0],
): Promise<string | undefined> {
  const problem = await noticeUnknownDelivery(
    ports,
    {
      ...digestLabel(digest, isoWeek),
      deliveryKey: digestLedgerKey(digest.id, isoWeek, unknown.address),
      from: config.mail.from,
      command: `pulse digest --digest ${digest.id} --week ${isoWeek}`,
      channels: noticeChannelsOf(config),
    },
    unknown,
  );
  return problem && `${digest.id} ${isoWeek}: ${problem}`;
}
