/**
 * The local channel sinks: one HTTP server on 127.0.0.1 standing in for Slack incoming webhooks
 * (`POST /slack/<id>`), Teams Workflows triggers (`/teams/<id>`) and signed-webhook receivers (`/webhook/<id>`), so a
 * local run (`npm start`) sends every channel message somewhere that answers as the service does where tests need
 * it: Slack's 200 `ok` and its 400 codes for a payload over a documented limit, Teams' 202 and 400/413, a receiver
 * that verifies the Standard Webhooks signature with the reference library and counts repeated ids. A fault profile
 * (channel-faults.ts) makes it rate-limit, fail, refuse, or take a message and never answer.
 *
 * It is also the local `ChannelSecrets`: every channel's URL points here and a webhook channel's signing secret is
 * derived from its id, so the sink can check signatures without being told (a local stand-in, not a secret).
 *
 * Every delivered post lands in the outbox beside the emails: `<outbox>/channels/<id>/NNN-<kind>-<event>.json` (the
 * payload and the headers that matter) and `.html` (a preview, channel-preview.ts), the .html first and each
 * renamed into place, so whoever sees the .json sees both. NNN continues after the files already there, so a second
 * run adds to the first; two sinks writing one outbox at the same time are not supported.
 * `received` records every post on a channel route, delivered or not, for tests and the chaos runner to check
 * at-most-once (chat) and at-least-once (webhooks) delivery.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { ChannelId } from '../../config/channels-schema.ts';
import { WEBHOOK_LIMITS } from '../../core/channels/limits.ts';
import type { ChannelEndpoint, ChannelKind, ChannelRef, ChannelSecrets } from '../../ports/channels.ts';
import { type Clock, systemClock } from '../../ports/clock.ts';
import type { Logger } from '../../ports/logger.ts';
import {
  type ChannelFault,
  type ChannelFaultControl,
  type ChannelFaultProfile,
  ChannelFaults,
} from './channel-faults.ts';
import { renderChannelPreview, writePreviewAssets } from './channel-preview.ts';
import { checkSlackPayload, checkTeamsPayload } from './channel-sink-limits.ts';

export interface ChannelSinkOptions {
  /** The outbox (`<workDir>/outbox`); messages go to its `channels/` folder. */
  outboxDir: string;
  /** A random fault profile from the start (the chaos runner); scripts are added with `sink.faults.script`. */
  faults?: ChannelFaultProfile;
  logger?: Logger;
  clock?: Clock;
}

/** One post to a channel route, in the order received. */
export interface ReceivedPost {
  channel: string;
  kind: ChannelKind;
  receivedAt: string;
  /** The body parsed as JSON; undefined when it was not JSON (or too large to read). */
  body: unknown;
  bytes: number;
  /** Request headers, lower-case names. */
  headers: Record<string, string>;
  /** The fault the post met, if any. */
  fault?: ChannelFault;
  /** The answer's status; absent when a `timeout` or `drop` fault kept the answer back. */
  status?: number;
  /** Whether the channel took the message: it would show it (chat) or has it (webhook), answered or not. */
  delivered: boolean;
  /** Why it was refused: the limit or signature problem Slack's bare code does not say. */
  detail?: string;
  /** Webhooks: the `webhook-id`, whether the signature verified, whether this channel had delivered that id before. */
  webhook?: { id: string; verified: boolean; duplicate: boolean };
  /** The outbox files written for it (JSON and HTML), absolute paths. */
  files: string[];
}

/** The local ChannelSecrets: also takes a bare `{ id, kind }` (the sink needs nothing else). */
export interface LocalChannelSecrets extends ChannelSecrets {
  endpointOf(channel: Pick<ChannelRef, 'id' | 'kind'>): Promise<ChannelEndpoint>;
}

export interface ChannelSink {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  outboxDir: string;
  secrets: LocalChannelSecrets;
  /** Every post on a channel route, oldest first (a live list). */
  received: readonly ReceivedPost[];
  faults: ChannelFaultControl;
  /** Delivered webhook posts whose id the channel had delivered before (legal: at-least-once). */
  duplicates(channelId?: string): number;
  /** Resolves once every post received so far is handled: recorded, its files written. */
  idle(): Promise<void>;
  /** Stops the server and closes every connection, held ones (a `timeout` fault) included. */
  close(): Promise<void>;
}

/** Bodies above this are not kept (every service's limit is far below). */
const MAX_BODY_BYTES = 1024 * 1024;
const ROUTE = /^\/(slack|teams|webhook)\/([^/]+)$/;
/** Headers the outbox JSON keeps: what a reader of the payload needs, nothing about the connection. */
const KEPT_HEADER = /^(content-type|webhook-.*|x-pulse-delivery)$/;

