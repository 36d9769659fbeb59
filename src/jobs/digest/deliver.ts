/**
 * Exactly once per (digest, ISO week, recipient): each send is claimed in the ledger first (a conditional write),
 * completed after the mail went out, and released when it failed so a later run retries. Retries and a second
 * scheduler racing this one are therefore safe.
 */
import type { Ledger } from '../../ports/ledger.ts';
import type { Logger } from '../../ports/logger.ts';
import type { Mailer, MailMessage } from '../../ports/mailer.ts';

export const digestLedgerKey = (digestId: string, isoWeek: string, address: string) =>
  `digest#${digestId}#${isoWeek}#${address.toLowerCase()}`;

export type DeliveryOutcome = 'sent' | 'alreadySent' | 'failed';

export async function deliverOnce(
  ledger: Ledger,
  mailer: Mailer,
  key: string,
  message: MailMessage,
  logger: Logger,
): Promise<{ outcome: DeliveryOutcome; error?: string }> {
  const claim = await ledger.claim(key);
  // `busy`: another run holds the claim right now; it will send (or release for a later retry).
  if (claim.outcome !== 'claimed') return { outcome: 'alreadySent' };
  try {
    const { messageId } = await mailer.send(message);
    await ledger.complete(key, { messageId, sentAt: new Date().toISOString() });
    logger.info('digest sent', { key, messageId });
    return { outcome: 'sent' };
  } catch (e) {
    await ledger.release(key).catch(() => {});
    const error = `${(e as Error).name}: ${(e as Error).message}`;
    logger.error('digest not sent', { key, error });
    return { outcome: 'failed', error };
  }
}
