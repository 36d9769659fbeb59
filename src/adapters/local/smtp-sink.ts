/**
 * The local SMTP sink: an SMTP server on 127.0.0.1 that accepts every message (no auth, no TLS) and writes it to the
 * outbox as `<timestamp>-<seq>-<recipient>.eml` (raw) plus `.html` (its HTML body). Files are written to a temporary
 * name and renamed, and the `.html` lands before the `.eml`, so a reader that sees the `.eml` sees a complete pair.
 * The `.html` is for opening in a browser: mailparser inlines its `cid:` images as data URIs (the `.eml` keeps the
 * message exactly as sent). Recipient addresses come from the SMTP client: they are reduced to a safe file-name
 * fragment, never a path.
 *
 * Told to bounce (hard) or complain for some addresses (`reactions`), it still accepts and keeps the message, as a
 * real mail server accepts before the recipient's bounces or complains, and queues the event SES would publish
 * (sink-mail-events.ts) for the local run to hand to the mail-events job (`takeMailEvents`).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { basename, join } from 'node:path';
import { simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { DELIVERY_HEADER } from '../../core/delivery/delivery-tag.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import { safeFileFragment } from './file-names.ts';
import { type SesEventBridgeEvent, type SinkReaction, sesEventFor } from './sink-mail-events.ts';

export interface SmtpSinkOptions {
  outboxDir: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
  /** Largest accepted message. @default 25 MiB */
  maxMessageBytes?: number;
  clock?: Clock;
  /** Addresses (any case) whose messages bounce for good or are reported as spam, after being accepted. */
  reactions?: Record<string, SinkReaction>;
}

export interface ParsedSummary {
  emlFile: string;
  htmlFile?: string;
  from: string;
  to: string[];
  subject: string;
  messageId?: string;
  attachments: number;
  receivedAt: string;
}

export interface SmtpSink {
  host: string;
  port: number;
  outboxDir: string;
  /** Summaries of the messages received so far, oldest first. */
  messages(): ParsedSummary[];
  /** The SES events of the bounces and complaints since the last call, oldest first (and forgets them). */
  takeMailEvents(): SesEventBridgeEvent[];
  close(): Promise<void>;
}

export { safeFileFragment } from './file-names.ts';

async function writeAtomically(path: string, data: string | Uint8Array): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

async function readAll(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  if (stream.sizeExceeded) throw Object.assign(new Error('message too large'), { responseCode: 552 });
  return Buffer.concat(chunks);
}

export async function startSmtpSink(opts: SmtpSinkOptions): Promise<SmtpSink> {
  const outboxDir = opts.outboxDir;
  const clock = opts.clock ?? systemClock;
  await mkdir(outboxDir, { recursive: true });
  const received: ParsedSummary[] = [];
  const reactions = new Map(Object.entries(opts.reactions ?? {}).map(([a, r]) => [a.toLowerCase(), r]));
  let pending: SesEventBridgeEvent[] = [];
  let seq = 0;

  const store = async (raw: Buffer, session: SMTPServerSession): Promise<void> => {
    const parsed = await simpleParser(raw);
    const now = clock.now();
    const recipients = session.envelope.rcptTo.map((r) => r.address);
    const stamp = now.toISOString().replace(/[-:.]/g, '');
    const more = recipients.length > 1 ? `-and-${recipients.length - 1}-more` : '';
    const name = `${stamp}-${String(++seq).padStart(4, '0')}-${safeFileFragment(recipients[0] ?? '')}${more}`;
    // basename() is the second line of defence: whatever the name, it stays inside the outbox.
    const emlFile = join(outboxDir, basename(`${name}.eml`));
    let htmlFile: string | undefined;
    if (typeof parsed.html === 'string') {
      htmlFile = join(outboxDir, basename(`${name}.html`));
      await writeAtomically(htmlFile, parsed.html);
    }
    await writeAtomically(emlFile, raw);
    const from = session.envelope.mailFrom;
    received.push({
      emlFile,
      ...(htmlFile ? { htmlFile } : {}),
      from: from ? from.address : '',
      to: recipients,
      subject: parsed.subject ?? '',
      ...(parsed.messageId ? { messageId: parsed.messageId } : {}),
      attachments: parsed.attachments.length,
      receivedAt: now.toISOString(),
    });
    const tag = parsed.headers.get(DELIVERY_HEADER.toLowerCase());
    const sent = {
      messageId: (parsed.messageId ?? `${name}@sink`).replace(/^<|>$/g, ''),
      from: from ? from.address : '',
      to: recipients,
      deliveryTag: typeof tag === 'string' ? tag : undefined,
      sentAt: now,
    };
    for (const to of recipients) {
      const reaction = reactions.get(to.toLowerCase());
      if (reaction) pending.push(sesEventFor(reaction, to, sent, clock.now()));
    }
  };

  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    disableReverseLookup: true, // 127.0.0.1 only; a DNS lookup per connection just costs time
    size: opts.maxMessageBytes ?? 25 * 1024 * 1024,
    onData(stream, session, callback) {
      readAll(stream)
        .then((raw) => store(raw, session))
        .then(
          () => callback(),
          (e: Error) => callback(e),
        );
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    outboxDir,
    messages: () => received.map((m) => ({ ...m, to: [...m.to] })),
    takeMailEvents: () => {
      const taken = pending;
      pending = [];
      return taken;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
