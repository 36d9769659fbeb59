/**
 * Digest runs over the real local peers (emulator, dynalite, s3rver, SMTP sink) on 127.0.0.1: a test config pointed at
 * them, the same ports the local runtime builds (a fresh ReportingClient per run), and readers for what arrived in
 * the sink, parsed with mailparser plus a small MIME tree so the multipart structure itself can be checked.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { expect } from 'vitest';
import type { DynamoDbLedger } from '../../src/adapters/aws/dynamodb-ledger.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { type LocalPeers, startLocalPeers } from '../../src/adapters/local/local-peers.ts';
import type { SinkReaction } from '../../src/adapters/local/sink-mail-events.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import { decodePng, isBlank } from '../../src/charts/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { type Clock, fixedClock } from '../../src/ports/clock.ts';
import type { JobPorts } from '../../src/ports/job-ports.ts';

import { DIGEST_TODAY } from './digest-dates.ts';

export { CURRENT_WEEK, DIGEST_TODAY, LAST_WEEK } from './digest-dates.ts';
/** Monday 10:00 UTC: after the default 08:00 UTC send time. */
export const AFTER_SEND = fixedClock(`${DIGEST_TODAY}T10:00:00Z`);

export interface LocalDigest {
  peers: LocalPeers;
  config: PulseConfig;
  /** Every log line of every run (JSON lines), to check that no secret is ever logged. */
  logLines: string[];
  /** Ports as the local runtime builds them, with a new client (own session) per call. */
  ports(clock?: Clock): JobPorts & { ledger: DynamoDbLedger };
  /** Messages received by the SMTP sink so far, parsed, optionally only those with this X-Pulse-Digest. */
  mails(digestId?: string): Promise<ReceivedMail[]>;
  close(): Promise<void>;
}

export interface ReceivedMail {
  raw: string;
  parsed: ParsedMail;
  to: string;
}

