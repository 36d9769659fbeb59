/**
 * `pulse doctor` and its channels over real sockets: a stub on 127.0.0.1 stands in for Slack, Teams and a webhook
 * receiver (which verifies the signature with the `standardwebhooks` library), reached through secrets in the
 * environment as a workstation holds them; `--local` posts to the local channel sink; the full doctor runs against
 * the emulator and the SMTP sink. Each outcome of `--send-test` has its line and exit code, exactly one post is made
 * whatever the answer, and no output (stdout, stderr, with --verbose) holds a channel URL's path, query or a
 * signing secret.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { type SmtpSink, startSmtpSink } from '../../src/adapters/local/smtp-sink.ts';
import { WORK_DIR_LOCK } from '../../src/adapters/local/work-dir.ts';
import { RETIRED_CONNECTOR } from '../../src/doctor/channel-url-form.ts';
import { pulseMain } from '../helpers/cli-main.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';
import { runPulse } from '../helpers/pulse-process.ts';
import { type StubReply, type StubServer, startStubServer } from '../helpers/stub-server.ts';

const SIGNING = `whsec_${Buffer.alloc(32, 11).toString('base64')}`;
/** The credential part of every channel URL: it must never be printed. */
const LEAK = 'T0LEAKY/B0LEAKY/pathcredential42';
const SIG = 'sigleakyquery77';

interface Received {
  route: string;
  headers: IncomingMessage['headers'];
  body: string;
  verified?: boolean;
}

/** The stand-in for every channel: what each route answers. `slow` never answers (until the stub closes). */
const ROUTES: Record<string, (r: Received) => StubReply | Promise<StubReply>> = {
  'slack-ok': () => ({ status: 200, headers: { 'content-type': 'text/plain' }, body: 'ok' }),
  'teams-ok': () => ({ status: 202, headers: {}, body: '' }),
  webhook: (r) => {
    try {
      new Webhook(SIGNING).verify(r.body, r.headers as Record<string, string>);
      r.verified = true;
      return { status: 204, headers: {}, body: '' };
    } catch {
      r.verified = false;
      return { status: 401, headers: {}, body: 'invalid signature' };
    }
  },
  'slack-gone': () => ({ status: 404, headers: { 'content-type': 'text/plain' }, body: 'channel_not_found' }),
  'slack-busy': () => ({ status: 429, headers: { 'retry-after': '30' }, body: 'rate_limited' }),
  'slack-broken': () => ({ status: 500, headers: {}, body: `proxy error at /slack-broken/${LEAK}` }),
  'slack-slow': () => new Promise<StubReply>(() => {}),
};

let stub: StubServer;
let dir: string;
let config: string;
let env: Record<string, string>;
const received: Received[] = [];
const posts = (route: string) => received.filter((r) => r.route === route);

