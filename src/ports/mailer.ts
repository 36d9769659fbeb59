/** Mail port: one fully rendered message out; adapters: SES v2 and SMTP (nodemailer), the local SMTP sink. */
export interface MailAttachment {
  filename: string;
  content: Uint8Array;
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
}

export interface Mailer {
  send(message: MailMessage): Promise<{ messageId: string }>;
}
