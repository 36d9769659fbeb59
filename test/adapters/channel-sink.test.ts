/**
 * The local channel sinks over real sockets, seen by a raw node:http client as Pulse's poster would see them: Slack
 * refuses each documented limit with its code (and the record says which limit), Teams refuses a bad envelope and
 * an oversized one, the webhook receiver verifies Standard Webhooks signatures made with the reference library and
 * counts repeated ids; every fault kind answers (or does not) as scripted, in order per channel, and a random
 * profile repeats itself for one seed; delivered posts land in the outbox and a second sink continues the numbering.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ChannelFault, type ChannelFaultProfile, mulberry32 } from '../../src/adapters/local/channel-faults.ts';
import { type ChannelSink, localSigningSecret, startChannelSink } from '../../src/adapters/local/channel-sink.ts';
import { SLACK_LIMITS, TEAMS_LIMITS } from '../../src/core/channels/limits.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One POST on its own connection; rejects on a timeout (after `timeoutMs`) or a connection lost. */
function post(url: string, body: string, headers: Record<string, string> = {}, timeoutMs = 5000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent: false,
        timeout: timeoutMs,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('client timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

const slackMessage = (blocks: unknown[] = []) => ({
  text: 'Weekly product digest · 2026-W47',
  blocks: [
    { type: 'header', text: { type: 'plain_text', text: 'Weekly product digest · 2026-W47' } },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: '*Example Desktop*: 1,204 active clients' },
      fields: [
        { type: 'mrkdwn', text: '*Sessions*\n9,871' },
        { type: 'mrkdwn', text: '*Crashes*\n12' },
      ],
    },
    { type: 'context', elements: [{ type: 'mrkdwn', text: 'Pulse · local run' }] },
    ...blocks,
  ],
});

const card = (body: unknown[] = [{ type: 'TextBlock', text: 'License alerts', weight: 'Bolder' }]) => ({
  type: 'AdaptiveCard',
  $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
  version: TEAMS_LIMITS.cardVersion,
  body,
});
const teamsEnvelope = (content: unknown = card()) => ({
  type: 'message',
  attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive', contentUrl: null, content }],
});

/** A Standard Webhooks request for `channel`, signed with its local secret (or `secret`) by the reference library. */
function signedEvent(channel: string, id: string, event: object = {}, secret = localSigningSecret(channel)) {
  const body = JSON.stringify({
    type: 'license.alerts',
    timestamp: '2026-11-23T08:00:00Z',
    data: { keys: 3 },
    ...event,
  });
  const now = new Date();
  return {
    body,
    headers: {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, now, body),
    },
  };
}

const x = (n: number) => 'x'.repeat(n);
const url = (n: number) => `https://example.com/${x(n - 'https://example.com/'.length)}`;

let outboxDir: string;
let sink: ChannelSink;
const at = (kind: string, id: string) => `${sink.url}/${kind}/${id}`;
const last = () => sink.received.at(-1)!;

beforeEach(async () => {
  outboxDir = await mkdtemp(join(tmpdir(), 'pulse-outbox-'));
  sink = await startChannelSink({ outboxDir });
});
afterEach(async () => {
  await sink.close();
  await rm(outboxDir, { recursive: true, force: true });
});