beforeAll(async () => {
  stub = await startStubServer((req, body) => {
    const r: Received = { route: (req.url ?? '').split('/')[1] ?? '', headers: req.headers, body: body.toString() };
    received.push(r);
    return (ROUTES[r.route] ?? (() => ({ status: 404, headers: {}, body: 'no route' })))(r);
  });
  dir = await mkdtemp(join(tmpdir(), 'pulse-send-test-'));
  const url = (route: string) => `${stub.url}/${route}/${LEAK}?sig=${SIG}`;
  env = {
    PULSE_CHANNEL_OPS_SLACK: url('slack-ok'),
    PULSE_CHANNEL_OPS_TEAMS: JSON.stringify({ url: url('teams-ok') }),
    PULSE_CHANNEL_BILLING: JSON.stringify({ url: url('webhook'), signingSecret: SIGNING }),
    PULSE_CHANNEL_GONE: url('slack-gone'),
    PULSE_CHANNEL_BUSY: url('slack-busy'),
    PULSE_CHANNEL_BROKEN: url('slack-broken'),
    PULSE_CHANNEL_SLOW: url('slack-slow'),
    // Nothing listens there: the connection is refused before anything is sent.
    PULSE_CHANNEL_CLOSED: 'http://127.0.0.1:9/slack-closed/T0LEAKY/B0LEAKY/pathcredential42',
  };
  config = join(dir, 'pulse.config.json');
  await writeFile(
    config,
    JSON.stringify({
      service: { baseUrl: 'http://127.0.0.1:9', origin: 'https://dash.example.com', credentials: { source: 'env' } },
      products: [{ id: '12345678901' }],
      mail: { from: 'pulse@example.com', transport: { kind: 'smtp', host: '127.0.0.1', port: 9 } },
      channels: [
        { id: 'ops-slack', kind: 'slack' },
        { id: 'ops-teams', kind: 'teams' },
        { id: 'billing', kind: 'webhook' },
        { id: 'gone', kind: 'slack' },
        { id: 'busy', kind: 'slack' },
        { id: 'broken', kind: 'slack' },
        { id: 'slow', kind: 'slack', timeoutMs: 1000 },
        { id: 'closed', kind: 'slack' },
        { id: 'unset', kind: 'slack' },
      ],
      notices: { channels: ['ops-slack'] },
    }),
  );
});
afterAll(async () => {
  await stub?.close();
  await rm(dir, { recursive: true, force: true });
});

/** No credential part of any channel URL, nor the signing secret, in anything printed. */
function expectNoSecrets(...outputs: string[]) {
  for (const out of outputs) {
    for (const leak of [
      LEAK,
      SIG,
      SIGNING,
      SIGNING.slice('whsec_'.length),
      'pathcredential42',
      env.PULSE_CHANNEL_OPS_SLACK!,
    ])
      expect(out).not.toContain(leak);
  }
}

/** `--send-test channel` with the stub's config, or with `--local` (and no --config) the bundled example's. */
async function sendTest(channel: string, extra: string[] = []) {
  const configArgs = extra.includes('--local') ? [] : ['--config', config];
  const out = await pulseMain(['doctor', ...configArgs, '--send-test', channel, '--verbose', ...extra], env);
  expectNoSecrets(out.stdout, out.stderr);
  const lines = out.stdout.trimEnd().split('\n');
  return { ...out, lines, test: lines.find((l) => l.startsWith('✓ test message:') || l.startsWith('✗ test message:')) };
}