/** A webhook channel's local signing secret: 32 bytes derived from its id, so the sink and the sender agree. */
/** Standard Webhooks' window: a timestamp further than this from the receiver's clock is refused (a replay). */
export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

/**
 * A Standard Webhooks receiver's check, at the sink's clock: the library's own `verify` reads Date.now(), and a sink
 * given a clock (a test of runs at a fixed time) judges the timestamp by that clock. The signature is still the
 * library's (`sign`), so a sender that signs wrongly is refused here as by any receiver using the library.
 */
export function verifyWebhookAt(secret: string, raw: string, headers: Record<string, string>, now: Date): void {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = headers['webhook-signature'];
  if (!id || !signatures || !Number.isInteger(timestamp)) throw new Error('Missing required headers');
  // The library's words, so a receiver's log reads the same whichever check refused it.
  const age = now.getTime() / 1000 - timestamp;
  if (age > WEBHOOK_TOLERANCE_SECONDS) throw new Error('Message timestamp too old');
  if (age < -WEBHOOK_TOLERANCE_SECONDS) throw new Error('Message timestamp too new');
  const expected = new Webhook(secret).sign(id, new Date(timestamp * 1000), raw);
  if (!signatures.split(' ').includes(expected)) throw new Error('No matching signature found');
}

export function localSigningSecret(channelId: string): string {
  return `whsec_${createHash('sha256').update(`pulse local channel sink\u0000${channelId}`).digest('base64')}`;
}

interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

interface Verdict {
  answer: Answer;
  delivered: boolean;
  body: unknown;
  detail?: string;
  webhook?: ReceivedPost['webhook'];
}

const text = (status: number, body: string): Answer => ({ status, body, headers: { 'content-type': 'text/plain' } });
const json = (status: number, code: string, message: string): Answer => ({
  status,
  body: JSON.stringify({ error: { code, message } }),
  headers: { 'content-type': 'application/json' },
});

function faultAnswer(fault: Exclude<ChannelFault, { kind: 'timeout' | 'drop' }>, kind: ChannelKind): Answer {
  if (fault.kind === 'refuse') {
    const type = fault.body.startsWith('{') ? 'application/json' : 'text/plain';
    return { status: fault.status, body: fault.body, headers: { 'content-type': type } };
  }
  const answer =
    kind === 'slack'
      ? text(fault.kind === 'rateLimit' ? 429 : fault.status, fault.kind === 'rateLimit' ? 'rate_limited' : '')
      : kind === 'teams'
        ? json(fault.kind === 'rateLimit' ? 429 : fault.status, 'FaultInjected', fault.kind)
        : text(fault.kind === 'rateLimit' ? 429 : fault.status, '');
  if (fault.kind === 'rateLimit')
    answer.headers = { ...answer.headers, 'retry-after': String(fault.retryAfterSeconds) };
  return answer;
}

const flatHeaders = (req: IncomingMessage): Record<string, string> =>
  Object.fromEntries(
    Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v ?? '')]),
  );

async function readBody(req: IncomingMessage): Promise<{ raw: string | undefined; bytes: number }> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  // Read to the end even past the limit, so the client finishes writing and gets the 413.
  for await (const chunk of req) {
    bytes += (chunk as Buffer).length;
    if (bytes <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  return { raw: bytes <= MAX_BODY_BYTES ? Buffer.concat(chunks).toString('utf8') : undefined, bytes };
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The first TextBlock of a card, depth first: what Teams shows as its title. */
function firstTextBlock(node: unknown): string | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = firstTextBlock(item);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (!isObj(node)) return undefined;
  if (node.type === 'TextBlock' && typeof node.text === 'string') return node.text;
  return firstTextBlock(node.body) ?? firstTextBlock(node.items) ?? firstTextBlock(node.columns);
}

/** The `<event>` part of an outbox file name: the webhook type, else the message's first words. */
function eventSlug(kind: ChannelKind, payload: unknown): string {
  const p = isObj(payload) ? payload : {};
  let source: unknown;
  if (kind === 'webhook') source = p.type;
  else if (kind === 'teams') {
    const first = Array.isArray(p.attachments) ? p.attachments[0] : undefined;
    source = firstTextBlock(isObj(first) ? first.content : undefined);
  } else {
    const blocks = Array.isArray(p.blocks) ? p.blocks.filter(isObj) : [];
    const header = blocks.find((b) => b.type === 'header' || b.type === 'section');
    source = typeof p.text === 'string' && p.text !== '' ? p.text : isObj(header?.text) ? header.text.text : undefined;
  }
  const slug = (typeof source === 'string' ? source : '')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9.]+/g, '-')
    .replace(/^[-.]+/, '')
    .slice(0, 40)
    .replace(/[-.]+$/, '');
  return slug === '' ? 'message' : slug;
}

