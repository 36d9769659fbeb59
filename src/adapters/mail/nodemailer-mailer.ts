/**
 * The Mailer port over nodemailer: SES v2 in AWS, SMTP as an option, and SMTP to the local sink. nodemailer builds
 * the MIME tree: multipart/alternative (text, then multipart/related holding the HTML and its inline `cid:` images),
 * inside multipart/mixed only when there are ordinary attachments too. A message's delivery (its ledger key) goes
 * out as an SES message tag, with the configuration set whose events report bounces and complaints, or over SMTP as
 * a header (src/core/delivery/delivery-tag.ts).
 */
import { Readable } from 'node:stream';
import { SESv2Client, SendEmailCommand } from '@aws-sdk/client-sesv2';
import { createTransport, type Transporter } from 'nodemailer';
import { DELIVERY_HEADER, DELIVERY_TAG, deliveryTagOf } from '../../core/delivery/delivery-tag.ts';
import { type Mailer, type MailMessage, MailNotSentError } from '../../ports/mailer.ts';

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
  /** Every message is sent with it, so SES publishes its bounces, complaints and rejects (mail.transport). */
  configurationSet?: string;
}

/** How a transport carries a message's delivery: SES's own tags (and configuration set), or a header. */
type DeliveryMarking = { via: 'ses'; configurationSet?: string | undefined } | { via: 'header' };

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
      content:
        a.content instanceof Uint8Array
          ? Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength)
          : Readable.from(a.content),
      contentType: a.contentType,
      ...(a.cid !== undefined ? { cid: a.cid, contentDisposition: 'inline' as const } : {}),
    })),
    // Message content is data: never let it make nodemailer read a local file or fetch a URL.
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/** nodemailer codes of failures that happen before any byte of the message reaches the server. */
const BEFORE_MESSAGE_CODES = new Set([
  'EDNS',
  'ETLS',
  'EREQUIRETLS',
  'EENVELOPE',
  'EAUTH',
  'ENOAUTH',
  'EOAUTH2',
  'ECONFIG',
  'EPROXY',
  'EFILEACCESS',
  'EURLACCESS',
  'EMAXRECIPIENTS',
]);
/** System errors of a connection that never opened. */
const NEVER_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

/**
 * Whether a failed send certainly did not deliver: the server refused it with a 4xx/5xx reply (SMTP; SES answers
 * an HTTP 4xx), or it failed before the message's first byte left (connection, TLS, authentication, envelope, a
 * check nodemailer makes before sending). A connection lost or timed out mid-dialogue is not: nodemailer reports
 * one lost after the message was transmitted (before the server's 250) the same way as one lost before DATA.
 */
export function certainlyNotSent(e: unknown): boolean {
  const err = (e ?? {}) as {
    code?: string;
    originalCode?: string;
    responseCode?: number;
    command?: string;
    $metadata?: { httpStatusCode?: number };
  };
  if (typeof err.responseCode === 'number' && err.responseCode >= 400) return true;
  if (err.command === 'API') return true; // nodemailer's own checks and a closed connection, before any write
  if (err.code !== undefined && BEFORE_MESSAGE_CODES.has(err.code)) return true;
  if (NEVER_CONNECTED.has(err.originalCode ?? err.code ?? '')) return true;
  const status = err.$metadata?.httpStatusCode;
  return status !== undefined && status >= 400 && status < 500;
}

function describeSendError(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

type TransportFactory = () => Promise<{ transport: Transporter; closeAfterSend: boolean }>;

export class NodemailerMailer implements Mailer {
  readonly #factory: TransportFactory;
  readonly #marking: DeliveryMarking;
  #shared: Transporter | undefined;

  /** Sends through `transport`; or, given a factory, through a fresh transport per message (rotating credentials). */
  constructor(transport: Transporter | TransportFactory, marking: DeliveryMarking = { via: 'header' }) {
    this.#marking = marking;
    if (typeof transport === 'function') {
      this.#factory = transport;
    } else {
      this.#shared = transport;
      this.#factory = async () => ({ transport, closeAfterSend: false });
    }
  }

  async send(message: MailMessage): Promise<{ messageId: string }> {
    const { transport, closeAfterSend } = await this.#factory().catch((e: unknown) => {
      throw new MailNotSentError(`no mail transport: ${(e as Error).message}`, { cause: e });
    });
    try {
      const info = await transport.sendMail({ ...toNodemailerMail(message), ...this.#marks(message) });
      return { messageId: String(info.messageId) };
    } catch (e) {
      throw certainlyNotSent(e) ? new MailNotSentError(describeSendError(e), { cause: e }) : e;
    } finally {
      if (closeAfterSend) transport.close();
    }
  }

  /** The mail options that carry the message's delivery: `ses` (merged into SendEmail's input) or a header. */
  #marks(message: MailMessage) {
    const tag = message.delivery === undefined ? undefined : deliveryTagOf(message.delivery);
    if (this.#marking.via === 'header') {
      return tag === undefined ? {} : { headers: { ...message.headers, [DELIVERY_HEADER]: tag } };
    }
    const { configurationSet } = this.#marking;
    return {
      ses: {
        ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
        ...(tag !== undefined ? { EmailTags: [{ Name: DELIVERY_TAG, Value: tag }] } : {}),
      },
    };
  }

  /**
   * Checks the transport without sending: for SMTP, connect, EHLO (STARTTLS when offered) and authenticate when
   * credentials are set (`pulse doctor`). Throws what the server or the connection answered.
   */
  async verify(): Promise<void> {
    const { transport, closeAfterSend } = await this.#factory();
    try {
      await transport.verify();
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
  return new NodemailerMailer(createTransport({ SES: { sesClient, SendEmailCommand } }), {
    via: 'ses',
    configurationSet: opts.configurationSet,
  });
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