describe('pulse doctor --send-test CHANNEL', () => {
  it('posts one Slack test message and prints "sent" with the status (200 ok); exit 0', async () => {
    const { code, lines, test } = await sendTest('ops-slack', ['--stack', 'PulseStaging']);
    expect(lines[1]).toMatch(
      /^! Slack channel ops-slack: host 127\.0\.0\.1:\d+, secret from environment variable PULSE_CHANNEL_OPS_SLACK; used by notices: plain http to a loopback host: a local stand-in, not Slack$/,
    );
    expect(test).toBe('✓ test message: sent: Slack channel ops-slack answered 200 ok');
    expect(lines.at(-1)).toBe('doctor: no check failed (2 passed, 1 warnings, 0 skipped)');
    expect(code).toBe(0);
    const [post] = posts('slack-ok');
    const payload = JSON.parse(post!.body) as { text: string; blocks: unknown[] };
    const text = JSON.stringify(payload);
    expect(text).toContain('Pulse test message');
    expect(text).toContain('Sent by pulse doctor --send-test (config pulse.config.json, stack PulseStaging)');
    expect(posts('slack-ok')).toHaveLength(1);
  });

  it('posts a Teams card, answered 202', async () => {
    const { code, test } = await sendTest('ops-teams');
    expect(test).toBe(
      '✓ test message: sent: Teams channel ops-teams answered 202 (the workflow took it: check the channel)',
    );
    expect(code).toBe(0);
    expect(JSON.parse(posts('teams-ok')[0]!.body)).toMatchObject({
      type: 'message',
      attachments: [{ contentType: 'application/vnd.microsoft.card.adaptive' }],
    });
  });

  it('posts a webhook channel.test event, signed (verified by standardwebhooks), and prints its webhook-id', async () => {
    const { code, test } = await sendTest('billing', ['--stack', 'PulseStaging']);
    const [post] = posts('webhook');
    expect(post!.verified).toBe(true);
    const id = post!.headers['webhook-id'];
    expect(test).toBe(
      `✓ test message: sent: webhook billing answered 204; webhook-id ${id}: look for it in the receiver's log`,
    );
    expect(code).toBe(0);
    const event = JSON.parse(post!.body);
    expect(event).toMatchObject({
      type: 'channel.test',
      version: 1,
      id,
      data: {
        channel: 'billing',
        config: 'pulse.config.json',
        stack: 'PulseStaging',
        sentBy: 'pulse doctor --send-test',
      },
    });
    // Each test is a new event: a receiver that deduplicates does not drop the second one.
    await sendTest('billing');
    expect(posts('webhook')).toHaveLength(2);
    expect(posts('webhook')[1]!.headers['webhook-id']).not.toBe(id);
  });

  it('a refusal (404 channel_not_found) is named, nothing posted again; exit 4', async () => {
    const { code, test } = await sendTest('gone');
    expect(test).toMatch(
      /^✗ test message: refused: Slack channel gone answered 404 channel_not_found: nothing was posted; check the channel's secret/,
    );
    expect(code).toBe(4);
    expect(posts('slack-gone')).toHaveLength(1);
  });

  it('a 429 is reported as rate limited, not waited out: one post; exit 4', async () => {
    const { code, test } = await sendTest('busy');
    expect(test).toBe(
      '✗ test message: rate limited: Slack channel busy answered 429 rate_limited: nothing was posted; try again in 30 s',
    );
    expect(code).toBe(4);
    expect(posts('slack-busy')).toHaveLength(1);
  });

  it('a 5xx is unknown (it may have posted it), its body cleaned of URLs; exit 4', async () => {
    const { code, test } = await sendTest('broken');
    expect(test).toBe(
      '✗ test message: unknown: Slack channel broken answered 500 proxy error at [redacted]: it may have posted it, check the channel',
    );
    expect(code).toBe(4);
    expect(posts('slack-broken')).toHaveLength(1);
  });

  it('no answer within timeoutMs is unknown: it may have arrived; exit 5 (network)', async () => {
    const { code, test } = await sendTest('slow');
    expect(test).toMatch(
      /^✗ test message: unknown: no answer from 127\.0\.0\.1:\d+ within 1000 ms: it may have arrived, check the channel$/,
    );
    expect(code).toBe(5);
    expect(posts('slack-slow')).toHaveLength(1);
  });

  it('a refused connection is "not sent"; exit 5', async () => {
    const { code, test } = await sendTest('closed');
    expect(test).toMatch(/^✗ test message: not sent: not sent to 127\.0\.0\.1:9 \(ECONNREFUSED.*\): check the network/);
    expect(code).toBe(5);
  });

  it("a channel whose secret is not set is not posted to; exit 3 (the channel's credentials)", async () => {
    const { code, lines } = await sendTest('unset');
    expect(lines[1]).toBe(
      '✗ Slack channel unset: environment variable PULSE_CHANNEL_UNSET is not set: put the channel\'s JSON {"url"} there (docs/channels.md); ' +
        'configured but unused: no digest, license route, license report, notices or archive names it',
    );
    expect(lines[2]).toBe("- test message: not sent: the channel's secret is not usable (above)");
    expect(code).toBe(3);
  });

  it('an unknown channel id is a usage error naming the known ones; nothing is posted', async () => {
    const before = received.length;
    const { code, stderr } = await pulseMain(['doctor', '--config', config, '--send-test', 'nope'], env);
    expect(stderr).toBe(
      'pulse: --send-test nope: not in channels (ops-slack, ops-teams, billing, gone, busy, broken, slow, closed, unset)\n',
    );
    expect(code).toBe(2);
    expect(received.length).toBe(before);
  });

  it('--local and --work-dir go with --send-test', async () => {
    const { code, stderr } = await pulseMain(['doctor', '--config', config, '--local'], env);
    expect(stderr).toMatch(/^pulse: --local and --work-dir go with --send-test/);
    expect(code).toBe(2);
  });
});

