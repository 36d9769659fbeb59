/**
 * The delivery guarantees of channels, end to end over real sockets: a scripted receiver on 127.0.0.1 answers each
 * post as a test says (a status, a hang, a connection dropped after the body), the real poster and environment
 * secrets reach it, and the ledger is the DynamoDB adapter on dynalite. Slack and Teams are posted at most once
 * (429 waited, refusals released, 5xx and timeouts unknown); webhooks at least once with one webhook-id across
 * attempts and runs. Waits go through a sleep that only moves the test clock, and no secret (the URL's path, the
 * signing secret) reaches an error, a log line or a Delivery.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbLedger } from '../../../src/adapters/aws/dynamodb-ledger.ts';
import { EnvChannelSecrets } from '../../../src/adapters/channel-secrets.ts';
import { ConsoleLogger } from '../../../src/adapters/console-logger.ts';
import { HttpChannelPoster } from '../../../src/adapters/http/channel-poster.ts';
import { PowertoolsLoggerAdapter } from '../../../src/adapters/powertools-logger.ts';
import { CHANNEL_DEADLINE_MARGIN_MS, withInvocation } from '../../../src/app/lambda/base.ts';
import { Channel, type ChannelConfig } from '../../../src/config/channels-schema.ts';
import type { ChannelMessage } from '../../../src/core/channels/channel-message.ts';
import { channelLabel } from '../../../src/core/channels/channel-targets.ts';
import { channelSend, deliverToChannel } from '../../../src/core/channels/deliver-to-channel.ts';
import { channelEventId } from '../../../src/core/channels/webhook-event.ts';
import { type Delivery, settleSend } from '../../../src/core/delivery/deliver-once.ts';
import type { ChannelPorts } from '../../../src/ports/channels.ts';
import { startTestTable, type TestTable } from '../../helpers/dynamo-table.ts';

/** A Lambda context's fields the logger reads. */
const invocation = {
  functionName: 'pulse-digest',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:pulse-digest',
  memoryLimitInMB: '1024',
  awsRequestId: 'req-1',
};

const SECRET_PATH = '/services/T0SECRET/B0SECRET/leakysecretpath';
const SIGNING_BYTES = Buffer.alloc(32, 42);
const SIGNING_SECRET = `whsec_${SIGNING_BYTES.toString('base64')}`;
const LEAKS = ['T0SECRET', 'leakysecretpath', SIGNING_BYTES.toString('base64')];

/** One answer of the receiver: a status (with headers and a body), no answer at all, or the connection dropped. */
type Step = { status: number; headers?: Record<string, string>; body?: string } | 'hang' | 'drop';

interface Received {
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

let table: TestTable;
let receiver: Server;
let receiverUrl: string;
let script: Step[] = [];
let received: Received[] = [];
let logLines: string[] = [];

beforeAll(async () => {
  table = await startTestTable('pulse-state-channels');
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const step = script.shift() ?? { status: 200, body: 'ok' };
      if (step === 'hang') return;
      if (step === 'drop') return req.socket.destroy();
      res.writeHead(step.status, step.headers ?? {}).end(step.body ?? '');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
});
afterAll(async () => {
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await table?.close();
});
beforeEach(() => {
  script = [];
  received = [];
  logLines = [];
});
afterEach(() => {
  expect(logLines.length).toBeGreaterThan(0);
  for (const line of logLines) for (const leak of LEAKS) expect(line).not.toContain(leak);
});

const channel = (id: string, kind: ChannelConfig['kind'], extra: Record<string, unknown> = {}): ChannelConfig =>
  Channel.parse({ id, kind, timeoutMs: 1000, ...extra });

const env = () => ({
  PULSE_CHANNEL_OPS: `${receiverUrl}${SECRET_PATH}`,
  PULSE_CHANNEL_SALES: JSON.stringify({ url: `${receiverUrl}/workflows/abc?api-version=1&sig=T0SECRETsig` }),
  PULSE_CHANNEL_BILLING: JSON.stringify({ url: `${receiverUrl}${SECRET_PATH}?hook=1`, signingSecret: SIGNING_SECRET }),
});

/** The ports of one run: its clock moves only when it sleeps, and every sleep asked for is recorded. */
function run(opts: { env?: Record<string, string> } = {}) {
  let t = Date.now();
  const sleeps: number[] = [];
  const ports = {
    ledger: new DynamoDbLedger({ client: table.db, tableName: table.tableName }),
    logger: new ConsoleLogger({ service: 'test', level: 'debug', write: (line) => logLines.push(line) }),
    clock: { now: () => new Date(t) },
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
    },
    random: () => 1,
    channels: { secrets: new EnvChannelSecrets(opts.env ?? env()), poster: new HttpChannelPoster() } as ChannelPorts,
  };
  return { ports, sleeps, now: () => t };
}