describe('secrets for local runs', () => {
  it('points every channel at the sink and derives a stable whsec_ secret of 32 bytes for webhooks only', async () => {
    const slack = await sink.secrets.endpointOf({ id: 'ops-slack', kind: 'slack' });
    expect(slack).toEqual({ url: `${sink.url}/slack/ops-slack` });
    const hook = await sink.secrets.endpointOf({ id: 'erp-hook', kind: 'webhook' });
    expect(hook.url).toBe(`${sink.url}/webhook/erp-hook`);
    expect(hook.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(hook.signingSecret!.slice(6), 'base64')).toHaveLength(32);
    expect(hook.signingSecret).toBe(localSigningSecret('erp-hook'));
    expect(localSigningSecret('other-hook')).not.toBe(hook.signingSecret);
  });

  it('answers 404 to anything but a POST to a channel route, and records none of it', async () => {
    for (const path of ['/', '/slack', '/slack/', '/sms/ops', '/slack/Ops_Slack', '/slack/a/b', '/slack/%2e%2e']) {
      expect((await post(`${sink.url}${path}`, '{}')).status, path).toBe(404);
    }
    const get = await new Promise<number>((resolve, reject) =>
      request(at('slack', 'ops'), { agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
        .on('error', reject)
        .end(),
    );
    expect(get).toBe(404);
    expect(sink.received).toHaveLength(0);
  });
});

describe('Slack incoming webhook', () => {
  it('accepts a Block Kit message with 200 ok and writes its JSON and preview to the outbox', async () => {
    const payload = slackMessage();
    const answer = await post(at('slack', 'ops-slack'), JSON.stringify(payload), { 'user-agent': 'pulse-test' });
    expect(answer).toMatchObject({ status: 200, body: 'ok' });
    const rec = last();
    expect(rec).toMatchObject({ channel: 'ops-slack', kind: 'slack', delivered: true, status: 200, body: payload });
    expect(rec.files.map((f) => basename(f))).toEqual([
      '001-slack-weekly-product-digest-2026-w47.html',
      '001-slack-weekly-product-digest-2026-w47.json',
    ]);
    const saved = JSON.parse(await readFile(rec.files[1]!, 'utf8'));
    expect(saved).toEqual({
      kind: 'slack',
      channel: 'ops-slack',
      receivedAt: rec.receivedAt,
      headers: { 'content-type': 'application/json' },
      payload,
    });
    const html = await readFile(rec.files[0]!, 'utf8');
    expect(html).toContain('Weekly product digest · 2026-W47');
    expect(html).toContain("script-src 'none'");
  });

  it('accepts every block at exactly its limit', async () => {
    const atLimits = {
      text: x(SLACK_LIMITS.text),
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: x(SLACK_LIMITS.headerText) } },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: x(SLACK_LIMITS.sectionText) },
          fields: Array.from({ length: SLACK_LIMITS.sectionFields }, () => ({
            type: 'mrkdwn',
            text: x(SLACK_LIMITS.fieldText),
          })),
        },
        {
          type: 'context',
          elements: Array.from({ length: SLACK_LIMITS.contextElements }, () => ({ type: 'plain_text', text: 'c' })),
        },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              text: { type: 'plain_text', text: x(SLACK_LIMITS.buttonText) },
              url: url(SLACK_LIMITS.url),
            },
          ],
        },
        { type: 'image', image_url: 'https://example.com/c.png', alt_text: x(SLACK_LIMITS.imageAltText) },
        ...Array.from({ length: SLACK_LIMITS.blocks - 5 }, () => ({ type: 'divider' })),
      ],
    };
    expect(atLimits.blocks).toHaveLength(SLACK_LIMITS.blocks);
    expect(await post(at('slack', 'ops-slack'), JSON.stringify(atLimits))).toMatchObject({ status: 200, body: 'ok' });
  });

  const button = (text: string, href = 'https://example.com/report') => ({
    type: 'actions',
    elements: [{ type: 'button', text: { type: 'plain_text', text }, url: href }],
  });
  const refusals: [string, unknown, string, string][] = [
    ['bad JSON', '{"text": "unterminated', 'invalid_payload', 'not JSON'],
    ['an array', [], 'invalid_payload', 'not a JSON object'],
    ['neither text nor blocks', {}, 'no_text', 'neither text nor blocks'],
    ['empty text, empty blocks', { text: ' ', blocks: [] }, 'no_text', 'neither text nor blocks'],
    ['text over the limit', { text: x(SLACK_LIMITS.text + 1) }, 'msg_too_long', 'more than text (4000)'],
    [
      'too many blocks',
      { blocks: Array.from({ length: SLACK_LIMITS.blocks + 1 }, () => ({ type: 'divider' })) },
      'invalid_blocks',
      'more than blocks (50)',
    ],
    [
      'header text',
      slackMessage([{ type: 'header', text: { type: 'plain_text', text: x(SLACK_LIMITS.headerText + 1) } }]),
      'invalid_blocks',
      'blocks[3] (header).text is 151 characters, more than headerText (150)',
    ],
    [
      'header in mrkdwn',
      slackMessage([{ type: 'header', text: { type: 'mrkdwn', text: 'h' } }]),
      'invalid_blocks',
      'must be plain_text',
    ],
    [
      'section text',
      slackMessage([{ type: 'section', text: { type: 'mrkdwn', text: x(SLACK_LIMITS.sectionText + 1) } }]),
      'invalid_blocks',
      'more than sectionText (3000)',
    ],
    [
      'section fields',
      slackMessage([
        {
          type: 'section',
          fields: Array.from({ length: SLACK_LIMITS.sectionFields + 1 }, () => ({ type: 'mrkdwn', text: 'f' })),
        },
      ]),
      'invalid_blocks',
      'more than sectionFields (10)',
    ],
    [
      'a field',
      slackMessage([{ type: 'section', fields: [{ type: 'mrkdwn', text: x(SLACK_LIMITS.fieldText + 1) }] }]),
      'invalid_blocks',
      'fields[0] is 2001 characters, more than fieldText (2000)',
    ],
    [
      'context elements',
      slackMessage([
        {
          type: 'context',
          elements: Array.from({ length: SLACK_LIMITS.contextElements + 1 }, () => ({ type: 'mrkdwn', text: 'c' })),
        },
      ]),
      'invalid_blocks',
      'more than contextElements (10)',
    ],
    [
      'button text',
      slackMessage([button(x(SLACK_LIMITS.buttonText + 1))]),
      'invalid_blocks',
      'more than buttonText (75)',
    ],
    ['button url', slackMessage([button('Open', url(SLACK_LIMITS.url + 1))]), 'invalid_blocks', 'more than url (3000)'],
    [
      'image alt text',
      slackMessage([
        { type: 'image', image_url: 'https://example.com/c.png', alt_text: x(SLACK_LIMITS.imageAltText + 1) },
      ]),
      'invalid_blocks',
      'more than imageAltText (2000)',
    ],
    ['a section with nothing', slackMessage([{ type: 'section' }]), 'invalid_blocks', 'has neither text nor fields'],
    [
      'an empty text',
      slackMessage([{ type: 'section', text: { type: 'mrkdwn', text: '' } }]),
      'invalid_blocks',
      'empty',
    ],
    ['an unknown block', slackMessage([{ type: 'carousel' }]), 'invalid_blocks', 'unknown block type "carousel"'],
  ];
  it.each(refusals)(
    'refuses %s with 400 and the bare code, the record naming the limit',
    async (_, payload, code, why) => {
      const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
      const answer = await post(at('slack', 'ops-slack'), body);
      expect(answer).toMatchObject({ status: 400, body: code });
      expect(last()).toMatchObject({ delivered: false, status: 400, files: [] });
      expect(last().detail).toContain(why);
      expect(existsSync(join(outboxDir, 'channels', 'ops-slack'))).toBe(false);
    },
  );
});