/** `digests` and `products` as in pulse.config.json; the service, archive and state point at the peers. */
export async function startLocalDigest(opts: {
  digests: Record<string, unknown>[];
  products?: { id: string; name?: string }[];
  clients?: number;
  /** Registry keys generated beyond the planted ones (the emulator's `registryKeys`). */
  registryKeys?: number;
  /** The emulator's password (default: the emulator's own). */
  password?: string;
  /** Addresses the SMTP sink bounces or complains for (local-peers.ts `mailReactions`). */
  mailReactions?: Record<string, SinkReaction>;
}): Promise<LocalDigest> {
  const workDir = await mkdtemp(join(tmpdir(), 'pulse-digest-'));
  const peers = await startLocalPeers({
    workDir,
    emulator: {
      clients: opts.clients ?? 400,
      seed: 7,
      today: DIGEST_TODAY,
      maxSessionsPerUser: 20,
      ...(opts.registryKeys !== undefined ? { registryKeys: opts.registryKeys } : {}),
      ...(opts.password !== undefined ? { password: opts.password } : {}),
    },
    ...(opts.mailReactions ? { mailReactions: opts.mailReactions } : {}),
  });
  const emu = peers.emulator;
  const config = parseConfig({
    service: {
      baseUrl: emu.baseUrl,
      origin: emu.origin,
      headerPrefix: emu.headerPrefix,
      credentials: { source: 'env' },
      // A failed call must fail at once: the guard tests inject errors that retries would only repeat.
      maxRetries: 0,
      concurrency: 4,
    },
    products: opts.products ?? emu.products.map((p) => ({ id: p.productId, name: p.productName })),
    mail: { from: 'pulse@example.com', transport: { kind: 'smtp', host: peers.smtp.host, port: peers.smtp.port } },
    archive: { bucket: peers.bucket, prefix: 'pulse' },
    state: { tableName: peers.tableName },
    digests: opts.digests,
  });
  const logLines: string[] = [];
  const logger = new ConsoleLogger({ service: 'pulse', level: 'debug', write: (line) => logLines.push(line) });
  return {
    peers,
    config,
    logLines,
    ports: (clock = AFTER_SEND) => ({
      client: reportingClientFor(config.service, () => emu.credentials, logger),
      mailer: peers.mailer,
      ledger: peers.ledger,
      suppressions: peers.suppressions,
      archive: peers.archive,
      clock,
      logger,
    }),
    async mails(digestId) {
      const all = await Promise.all(
        peers.sink.messages().map(async (m) => {
          const raw = await readFile(m.emlFile, 'utf8');
          // keepCidLinks: the HTML as sent, not with its images turned into data URIs.
          return { raw, parsed: await simpleParser(raw, { keepCidLinks: true }), to: m.to.join(',') };
        }),
      );
      return digestId === undefined ? all : all.filter((m) => m.parsed.headers.get('x-pulse-digest') === digestId);
    },
    async close() {
      await peers.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}

export const isNotice = (m: ReceivedMail) => m.parsed.headers.get('x-pulse-notice') === 'held';

export interface MimeNode {
  /** Media type, lower case: `multipart/related`, `image/png`. */
  type: string;
  headers: Record<string, string>;
  children: MimeNode[];
}

/** The MIME tree of a raw message (headers unfolded, multiparts split on their boundary); bodies are not decoded. */
export function mimeTree(raw: string): MimeNode {
  const split = raw.indexOf('\r\n\r\n');
  const head = (split < 0 ? raw : raw.slice(0, split)).replace(/\r\n[ \t]+/g, ' ');
  const body = split < 0 ? '' : raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const contentType = headers['content-type'] ?? 'text/plain';
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (!type.startsWith('multipart/') || boundary === undefined) return { type, headers, children: [] };
  // Between the first delimiter and the closing `--boundary--`; each part starts after the delimiter's CRLF.
  const parts = body.split(`--${boundary}`).slice(1, -1);
  return { type, headers, children: parts.map((p) => mimeTree(p.replace(/^\r\n/, ''))) };
}

/** `<img src="cid:…">` references in an HTML body. */
export const cidReferences = (html: string): string[] =>
  [...html.matchAll(/["']cid:([^"']+)["']/g)].map((m) => m[1]!).sort();

/**
 * The digest's MIME contract: multipart/alternative of a text part and a multipart/related holding the HTML and the
 * inline PNGs; every image is referenced by `cid:` in the HTML and every reference has its image; each image is a
 * valid PNG that shows data (not only text and gridlines).
 */
export function expectWellFormedDigest(mail: ReceivedMail): void {
  const tree = mimeTree(mail.raw);
  expect(tree.type).toBe('multipart/alternative');
  expect(tree.children.map((c) => c.type)).toEqual(['text/plain', 'multipart/related']);
  const related = tree.children[1]!;
  expect(related.children[0]?.type).toBe('text/html');
  const inline = related.children.slice(1);
  expect(inline.length).toBeGreaterThan(0);
  for (const part of inline) {
    expect(part.type).toBe('image/png');
    expect(part.headers['content-id']).toMatch(/^<[^<>]+>$/);
  }

  const { parsed } = mail;
  expect(typeof parsed.html).toBe('string');
  expect(parsed.text ?? '').not.toBe('');
  const html = parsed.html as string;
  const attached = parsed.attachments.map((a) => a.cid ?? '').sort();
  expect(attached).toHaveLength(inline.length);
  expect([...new Set(cidReferences(html))]).toEqual(attached);
  for (const a of parsed.attachments) {
    expect(a.contentType).toBe('image/png');
    expect(a.related).toBe(true);
    const png = new Uint8Array(a.content);
    expect(decodePng(png).width).toBeGreaterThan(0);
    expect(isBlank(png), `${a.cid} is blank`).toBe(false);
  }
  // Nothing remote or scripted: images travel with the message.
  expect(html).not.toMatch(/<script|src=["']https?:|src=["']data:/i);
}
