/**
 * Digests prepared end to end from the emulator's data — the real collect, figures, highlights, view, charts (the
 * real renderer), email and full report — for any number of products: product i of the digest reads the emulator's
 * product i mod 2 (the emulator has two), under its own id and name. What the email tests measure is then what a
 * run would send, not a hand-written sample.
 */

import { simpleParser } from 'mailparser';
import nodemailer from 'nodemailer';
import { type Emulator, startEmulator } from '../../emulator/index.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { toNodemailerMail } from '../../src/adapters/mail/nodemailer-mailer.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import type { ReportingClient } from '../../src/client/index.ts';
import { parseConfig } from '../../src/config/load.ts';
import { parseIsoWeek } from '../../src/core/calendar.ts';
import { type PreparedDigest, prepareDigest } from '../../src/digest/prepare.ts';
import { messageFor } from '../../src/digest/run-digest.ts';
import { DIGEST_TODAY, LAST_WEEK } from './digest-dates.ts';

const NAMES = [
  'Example Desktop',
  'Example Server',
  'Example Mobile Companion',
  'Example Cloud Sync',
  'Example Render Farm',
  'Example Asset Library',
  'Example Review Tool',
  'Example Scripting Console',
  'Example License Server',
  'Example Plugin Marketplace',
];

export interface RealDigests {
  emulator: Emulator;
  /** The digest of `count` products for 2026-W47; names may be replaced (hostile names). */
  prepare(count: number, opts?: { names?: string[]; viewInBrowserUrl?: string | null }): Promise<PreparedDigest>;
  /** The message as the SMTP transport would send it, and its HTML part's size in bytes as a reader's client gets it. */
  mime(prepared: PreparedDigest): Promise<{ raw: Buffer; htmlBytes: number; textBytes: number }>;
  close(): Promise<void>;
}

export async function startRealDigests(): Promise<RealDigests> {
  const emulator = await startEmulator({ clients: 400, seed: 7, today: DIGEST_TODAY, maxSessionsPerUser: 50 });
  const real = emulator.products.map((p) => p.productId);
  const logger = new ConsoleLogger({ service: 'pulse', level: 'error', write: () => {} });
  const configFor = (count: number, names: string[]) => {
    const ids = Array.from({ length: count }, (_, i) => String(20_000_000_000 + i));
    return parseConfig({
      service: {
        baseUrl: emulator.baseUrl,
        origin: emulator.origin,
        headerPrefix: emulator.headerPrefix,
        credentials: { source: 'env' },
        concurrency: 4,
      },
      products: ids.map((id, i) => ({ id, name: names[i] ?? NAMES[i % NAMES.length]! })),
      mail: { from: 'pulse@example.com', transport: { kind: 'smtp', host: '127.0.0.1', port: 25 } },
      digests: [
        {
          id: 'exec-weekly',
          title: 'Weekly executive digest',
          productIds: ids,
          recipients: [{ address: 'ceo@example.com' }],
          owner: 'owner@example.com',
        },
      ],
    });
  };
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  return {
    emulator,
    async prepare(count, opts = {}) {
      const config = configFor(count, opts.names ?? []);
      const ids = config.products.map((p) => p.id);
      const client = reportingClientFor(config.service, () => emulator.credentials, logger);
      // Each digest product reads one of the emulator's two products.
      const mapped = {
        withSession: (fn: (c: Pick<ReportingClient, 'call'>) => Promise<unknown>) =>
          client.withSession((c) =>
            fn({
              call: (id, args = {}) =>
                c.call(id, {
                  ...args,
                  ...(args.productId ? { productId: real[ids.indexOf(args.productId) % real.length]! } : {}),
                }),
            }),
          ),
      } as unknown as ReportingClient;
      return prepareDigest(config, config.digests[0]!, mapped, parseIsoWeek(LAST_WEEK), {
        now: new Date(`${DIGEST_TODAY}T10:00:00Z`),
        force: false,
        viewInBrowserUrl:
          opts.viewInBrowserUrl === undefined
            ? 'https://archive.example.com/pulse/digests/exec-weekly/2026-W47/index.html'
            : opts.viewInBrowserUrl,
      });
    },
    async mime(prepared) {
      const config = configFor(1, []);
      const message = messageFor(config, config.digests[0]!, prepared, 'ceo@example.com');
      const info = await transport.sendMail(toNodemailerMail(message));
      const raw = info.message as Buffer;
      const parsed = await simpleParser(raw, { keepCidLinks: true });
      return {
        raw,
        htmlBytes: Buffer.byteLength(parsed.html || ''),
        textBytes: Buffer.byteLength(parsed.text ?? ''),
      };
    },
    close: () => emulator.close(),
  };
}
