/**
 * The Mailer port over nodemailer: SES v2 in AWS, SMTP as an option, and SMTP to the local sink. nodemailer builds
 * the MIME tree: multipart/alternative (text, then multipart/related holding the HTML and its inline `cid:` images),
 * inside multipart/mixed only when there are ordinary attachments too.
 */
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { createTransport, type Transporter } from 'nodemailer';
import type { Mailer, MailMessage } from '../../ports/mailer.ts';

export interface SmtpAuth {
  user: string;
  pass: string;
}

export interface SmtpMailerOptions {
  host: string;
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS is used when the server offers it. */
  secure: boolean;
  /** Fixed credentials, or a provider called before every message (e.g. a rotating Secrets Manager secret). */
  auth?: SmtpAuth | (() => Promise<SmtpAuth>);
  /** Reuse connections across messages (fixed credentials only); call `close()` when done. @default false */
  pool?: boolean;
}

export interface SesMailerOptions {
  region?: string;
  client?: SESv2Client;
}

/** A port message as nodemailer mail options (also used by the .eml file writer). */
export function toNodemailerMail(message: MailMessage) {
  return {
    from: message.from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    html: message.html,
    ...(message.headers ? { headers: message.headers } : {}),
    attachments: (message.attachments ?? []).map((a) => ({
      filename: a.filename,
      content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength),
      contentType: a.contentType,
      ...(a.cid !== undefined ? { cid: a.cid, contentDisposition: 'inline' as const } : {}),
    })),
    // Message content is data: never let it make nodemailer read a local file or fetch a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

type TransportFactory = () => Promise<{ transport: Transporter; closeAfterSend: boolean }>;

export class NodemailerMailer implements Mailer {
  readonly #factory: TransportFactory;
  #shared: Transporter | undefined;

  /** Sends through `transport`; or, given a factory, through a fresh transport per message (rotating credentials). */
  constructor(transport: Transporter | TransportFactory) {
    if (typeof transport === 'function') {
      this.#factory = transport;
    } else {
      this.#shared = transport;
      this.#factory = async () => ({ transport, closeAfterSend: false });
    }
  }

  async send(message: MailMessage): Promise<{ messageId: string }> {
    const { transport, closeAfterSend } = await this.#factory();
    try {
      const info = await transport.sendMail(toNodemailerMail(message));
      return { messageId: String(info.messageId) };
    } finally {
      if (closeAfterSend) transport.close();
    }
  }

  /** Closes the shared transport (pooled SMTP connections); a no-op for per-message transports. */
  close(): void {
    this.#shared?.close();
  }
}

/** SES v2 through nodemailer's SES transport (raw MIME, so inline images survive). */
export function sesMailer(opts: SesMailerOptions = {}): NodemailerMailer {
  const sesClient = opts.client ?? new SESv2Client(opts.region ? { region: opts.region } : {});
  return new NodemailerMailer(createTransport({ SES: { sesClient, SendEmailCommand } }));
}

export function smtpMailer(opts: SmtpMailerOptions): NodemailerMailer {
  const base = { host: opts.host, port: opts.port, secure: opts.secure };
  const { auth } = opts;
  if (typeof auth === 'function') {
    return new NodemailerMailer(async () => ({
      transport: createTransport({ ...base, auth: await auth() }),
      closeAfterSend: true,
    }));
  }
  const shared = { ...base, ...(auth ? { auth } : {}) };
  return new NodemailerMailer(opts.pool ? createTransport({ ...shared, pool: true }) : createTransport(shared));
}