describe('Teams Workflows trigger', () => {
  it('accepts an Adaptive Card envelope with 202 and an empty body, and writes it with the renderer beside it', async () => {
    const answer = await post(at('teams', 'ops-teams'), JSON.stringify(teamsEnvelope()));
    expect(answer).toMatchObject({ status: 202, body: '' });
    expect(last().files.map((f) => basename(f))).toEqual([
      '001-teams-license-alerts.html',
      '001-teams-license-alerts.json',
    ]);
    expect((await readdir(join(outboxDir, 'channels'))).sort()).toEqual([
      'adaptivecards.min.js',
      'ops-teams',
      'teams-card.js',
    ]);
    const html = await readFile(last().files[0]!, 'utf8');
    expect(html).toContain('<script src="../adaptivecards.min.js"></script>');
    expect(html).toContain("script-src 'self'");
  });

  const refusals: [string, string, number, string, string][] = [
    ['bad JSON', '{', 400, 'InvalidRequestContent', 'not JSON'],
    ['another type', JSON.stringify({ ...teamsEnvelope(), type: 'card' }), 400, 'TriggerInputSchemaMismatch', 'type'],
    [
      'no attachments',
      JSON.stringify({ type: 'message', attachments: [] }),
      400,
      'TriggerInputSchemaMismatch',
      'attachments',
    ],
    [
      'a hero card',
      JSON.stringify({
        type: 'message',
        attachments: [{ contentType: 'application/vnd.microsoft.card.hero', content: {} }],
      }),
      400,
      'TriggerInputSchemaMismatch',
      'contentType',
    ],
    [
      'content that is no card',
      JSON.stringify(teamsEnvelope({ type: 'Message' })),
      400,
      'TriggerInputSchemaMismatch',
      'not an AdaptiveCard',
    ],
    [
      'a card version Teams does not render',
      JSON.stringify(teamsEnvelope({ ...card(), version: '1.6' })),
      400,
      'TriggerInputSchemaMismatch',
      'above what Teams renders',
    ],
    [
      'a payload over 28 KB',
      JSON.stringify(teamsEnvelope(card([{ type: 'TextBlock', text: 'é'.repeat(TEAMS_LIMITS.payloadBytes / 2) }]))),
      413,
      'RequestEntityTooLarge',
      'more than payloadBytes (28672)',
    ],
  ];
  it.each(refusals)('refuses %s with a JSON error', async (_, body, status, code, why) => {
    const answer = await post(at('teams', 'ops-teams'), body);
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json');
    expect(JSON.parse(answer.body).error.code).toBe(code);
    expect(last()).toMatchObject({ delivered: false, status, files: [] });
    expect(last().detail).toContain(why);
  });
});