describe('pulse doctor --send-test CHANNEL --local', () => {
  const workDir = () => join(dir, 'work');

  it('posts to the local channel sink, names the outbox file, and starts nothing else (no ledger)', async () => {
    const { code, lines, test } = await sendTest('product-slack', ['--local', '--work-dir', workDir()]);
    expect(lines[1]).toMatch(
      /^✓ Slack channel product-slack: the local channel sink at 127\.0\.0\.1:\d+ \(--local: the configured secret is not read\)$/,
    );
    const file = /outbox (\S+\.json) \(and its \.html preview\)$/.exec(test ?? '')?.[1];
    expect(test).toMatch(/^✓ test message: sent: Slack channel product-slack answered 200 ok; outbox /);
    expect(code).toBe(0);
    expect(file?.startsWith(join(workDir(), 'outbox', 'channels', 'product-slack'))).toBe(true);
    const record = JSON.parse(await readFile(file!, 'utf8'));
    expect(JSON.stringify(record.payload)).toContain('Pulse test message');
    expect(existsSync(file!.replace(/\.json$/, '.html'))).toBe(true);
    // Only the sink ran: no emulator, DynamoDB (the ledger) or S3 state, and no lock left behind.
    expect(await readdir(workDir())).toEqual(['outbox']);
  });

  it('signs a webhook event the sink verifies, printing the webhook-id its outbox file holds', async () => {
    const { code, test } = await sendTest('pulse-events', ['--local', '--work-dir', workDir()]);
    expect(code).toBe(0);
    const [, id, file] = /webhook-id (msg_\S+): .*; outbox (\S+\.json)/.exec(test ?? '') ?? [];
    const record = JSON.parse(await readFile(file!, 'utf8'));
    expect(record.headers['webhook-id']).toBe(id);
    expect(record.payload.type).toBe('channel.test');
  });

  it('refuses a work directory whose local peers are running: their sink numbers files in the same outbox', async () => {
    const busy = join(dir, 'busy');
    await mkdir(busy, { recursive: true });
    await writeFile(join(busy, WORK_DIR_LOCK), String(process.pid));
    const out = await pulseMain(['doctor', '--send-test', 'product-slack', '--local', '--work-dir', busy]);
    expect(out.stderr).toBe(
      `pulse doctor: ${busy} is in use by local peers of process ${process.pid}; send the test once they stopped, or use another --work-dir\n`,
    );
    expect(out.code).toBe(1);
    expect(await readdir(busy)).toEqual([WORK_DIR_LOCK]);
  });

  it('without the dev dependencies (a production install) says what to install; exit 2', async () => {
    const preload = ['--import', new URL('../helpers/without-dev-dependencies.ts', import.meta.url).pathname];
    const r = await runPulse(
      ['doctor', '--send-test', 'product-slack', '--local', '--work-dir', join(dir, 'prod')],
      {},
      preload,
    );
    expect(r.stderr).toBe(
      'pulse doctor: the local peers need the dev dependencies: run `npm ci` (not --omit=dev); standardwebhooks is not installed\n',
    );
    expect(r.code).toBe(2);
  });

  it("meets the sink's faults ($PULSE_LOCAL_CHANNEL_FAULTS): a refusal; exit 4", async () => {
    const faults = JSON.stringify({ seed: 1, rate: 1, kinds: ['refuse'] });
    const out = await pulseMain(['doctor', '--send-test', 'product-slack', '--local', '--work-dir', workDir()], {
      PULSE_LOCAL_CHANNEL_FAULTS: faults,
    });
    expect(out.stdout).toContain(
      '✗ test message: refused: Slack channel product-slack answered 404 channel_not_found: nothing was posted',
    );
    expect(out.code).toBe(4);
  });
});

