/**
 * The signed webhook event (src/core/channels/webhook-event.ts, webhook-signing.ts): its versioned JSON body and
 * Standard Webhooks headers, verified by the scheme's own library (`standardwebhooks`) at a receiver on 127.0.0.1
 * that reads the raw bytes as they arrived; a tampered body, id or timestamp and an old timestamp are refused. The
 * event id is stable per ledger key; a missing or malformed secret is a named NotSentError that never quotes it.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderChannelRequest } from '../../../src/core/channels/render-channel.ts';
import { channelEventId, WebhookEventTooLargeError } from '../../../src/core/channels/webhook-event.ts';
import {
  MalformedSigningSecretError,
  MissingSigningSecretError,
  SigningSecretError,
} from '../../../src/core/channels/webhook-signing.ts';
import { NotSentError } from '../../../src/ports/not-sent.ts';
import { sampleMessage } from './sample-messages.ts';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const eventId = channelEventId('license-alert:example-desktop:KEY-0001:7d');

/** A receiver as the scheme documents one: verify the raw body against the headers, answer 204 or 400. */
let server: Server;
let url: string;
const received: { body: string; headers: IncomingHttpHeaders; verified: unknown; error?: string }[] = [];
beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    try {
      received.push({ body, headers: req.headers, verified: new Webhook(secret).verify(body, req.headers as never) });
      res.writeHead(204).end();
    } catch (e) {
      received.push({ body, headers: req.headers, verified: undefined, error: (e as Error).message });
      res.writeHead(400).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/pulse`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const post = (body: string, headers: Record<string, string>) => fetch(url, { method: 'POST', body, headers });

describe('the webhook event', () => {
  it('is a versioned JSON event, signed so that the standardwebhooks library verifies it at the receiver', async () => {
    const message = sampleMessage();
    const now = new Date();
    const { body, headers } = renderChannelRequest('webhook', message, { eventId, signingSecret: secret, now });
    expect(body).toBe(
      JSON.stringify({
        type: 'license.alerts',
        version: 1,
        id: eventId,
        timestamp: message.occurredAt,
        data: message.data,
      }),
    );
    expect(headers).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'webhook-id': eventId,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    const res = await post(body, headers);
    expect(res.status).toBe(204);
    expect(received.at(-1)!.verified).toEqual(JSON.parse(body));
  });

  it('is refused when its body, id or timestamp was changed on the way, or when it is old', async () => {
    const now = new Date();
    const { body, headers } = renderChannelRequest('webhook', sampleMessage(), { eventId, signingSecret: secret, now });
    const tampered = [
      [body.replace('"version":1', '"version":2'), headers],
      [body, { ...headers, 'webhook-id': channelEventId('another key') }],
      [body, { ...headers, 'webhook-timestamp': String(Number(headers['webhook-timestamp']) + 1) }],
    ] as const;
    for (const [b, h] of tampered) {
      expect((await post(b, h)).status).toBe(400);
      expect(received.at(-1)!.error).toBe('No matching signature found');
    }
    const old = renderChannelRequest('webhook', sampleMessage(), {
      eventId,
      signingSecret: secret,
      now: new Date(now.getTime() - 10 * 60_000),
    });
    expect((await post(old.body, old.headers)).status).toBe(400);
    expect(received.at(-1)!.error).toBe('Message timestamp too old');
  });

  it('has an id that is the same for the same ledger key on every run, and differs between keys', () => {
    expect(channelEventId('digest:weekly:2026-W47:ops')).toBe(channelEventId('digest:weekly:2026-W47:ops'));
    expect(channelEventId('digest:weekly:2026-W47:ops')).not.toBe(channelEventId('digest:weekly:2026-W48:ops'));
    expect(channelEventId('x')).toMatch(/^msg_[A-Za-z0-9_-]{32}$/);
  });

  it('carries data with hostile text exactly, since programs read it', () => {
    const data = { product: '<!channel> **x** \u202E ש', nul: 'a\u0000b', n: 3 };
    const { body } = renderChannelRequest('webhook', sampleMessage({ data }), {
      eventId,
      signingSecret: secret,
      now: new Date(),
    });
    expect(JSON.parse(body).data).toEqual(data);
  });

  it('refuses a missing or malformed secret with a named error that never quotes it', () => {
    const attempt = (signingSecret?: string) => () =>
      renderChannelRequest('webhook', sampleMessage(), {
        eventId,
        now: new Date(),
        ...(signingSecret !== undefined ? { signingSecret } : {}),
      });
    expect(attempt()).toThrow(MissingSigningSecretError);
    expect(attempt('')).toThrow(MissingSigningSecretError);
    const payload = randomBytes(32).toString('base64');
    const malformed = [
      payload, // no whsec_ prefix
      `whsec_${payload.slice(0, -2)}!!`, // not base64
      `whsec_${randomBytes(8).toString('base64')}`, // a key too short to be one
      `whsec_${randomBytes(100).toString('base64')}`,
    ];
    for (const bad of malformed) {
      let error: unknown;
      try {
        attempt(bad)();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MalformedSigningSecretError);
      expect(error).toBeInstanceOf(SigningSecretError);
      expect(error).toBeInstanceOf(NotSentError);
      const text = `${(error as Error).message} ${(error as Error).stack}`;
      expect(text).not.toContain(bad.replace(/^whsec_/, '').slice(0, 8));
    }
  });

  it('refuses an event over the size receivers are promised, as not sent', () => {
    const data = { blob: 'x'.repeat(300 * 1024) };
    const render = () =>
      renderChannelRequest('webhook', sampleMessage({ data }), { eventId, signingSecret: secret, now: new Date() });
    expect(render).toThrow(WebhookEventTooLargeError);
    expect(render).toThrow(NotSentError);
  });
});

describe('renderChannelRequest', () => {
  it('posts Slack and Teams as UTF-8 JSON, the exact body as rendered', () => {
    for (const kind of ['slack', 'teams'] as const) {
      const { body, headers } = renderChannelRequest(kind, sampleMessage(), { eventId, now: new Date() });
      expect(headers).toEqual({ 'content-type': 'application/json; charset=utf-8' });
      expect(JSON.stringify(JSON.parse(body))).toBe(body);
    }
  });
});