describe('signed webhook receiver', () => {
  it('verifies a correctly signed event (204), keeps its webhook headers and counts a repeated id', async () => {
    const event = signedEvent('erp-hook', 'msg_2k1');
    expect(await post(at('webhook', 'erp-hook'), event.body, event.headers)).toMatchObject({ status: 204, body: '' });
    expect(last()).toMatchObject({ delivered: true, webhook: { id: 'msg_2k1', verified: true, duplicate: false } });
    expect(last().files.map((f) => basename(f))).toEqual([
      '001-webhook-license.alerts.html',
      '001-webhook-license.alerts.json',
    ]);
    const saved = JSON.parse(await readFile(last().files[1]!, 'utf8'));
    expect(Object.keys(saved.headers).sort()).toEqual([
      'content-type',
      'webhook-id',
      'webhook-signature',
      'webhook-timestamp',
    ]);
    expect(await readFile(last().files[0]!, 'utf8')).toContain('<dd>yes</dd>');

    // At-least-once: the same event again under the same id is delivered and counted.
    const again = signedEvent('erp-hook', 'msg_2k1');
    expect((await post(at('webhook', 'erp-hook'), again.body, again.headers)).status).toBe(204);
    expect(last().webhook).toEqual({ id: 'msg_2k1', verified: true, duplicate: true });
    // The same id on another channel is that channel's first.
    const elsewhere = signedEvent('crm-hook', 'msg_2k1');
    expect((await post(at('webhook', 'crm-hook'), elsewhere.body, elsewhere.headers)).status).toBe(204);
    expect(last().webhook?.duplicate).toBe(false);
    expect(sink.duplicates()).toBe(1);
    expect(sink.duplicates('erp-hook')).toBe(1);
    expect(sink.duplicates('crm-hook')).toBe(0);
  });

  it('refuses a tampered body, a wrong secret, an old timestamp and missing headers with 401, writing nothing', async () => {
    const event = signedEvent('erp-hook', 'msg_1');
    const tampered = event.body.replace('"keys":3', '"keys":4');
    const wrongSecret = signedEvent('erp-hook', 'msg_2', {}, localSigningSecret('other-hook'));
    const old = new Date(Date.now() - 10 * 60_000);
    const oldHeaders = {
      'webhook-id': 'msg_3',
      'webhook-timestamp': String(Math.floor(old.getTime() / 1000)),
      'webhook-signature': new Webhook(localSigningSecret('erp-hook')).sign('msg_3', old, event.body),
    };
    const cases: [string, Record<string, string>, string][] = [
      [tampered, event.headers, 'No matching signature'],
      [wrongSecret.body, wrongSecret.headers, 'No matching signature'],
      [event.body, oldHeaders, 'too old'],
      [event.body, {}, 'Missing required headers'],
    ];
    for (const [body, headers, why] of cases) {
      const answer = await post(at('webhook', 'erp-hook'), body, headers);
      expect(answer.status).toBe(401);
      expect(last()).toMatchObject({ delivered: false, status: 401, files: [] });
      expect(last().webhook?.verified).toBe(false);
      expect(last().detail).toContain(why);
      expect(last().detail).not.toContain('whsec_');
    }
    expect(existsSync(join(outboxDir, 'channels', 'erp-hook'))).toBe(false);
    // A refused post does not make the id "seen": its first delivery is no duplicate.
    expect((await post(at('webhook', 'erp-hook'), event.body, event.headers)).status).toBe(204);
    expect(last().webhook?.duplicate).toBe(false);
  });
});