async function writeAtomically(path: string, data: string): Promise<void> {
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, data);
  await rename(tmp, path);
}

export async function startChannelSink(opts: ChannelSinkOptions): Promise<ChannelSink> {
  const { outboxDir, logger } = opts;
  const clock = opts.clock ?? systemClock;
  // Made with the first message a channel takes: a run that posts nothing leaves the outbox as it was.
  const channelsDir = join(outboxDir, 'channels');
  const faults = new ChannelFaults(opts.faults);
  const received: ReceivedPost[] = [];
  /** Webhook ids each channel has delivered. */
  const seenIds = new Map<string, Set<string>>();
  /** The next sequence number per channel, once its folder has been read. */
  const nextSeq = new Map<string, number>();
  /** Writes per channel, one after another, so numbers follow the order posts were received in. */
  const writeQueues = new Map<string, Promise<unknown>>();
  const inFlight = new Set<Promise<void>>();
  /** The Teams previews' scripts, copied into the outbox once per sink. */
  let assets: Promise<void> | undefined;

  const sequenceOf = async (channel: string, dir: string): Promise<number> => {
    let seq = nextSeq.get(channel);
    if (seq === undefined) {
      const taken = (await readdir(dir)).map((n) => Number(/^(\d+)-/.exec(n)?.[1] ?? 0));
      seq = 1 + Math.max(0, ...taken);
    }
    nextSeq.set(channel, seq + 1);
    return seq;
  };

  const writeOutbox = (
    channel: string,
    kind: ChannelKind,
    receivedAt: string,
    headers: Record<string, string>,
    verdict: Verdict,
  ): Promise<string[]> => {
    const write = async () => {
      const dir = join(channelsDir, channel);
      await mkdir(dir, { recursive: true });
      if (kind === 'teams') {
        assets ??= writePreviewAssets(channelsDir).catch((e: unknown) => {
          assets = undefined;
          throw e;
        });
        await assets;
      }
      const name = `${String(await sequenceOf(channel, dir)).padStart(3, '0')}-${kind}-${eventSlug(kind, verdict.body)}`;
      const kept = Object.fromEntries(Object.entries(headers).filter(([k]) => KEPT_HEADER.test(k)));
      const html = renderChannelPreview({
        kind,
        channel,
        receivedAt,
        payload: verdict.body,
        ...(verdict.webhook
          ? {
              webhook: {
                id: verdict.webhook.id,
                timestamp: headers['webhook-timestamp'] ?? '',
                verified: verdict.webhook.verified,
              },
            }
          : {}),
      });
      const files = [join(dir, `${name}.html`), join(dir, `${name}.json`)];
      await writeAtomically(files[0]!, html);
      const record = { kind, channel, receivedAt, headers: kept, payload: verdict.body };
      await writeAtomically(files[1]!, `${JSON.stringify(record, null, 2)}\n`);
      return files;
    };
    const done = (writeQueues.get(channel) ?? Promise.resolve()).then(write);
    writeQueues.set(
      channel,
      done.catch(() => undefined),
    );
    return done;
  };

  const judgeWebhook = (channel: string, raw: string, headers: Record<string, string>): Verdict => {
    const bytes = Buffer.byteLength(raw);
    if (bytes > WEBHOOK_LIMITS.payloadBytes) {
      const detail = `${bytes} bytes, more than payloadBytes (${WEBHOOK_LIMITS.payloadBytes})`;
      return { answer: text(413, 'payload too large'), delivered: false, body: undefined, detail };
    }
    const id = headers['webhook-id'] ?? '';
    try {
      verifyWebhookAt(localSigningSecret(channel), raw, headers, clock.now());
    } catch (e) {
      const detail = `signature not verified: ${(e as Error).message}`;
      return {
        answer: text(401, 'invalid signature'),
        delivered: false,
        body: parseOrUndefined(raw),
        detail,
        webhook: { id, verified: false, duplicate: false },
      };
    }
    const body = parseOrUndefined(raw);
    if (!isObj(body) || typeof body.type !== 'string') {
      const webhook = { id, verified: true, duplicate: false };
      return { answer: text(400, 'not an event'), delivered: false, body, detail: 'not a JSON event', webhook };
    }
    const seen = seenIds.get(channel) ?? new Set<string>();
    seenIds.set(channel, seen);
    const duplicate = seen.has(id);
    seen.add(id);
    return { answer: text(204, ''), delivered: true, body, webhook: { id, verified: true, duplicate } };
  };

  const judge = (channel: string, kind: ChannelKind, raw: string | undefined, headers: Record<string, string>) => {
    if (raw === undefined) {
      const detail = `body over ${MAX_BODY_BYTES} bytes`;
      return { answer: text(413, 'payload too large'), delivered: false, body: undefined, detail } satisfies Verdict;
    }
    if (kind === 'webhook') return judgeWebhook(channel, raw, headers);
    if (kind === 'slack') {
      const v = checkSlackPayload(raw);
      return v.ok
        ? { answer: text(200, 'ok'), delivered: true, body: v.payload }
        : { answer: text(v.status, v.code), delivered: false, body: v.payload, detail: v.detail };
    }
    const v = checkTeamsPayload(raw);
    return v.ok
      ? { answer: { status: 202, body: '' }, delivered: true, body: v.payload }
      : { answer: json(v.status, v.code, v.detail), delivered: false, body: v.payload, detail: v.detail };
  };

  const send = (res: ServerResponse, answer: Answer) => {
    res.writeHead(answer.status, answer.headers ?? {});
    res.end(answer.body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const route = ROUTE.exec(new URL(req.url ?? '/', 'http://sink').pathname);
    const channel = route?.[2] ?? '';
    if (req.method !== 'POST' || !route || !ChannelId.safeParse(channel).success) {
      req.resume();
      send(res, text(404, 'not found'));
      return;
    }
    const kind = route[1] as ChannelKind;
    const receivedAt = clock.now().toISOString();
    const headers = flatHeaders(req);
    const { raw, bytes } = await readBody(req);
    const fault = faults.next(channel, kind);
    let verdict: Verdict;
    if (fault && fault.kind !== 'timeout' && fault.kind !== 'drop') {
      verdict = { answer: faultAnswer(fault, kind), delivered: false, body: parseOrUndefined(raw) };
    } else {
      verdict = judge(channel, kind, raw, headers);
    }
    const files = verdict.delivered ? await writeOutbox(channel, kind, receivedAt, headers, verdict) : [];
    const answered = fault?.kind !== 'timeout' && fault?.kind !== 'drop';
    received.push({
      channel,
      kind,
      receivedAt,
      body: verdict.body,
      bytes,
      headers,
      ...(fault ? { fault } : {}),
      ...(answered ? { status: verdict.answer.status } : {}),
      delivered: verdict.delivered,
      ...(verdict.detail !== undefined ? { detail: verdict.detail } : {}),
      ...(verdict.webhook ? { webhook: verdict.webhook } : {}),
      files,
    });
    const log = { channel, kind, status: answered ? verdict.answer.status : 'none', delivered: verdict.delivered };
    const more = {
      ...(fault ? { fault: fault.kind } : {}),
      ...(verdict.detail !== undefined ? { detail: verdict.detail } : {}),
      ...(verdict.webhook?.duplicate ? { duplicateWebhookId: verdict.webhook.id } : {}),
      ...(files[1] ? { file: files[1] } : {}),
    };
    if (verdict.delivered) logger?.info('channel sink: message delivered', { ...log, ...more });
    else logger?.warn('channel sink: message not delivered', { ...log, ...more });
    // timeout: the connection stays open, unanswered, until the client gives up or close() ends it.
    if (fault?.kind === 'timeout') return;
    if (fault?.kind === 'drop') {
      req.socket.destroy();
      return;
    }
    send(res, verdict.answer);
  };

  const server = createServer((req, res) => {
    const handled: Promise<void> = handle(req, res)
      .catch((e: unknown) => {
        // A client that went away mid-body, or the outbox not writable: the post was not taken.
        logger?.error('channel sink: post not handled', { error: (e as Error).message });
        if (!res.headersSent && !res.destroyed) send(res, text(500, 'sink error'));
      })
      .finally(() => inFlight.delete(handled));
    inFlight.add(handled);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const idle = async () => {
    while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
  };
  let closed: Promise<void> | undefined;

  return {
    url,
    outboxDir,
    secrets: {
      async endpointOf(channel) {
        const endpoint = `${url}/${channel.kind}/${encodeURIComponent(channel.id)}`;
        return channel.kind === 'webhook'
          ? { url: endpoint, signingSecret: localSigningSecret(channel.id) }
          : { url: endpoint };
      },
    },
    received,
    faults,
    duplicates: (channelId) =>
      received.filter(
        (p) => p.delivered && p.webhook?.duplicate && (channelId === undefined || p.channel === channelId),
      ).length,
    idle,
    close() {
      closed ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await stopped;
        await idle();
      })();
      return closed;
    },
  };
}

function parseOrUndefined(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