async function deliver(
  r: ReturnType<typeof run>,
  key: string,
  c: ChannelConfig,
  opts: { resendUnknown?: boolean; deadline?: number } = {},
): Promise<Delivery> {
  const delivery = await deliverToChannel(r.ports, key, c, message, opts);
  for (const leak of LEAKS) expect(JSON.stringify(delivery)).not.toContain(leak);
  return delivery;
}

const message: ChannelMessage = {
  event: 'digest.sent',
  title: 'Weekly product digest · 2026-W47',
  summary: 'Example Desktop: 1,204 active clients (+3%)',
  lines: ['New clients rose by 12%.'],
  facts: [{ label: 'Active clients', value: '1,204' }],
  sections: [{ title: 'Example Desktop', facts: [{ label: 'New', value: '87' }] }],
  occurredAt: '2026-11-23T08:00:00.000Z',
  data: { week: '2026-W47', products: [{ id: '12345678901', activeClients: 1204 }] },
};

const key = (what: string) => `digest#2026-W47#channel:${what}#${randomUUID()}`;
const slack = channel('ops', 'slack');
const teams = channel('sales', 'teams');
const webhook = channel('billing', 'webhook', { maxAttempts: 3 });

describe('Slack and Teams: at most once', () => {
  it('waits the Retry-After a 429 gives (seconds, none: 1 s, an HTTP date), then posts once', async () => {
    const r = run();
    const k = key('ops');
    script = [
      { status: 429, headers: { 'Retry-After': '3' }, body: 'rate_limited' },
      { status: 429, body: 'rate_limited' },
      { status: 429, headers: { 'Retry-After': new Date(Date.now() + 3000).toUTCString() } },
      { status: 200, body: 'ok' },
    ];
    const sent = await deliver(r, k, slack);
    expect(sent).toEqual({ outcome: 'sent', messageId: channelEventId(k) });
    expect(r.sleeps.slice(0, 2)).toEqual([3000, 1000]);
    expect(r.sleeps[2]).toBeGreaterThanOrEqual(1000);
    expect(r.sleeps[2]).toBeLessThanOrEqual(3000);
    expect(received).toHaveLength(4);
    expect(received.every((p) => p.url === SECRET_PATH && p.body === received[0]!.body)).toBe(true);
    expect(await r.ports.ledger.get(k)).toMatchObject({ state: 'done', detail: { messageId: channelEventId(k) } });

    // Done in the ledger: the next run posts nothing.
    expect(await deliver(run(), k, slack)).toEqual({ outcome: 'alreadySent' });
    expect(received).toHaveLength(4);
  });

  it('a 429 whose wait passes the deadline: failed, named, released, nothing waited', async () => {
    const r = run();
    const k = key('ops');
    script = [{ status: 429, headers: { 'Retry-After': '30' } }];
    const failed = await deliver(r, k, slack, { deadline: r.now() + 20_000 });
    expect(failed.outcome).toBe('failed');
    expect(failed.error).toMatch(
      /^ChannelRateLimitedError: Slack channel ops is rate-limited \(429, retry after 30 s\): not posted, past the run's deadline/,
    );
    expect(r.sleeps).toEqual([]);
    expect(await r.ports.ledger.get(k)).toBeUndefined();
  });

  it("the runtime's deadline (a Lambda's remaining time, withInvocation) bounds the wait when the caller names none", async () => {
    const r = run();
    const k = key('ops');
    script = [{ status: 429, headers: { 'Retry-After': '30' } }];
    const invoked = withInvocation(
      {
        logger: new PowertoolsLoggerAdapter({ service: 'test', level: 'error' }),
        secrets: new SecretsManagerClient({ region: 'eu-west-1' }),
        newClient: () => {
          throw new Error('no service in this test');
        },
        clock: r.ports.clock,
        channels: r.ports.channels,
      },
      { ...invocation, getRemainingTimeInMillis: () => CHANNEL_DEADLINE_MARGIN_MS + 20_000 },
    );
    const deadline = invoked.channels?.deadline ?? 0;
    expect(deadline).toBeGreaterThan(Date.now());
    expect(deadline).toBeLessThanOrEqual(Date.now() + 20_000);
    const failed = await deliver(
      { ...r, ports: { ...r.ports, channels: { ...r.ports.channels, deadline } } },
      k,
      slack,
    );
    expect(failed.error).toMatch(/not posted, past the run's deadline/);
    expect(r.sleeps).toEqual([]);
  });

  it('a refusal (404): failed, released, not retried in the run; the next run posts', async () => {
    const k = key('ops');
    script = [{ status: 404, body: 'channel_not_found' }];
    const first = run();
    expect(await deliver(first, k, slack)).toEqual({
      outcome: 'failed',
      error: 'ChannelRefusedError: Slack channel ops refused it: 404 channel_not_found',
    });
    expect(received).toHaveLength(1);
    expect(first.sleeps).toEqual([]);
    expect(logLines.map((l) => JSON.parse(l))).toContainEqual(
      expect.objectContaining({ message: 'channel answered', channel: 'ops', kind: 'slack', attempt: 1, status: 404 }),
    );
    expect(await first.ports.ledger.get(k)).toBeUndefined();

    expect(await deliver(run(), k, slack)).toMatchObject({ outcome: 'sent' });
    expect(received).toHaveLength(2);
  });

  it('a redirect is a refusal, not followed; a body echoing URLs is quoted without them, cut to 200 characters', async () => {
    const k = key('ops');
    const echo = `moved to https://elsewhere.example/x see ${SECRET_PATH} ${'y'.repeat(400)}`;
    script = [{ status: 301, headers: { Location: `${receiverUrl}/moved${SECRET_PATH}` }, body: echo }];
    const failed = await deliver(run(), k, slack);
    expect(failed.outcome).toBe('failed');
    expect(failed.error).toMatch(
      /^ChannelRefusedError: Slack channel ops refused it: 301 \(a redirect, not followed\) moved to \[url\] see \[redacted\] y+…$/,
    );
    expect(failed.error!.length).toBeLessThan(300);
    expect(received).toHaveLength(1);
  });

  it('a 5xx is unknown: the next run posts nothing; --resend-unknown posts', async () => {
    const k = key('ops');
    script = [{ status: 500, body: 'rollup_error' }];
    const unknown = await deliver(run(), k, slack);
    expect(unknown).toEqual({
      outcome: 'unknown',
      error: 'Slack channel ops may have taken it: ChannelServerError: the service answered 500 rollup_error',
    });
    expect(await run().ports.ledger.get(k)).toMatchObject({ state: 'unknown' });

    expect(await deliver(run(), k, slack)).toMatchObject({ outcome: 'unknown' });
    expect(received).toHaveLength(1);

    const resent = await deliver(run(), k, slack, { resendUnknown: true });
    expect(resent).toEqual({ outcome: 'sent', messageId: channelEventId(k) });
    expect(received).toHaveLength(2);
    expect(await run().ports.ledger.get(k)).toMatchObject({ state: 'done', detail: { resentAfterUnknown: true } });
  });

  it('no answer within the timeout, or the connection dropped after the body: unknown, posted once', async () => {
    for (const step of ['hang', 'drop'] as const) {
      const k = key('ops');
      received = [];
      script = [step];
      const unknown = await deliver(run(), k, slack);
      expect(unknown.outcome).toBe('unknown');
      expect(unknown.error).toMatch(
        step === 'hang'
          ? /^Slack channel ops may have taken it: ChannelPostUncertainError: no answer from 127\.0\.0\.1:\d+ within 1000 ms$/
          : /^Slack channel ops may have taken it: ChannelPostUncertainError: connection to 127\.0\.0\.1:\d+ lost after/,
      );
      expect(received).toHaveLength(1);
      expect(await run().ports.ledger.get(k)).toMatchObject({ state: 'unknown' });
    }
  });

  it('Teams: a 400 echoing the signed query is quoted without it; 202 is sent', async () => {
    const k = key('sales');
    script = [{ status: 400, body: 'Workflow sig T0SECRETsig is not valid for this trigger' }];
    expect(await deliver(run(), k, teams)).toEqual({
      outcome: 'failed',
      error:
        'ChannelRefusedError: Teams channel sales refused it: 400 Workflow sig [redacted] is not valid for this trigger',
    });
    script = [{ status: 202, body: '' }];
    expect(await deliver(run(), k, teams)).toEqual({ outcome: 'sent', messageId: channelEventId(k) });
    expect(received).toHaveLength(2);
    expect(received[1]!.url).toBe('/workflows/abc?api-version=1&sig=T0SECRETsig');
    expect(JSON.parse(received[1]!.body)).toMatchObject({ type: 'message' });
  });

  it('a secret that cannot be read: failed, naming the channel and the variable, released', async () => {
    const k = key('ops');
    const failed = await deliver(run({ env: {} }), k, slack);
    expect(failed).toEqual({
      outcome: 'failed',
      error: 'ChannelSecretError: channel ops: environment variable PULSE_CHANNEL_OPS is not set',
    });
    expect(received).toHaveLength(0);
    expect(await run().ports.ledger.get(k)).toBeUndefined();
  });

  it('no time left for a post before the deadline: failed, nothing posted', async () => {
    const r = run();
    const k = key('ops');
    const failed = await deliver(r, k, slack, { deadline: r.now() + 500 });
    expect(failed.error).toMatch(/^ChannelNotPostedError: Slack channel ops: not posted, past the run's deadline/);
    expect(received).toHaveLength(0);
  });

  it('channelSend under claims the caller holds: one post settles every key', async () => {
    const r = run();
    const keys = [key('ops'), key('ops')];
    for (const k of keys) expect(await r.ports.ledger.claim(k)).toEqual({ outcome: 'claimed' });
    const sent = await settleSend(r.ports, keys, channelSend(r.ports, slack, message, { key: keys[0]! }), {
      receiver: channelLabel(slack),
    });
    expect(sent).toEqual({ outcome: 'sent', messageId: channelEventId(keys[0]!) });
    for (const k of keys) expect(await r.ports.ledger.get(k)).toMatchObject({ state: 'done' });
    expect(received).toHaveLength(1);
  });
});

describe('webhooks: at least once, one id', () => {
  const verifier = new Webhook(SIGNING_SECRET);

  it('503, 429, 200: delivered once, one webhook-id on every attempt, fresh timestamps and valid signatures', async () => {
    const r = run();
    const k = key('billing');
    script = [
      { status: 503, body: 'upstream down' },
      { status: 429, headers: { 'Retry-After': '5' } },
      { status: 200, body: '' },
    ];
    const sent = await deliver(r, k, webhook);
    expect(sent).toEqual({ outcome: 'sent', messageId: channelEventId(k) });
    expect(received).toHaveLength(3);
    expect(new Set(received.map((p) => p.headers['webhook-id']))).toEqual(new Set([channelEventId(k)]));
    const stamps = received.map((p) => Number(p.headers['webhook-timestamp']));
    expect(new Set(stamps).size).toBe(3);
    // Backoff (jitter 1) before attempt 2, the Retry-After before attempt 3.
    expect(r.sleeps).toEqual([1000, 5000]);
    for (const p of received) {
      const headers = Object.fromEntries(Object.entries(p.headers).map(([n, v]) => [n, String(v)]));
      expect(verifier.verify(p.body, headers)).toMatchObject({ id: channelEventId(k), type: 'digest.sent' });
    }
  });

  it('every attempt 5xx, a timeout or a dropped connection: failed and released; the next run delivers the same id', async () => {
    const r = run();
    const k = key('billing');
    script = [{ status: 503 }, 'hang', 'drop'];
    const failed = await deliver(r, k, webhook);
    expect(failed.outcome).toBe('failed');
    expect(failed.error).toMatch(
      /^WebhookUndeliveredError: webhook billing did not take event msg_\S+ in 3 attempt\(s\) \(last: ChannelPostUncertainError: connection to 127\.0\.0\.1:\d+ lost after .*\); the next run delivers it again with the same webhook-id$/,
    );
    expect(received).toHaveLength(3);
    expect(r.sleeps).toEqual([1000, 2000]);
    expect(await r.ports.ledger.get(k)).toBeUndefined();

    expect(await deliver(run(), k, webhook)).toEqual({ outcome: 'sent', messageId: channelEventId(k) });
    expect(received).toHaveLength(4);
    expect(received[3]!.headers['webhook-id']).toBe(received[0]!.headers['webhook-id']);
  });

  it('a retry that would pass the deadline is not begun', async () => {
    const r = run();
    const k = key('billing');
    script = [{ status: 503 }];
    const failed = await deliver(r, k, webhook, { deadline: r.now() + 1500 });
    expect(failed.error).toMatch(/in 1 attempt\(s\), then stopped: the next wait \(1 s\) is past the run's deadline/);
    expect(received).toHaveLength(1);
  });

  it('410: refused at once, not retried', async () => {
    const r = run();
    const k = key('billing');
    script = [{ status: 410, body: 'gone' }];
    expect(await deliver(r, k, webhook)).toEqual({
      outcome: 'failed',
      error: 'ChannelRefusedError: webhook billing refused it: 410 gone',
    });
    expect(received).toHaveLength(1);
    expect(r.sleeps).toEqual([]);
  });

  it('a claim left unknown by a run that died is taken over; done is never posted again', async () => {
    const r = run();
    const k = key('billing');
    expect(await r.ports.ledger.claim(k)).toEqual({ outcome: 'claimed' });
    await r.ports.ledger.markUnknown(k, 'the run died');
    expect(await deliver(r, k, webhook)).toEqual({ outcome: 'sent', messageId: channelEventId(k) });
    expect(await deliver(run(), k, webhook)).toEqual({ outcome: 'alreadySent' });
    expect(received).toHaveLength(1);
  });
});