describe('log', () => {
  it('logs each post with its channel, status and why, and never a signing secret', async () => {
    const entries: { level: string; message: string; data?: Record<string, unknown> }[] = [];
    const at = (level: string) => (message: string, data?: Record<string, unknown>) =>
      entries.push({ level, message, ...(data ? { data } : {}) });
    const logged = await startChannelSink({
      outboxDir,
      logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') },
    });
    try {
      const good = signedEvent('erp-hook', 'msg_log');
      await post(`${logged.url}/webhook/erp-hook`, good.body, good.headers);
      await post(`${logged.url}/webhook/erp-hook`, good.body.replace('3', '4'), good.headers);
      await post(
        `${logged.url}/slack/ops-slack`,
        JSON.stringify({ blocks: [{ type: 'header', text: { type: 'plain_text', text: x(151) } }] }),
      );
      expect(entries.map((e) => [e.level, e.data?.channel, e.data?.status])).toEqual([
        ['info', 'erp-hook', 204],
        ['warn', 'erp-hook', 401],
        ['warn', 'ops-slack', 400],
      ]);
      expect(entries[2]!.data?.detail).toContain('headerText');
      expect(JSON.stringify(entries)).not.toContain('whsec_');
      expect(JSON.stringify(logged.received)).not.toContain('whsec_');
    } finally {
      await logged.close();
    }
  });
});

