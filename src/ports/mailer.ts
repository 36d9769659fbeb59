/** Mail port: one fully rendered message out; adapters: SES v2 and SMTP (nodemailer), the local SMTP sink. */
import { NotSentError } from './not-sent.ts';

export interface MailAttachment {
  filename: string;
  /** The bytes, or a stream of them read once when the message is sent (a large CSV built on disk). */
  content: Uint8Array | AsyncIterable<Uint8Array>;
  contentType: string;
  /** Content-ID for inline images referenced as `cid:<cid>` in the HTML. */
  cid?: string;
}

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
  attachments?: MailAttachment[];
  /** Extra headers, e.g. `X-Pulse-Digest`. */
  headers?: Record<string, string>;
  /**
   * The ledger key of the delivery this message is (deliver-once.ts sets it): the mailer sends it as the SES tag
   * or SMTP header of src/core/delivery/delivery-tag.ts, so a bounce or complaint can be matched back to it.
   */
  delivery?: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<{ messageId: string }>;
}

/**
 * `send` failed and the message certainly did not reach the mail server (refused before the first byte of the
 * message, or answered with a 4xx/5xx reply): sending it again later cannot make a duplicate. Adapters throw this
 * only when they know; any other error from `send` means the message may have gone out.
 */
export class MailNotSentError extends NotSentError {
  override name = 'MailNotSentError';
}