describe('pulse doctor: one line per channel', () => {
  let emu: Emulator;
  let sink: SmtpSink;
  beforeAll(async () => {
    emu = await startTestEmulator();
    sink = await startSmtpSink({ outboxDir: join(dir, 'smtp-outbox') });
  });
  afterAll(async () => {
    await sink?.close();
    await emu?.close();
  });

  it('checks each secret and URL form without posting, warns of an unused channel, fails a retired connector (exit 3)', async () => {
    const file = join(dir, 'full.config.json');
    await writeFile(
      file,
      JSON.stringify({
        service: {
          baseUrl: emu.baseUrl,
          origin: emu.origin,
          headerPrefix: emu.headerPrefix,
          credentials: { source: 'env' },
        },
        products: [{ id: emu.products[1]!.productId }],
        mail: { from: 'pulse@example.com', transport: { kind: 'smtp', host: sink.host, port: sink.port } },
        channels: [
          { id: 'ops', kind: 'slack' },
          { id: 'sales', kind: 'teams' },
          { id: 'legacy', kind: 'teams' },
          { id: 'billing', kind: 'webhook' },
        ],
        notices: { channels: ['ops', 'legacy', 'billing'] },
      }),
    );
    const channelEnv = {
      PULSE_USER: emu.credentials.userName,
      PULSE_PASSWORD: emu.credentials.password,
      PULSE_CHANNEL_OPS: `https://hooks.slack.com/services/${LEAK}`,
      PULSE_CHANNEL_SALES: JSON.stringify({
        url: `https://prod-1.westeurope.logic.azure.com/workflows/${LEAK}?sig=${SIG}`,
      }),
      PULSE_CHANNEL_LEGACY: `https://contoso.webhook.office.com/webhookb2/${LEAK}`,
      PULSE_CHANNEL_BILLING: JSON.stringify({ url: `https://receiver.example.com/${LEAK}`, signingSecret: SIGNING }),
    };
    const before = received.length;
    const { code, stdout, stderr } = await pulseMain(['doctor', '--config', file, '--verbose'], channelEnv);
    expectNoSecrets(stdout, stderr);
    const lines = stdout.trimEnd().split('\n');
    const line = (name: string) => lines.find((l) => l.slice(2).startsWith(`${name}:`));
    expect(line('Slack channel ops')).toBe(
      '✓ Slack channel ops: host hooks.slack.com, secret from environment variable PULSE_CHANNEL_OPS; used by notices',
    );
    expect(line('Teams channel sales')).toBe(
      '! Teams channel sales: host prod-1.westeurope.logic.azure.com, secret from environment variable PULSE_CHANNEL_SALES: ' +
        'configured but unused: no digest, license route, license report, notices or archive names it',
    );
    expect(line('Teams channel legacy')).toBe(
      `✗ Teams channel legacy: host contoso.webhook.office.com, secret from environment variable PULSE_CHANNEL_LEGACY; used by notices: ${RETIRED_CONNECTOR}`,
    );
    expect(line('webhook billing')).toBe(
      '✓ webhook billing: host receiver.example.com, secret from environment variable PULSE_CHANNEL_BILLING; used by notices',
    );
    expect(line('sign-out')).toBe('✓ sign-out: session ended');
    expect(lines.at(-1)).toMatch(/^doctor: 1 of \d+ checks failed$/);
    // The one failure is the channel's secret: its credentials.
    expect(code).toBe(3);
    expect(received.length).toBe(before);
  });
});