describe('faults', () => {
  const slack = JSON.stringify(slackMessage());

  it('rateLimit: 429 with Retry-After, nothing posted', async () => {
    sink.faults.script('ops-slack', [{ kind: 'rateLimit', retryAfterSeconds: 7 }]);
    const answer = await post(at('slack', 'ops-slack'), slack);
    expect(answer.status).toBe(429);
    expect(answer.headers['retry-after']).toBe('7');
    expect(last()).toMatchObject({ delivered: false, status: 429, files: [], fault: { kind: 'rateLimit' } });
  });

  it('serverError: the 5xx, nothing posted', async () => {
    sink.faults.script('ops-teams', [{ kind: 'serverError', status: 502 }]);
    expect((await post(at('teams', 'ops-teams'), JSON.stringify(teamsEnvelope()))).status).toBe(502);
    expect(last()).toMatchObject({ delivered: false, status: 502, files: [] });
  });

  it('refuse: the status and body given (Slack: channel_not_found, channel_is_archived), nothing posted', async () => {
    sink.faults.script('ops-slack', [
      { kind: 'refuse', status: 404, body: 'channel_not_found' },
      { kind: 'refuse', status: 410, body: 'channel_is_archived' },
      { kind: 'refuse', status: 403, body: 'action_prohibited' },
    ]);
    expect(await post(at('slack', 'ops-slack'), slack)).toMatchObject({ status: 404, body: 'channel_not_found' });
    expect(await post(at('slack', 'ops-slack'), slack)).toMatchObject({ status: 410, body: 'channel_is_archived' });
    expect(await post(at('slack', 'ops-slack'), slack)).toMatchObject({ status: 403, body: 'action_prohibited' });
    expect(sink.received.map((p) => p.delivered)).toEqual([false, false, false]);
  });

  it('timeout: no answer within the client timeout, yet recorded as delivered and written', async () => {
    sink.faults.script('ops-slack', [{ kind: 'timeout' }]);
    const started = Date.now();
    await expect(post(at('slack', 'ops-slack'), slack, {}, 300)).rejects.toThrow('client timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    await sink.idle();
    expect(last()).toMatchObject({ delivered: true, fault: { kind: 'timeout' } });
    expect(last().status).toBeUndefined();
    expect(last().files).toHaveLength(2);
  });

  it('drop: the socket hangs up, yet the post is recorded as delivered; a webhook retry is then a duplicate', async () => {
    sink.faults.script('erp-hook', [{ kind: 'drop' }]);
    const event = signedEvent('erp-hook', 'msg_drop');
    await expect(post(at('webhook', 'erp-hook'), event.body, event.headers)).rejects.toThrow(
      /socket hang up|ECONNRESET/,
    );
    await sink.idle();
    expect(last()).toMatchObject({ delivered: true, fault: { kind: 'drop' }, webhook: { verified: true } });
    expect(last().status).toBeUndefined();
    expect((await post(at('webhook', 'erp-hook'), event.body, event.headers)).status).toBe(204);
    expect(sink.duplicates('erp-hook')).toBe(1);
  });

  it('consumes scripted faults in order, per channel, then answers normally', async () => {
    sink.faults.script('ops-slack', [
      { kind: 'rateLimit', retryAfterSeconds: 1 },
      { kind: 'serverError', status: 500 },
    ]);
    sink.faults.script('ops-slack-2', [{ kind: 'refuse', status: 404, body: 'channel_not_found' }]);
    sink.faults.script('ops-slack', [{ kind: 'serverError', status: 503 }]);
    expect(sink.faults.pending('ops-slack')).toBe(3);
    const statuses: [string, number][] = [];
    for (const id of ['ops-slack', 'ops-slack-2', 'ops-slack', 'ops-slack-2', 'ops-slack', 'ops-slack']) {
      statuses.push([id, (await post(at('slack', id), slack)).status]);
    }
    expect(statuses).toEqual([
      ['ops-slack', 429],
      ['ops-slack-2', 404],
      ['ops-slack', 500],
      ['ops-slack-2', 200],
      ['ops-slack', 503],
      ['ops-slack', 200],
    ]);
    expect(sink.faults.pending('ops-slack')).toBe(0);
  });

  it('closes a held (timeout) connection on close()', async () => {
    sink.faults.script('ops-slack', [{ kind: 'timeout' }]);
    const pending = post(at('slack', 'ops-slack'), slack, {}, 30_000);
    while (sink.received.length === 0) await new Promise((r) => setTimeout(r, 10));
    await sink.close();
    await expect(pending).rejects.toThrow(/socket hang up|ECONNRESET/);
  });
});

describe('random fault profile', () => {
  const kinds: ChannelFaultProfile['kinds'] = [
    'rateLimit',
    'serverError',
    { kind: 'refuse', status: 410, body: 'gone' },
  ];

  /** The fault kind (or `ok`) each of `count` posts per channel meets, channels interleaved in `order`. */
  async function run(profile: ChannelFaultProfile, order: string[], count: number) {
    const other = await startChannelSink({ outboxDir, faults: profile });
    try {
      for (let i = 0; i < count; i++) {
        for (const id of order) await post(`${other.url}/slack/${id}`, JSON.stringify({ text: `n ${i}` }));
      }
      const byChannel: Record<string, string[]> = {};
      for (const p of other.received) byChannel[p.channel] = [...(byChannel[p.channel] ?? []), p.fault?.kind ?? 'ok'];
      return byChannel;
    } finally {
      await other.close();
    }
  }

  it('gives each channel the same faults for one seed, whatever the interleaving, and other faults for another', async () => {
    const first = await run({ seed: 42, rate: 0.5, kinds }, ['a', 'b'], 12);
    const again = await run({ seed: 42, rate: 0.5, kinds }, ['b', 'a'], 12);
    const other = await run({ seed: 43, rate: 0.5, kinds }, ['a', 'b'], 12);
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
    const all = [...first.a!, ...first.b!];
    expect(all.filter((k) => k !== 'ok').length).toBeGreaterThan(3);
    expect(all.filter((k) => k === 'ok').length).toBeGreaterThan(3);
    expect(new Set(all)).toEqual(new Set(['ok', 'rateLimit', 'serverError', 'refuse']));
  });

  it('meets no fault at rate 0 and only faults at rate 1; refuses a rate outside 0..1', async () => {
    expect(Object.values(await run({ seed: 1, rate: 0, kinds }, ['a'], 5)).flat()).toEqual(Array(5).fill('ok'));
    expect(Object.values(await run({ seed: 1, rate: 1, kinds: ['serverError'] }, ['a'], 5)).flat()).toEqual(
      Array(5).fill('serverError'),
    );
    expect(() => sink.faults.random({ seed: 1, rate: 1.5, kinds })).toThrow(RangeError);
    expect(() => sink.faults.random({ seed: 1, rate: 0.5, kinds: [] })).toThrow(RangeError);
  });

  it('mulberry32 repeats per seed', () => {
    const a = mulberry32(7);
    const b = mulberry32(7);
    const draws = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(draws);
    expect(draws.every((d) => d >= 0 && d < 1)).toBe(true);
  });

  it('lets a scripted fault go first while a profile is on', async () => {
    const scripted: ChannelFault = { kind: 'refuse', status: 403, body: 'action_prohibited' };
    sink.faults.random({ seed: 9, rate: 1, kinds: ['serverError'] });
    sink.faults.script('ops-slack', [scripted]);
    expect((await post(at('slack', 'ops-slack'), '{"text":"a"}')).status).toBe(403);
    expect((await post(at('slack', 'ops-slack'), '{"text":"a"}')).status).toBe(503);
    sink.faults.clear();
    expect((await post(at('slack', 'ops-slack'), '{"text":"a"}')).status).toBe(200);
  });
});

describe('outbox', () => {
  it('continues the numbering per channel after the files a previous sink left', async () => {
    await post(at('slack', 'ops-slack'), JSON.stringify({ text: 'First run, one' }));
    await post(at('slack', 'ops-slack'), JSON.stringify({ text: 'First run, two' }));
    await post(at('teams', 'ops-teams'), JSON.stringify(teamsEnvelope()));
    await sink.close();

    sink = await startChannelSink({ outboxDir });
    await post(at('slack', 'ops-slack'), JSON.stringify({ text: 'Second run: <!channel> & "quotes" / ../x' }));
    await post(at('teams', 'ops-teams'), JSON.stringify(teamsEnvelope()));
    expect((await readdir(join(outboxDir, 'channels', 'ops-slack'))).sort()).toEqual([
      '001-slack-first-run-one.html',
      '001-slack-first-run-one.json',
      '002-slack-first-run-two.html',
      '002-slack-first-run-two.json',
      '003-slack-second-run-channel-quotes-..-x.html',
      '003-slack-second-run-channel-quotes-..-x.json',
    ]);
    expect((await readdir(join(outboxDir, 'channels', 'ops-teams'))).sort()).toEqual([
      '001-teams-license-alerts.html',
      '001-teams-license-alerts.json',
      '002-teams-license-alerts.html',
      '002-teams-license-alerts.json',
    ]);
  });

  it('numbers concurrent posts to one channel in the order they were taken, one pair each', async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => post(at('slack', 'ops-slack'), JSON.stringify({ text: `post ${i}` }))),
    );
    const names = (await readdir(join(outboxDir, 'channels', 'ops-slack'))).filter((n) => n.endsWith('.json')).sort();
    expect(names.map((n) => n.slice(0, 3))).toEqual(['001', '002', '003', '004', '005', '006', '007', '008']);
    const order = sink.received.map((p) => basename(p.files[1]!));
    expect([...order].sort()).toEqual(order);
  });
});
