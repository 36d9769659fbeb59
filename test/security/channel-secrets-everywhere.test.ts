/**
 * No channel credential anywhere a job leaves a trace (issue 24). A channel's URL (its path and query are the
 * credential) and a webhook's signing secret must never reach a log line, an error, a job result, a file Pulse
 * writes (outbox, archive, ledger) or the state table. Over the real local peers (emulator, dynalite, s3rver, SMTP
 * sink) and a raw HTTP receiver on 127.0.0.1 reached through the real poster and environment secrets, a digest (sent,
 * then run again, and a held one), the license alerts and the license report post to Slack, Teams and webhook
 * channels that take the post, echo their URL in their answers (Slack's 404, a Teams 400 in .NET's JSON, a Symfony
 * receiver's 404 JSON with its slashes escaped, a proxy's 500 page, a 503), redirect, ask to wait (429), never answer,
 * drop the connection after the body, refuse the connection, or whose secret is malformed (JSON, signing secret) or
 * points plain http at another host; the timeout leaves a delivery unknown, so the owner is told by email and in the
 * notice channels. Then every log line, JobResult, email, file under the work dir, item of the state
 * table, and every request the receiver got (all but its request line) is searched for each URL and secret in every
 * form they could travel in.
 */

import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EnvChannelSecrets } from '../../src/adapters/channel-secrets.ts';
import { HttpChannelPoster } from '../../src/adapters/http/channel-poster.ts';
import { parseConfig } from '../../src/config/load.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { DELIVERY_ID_HEADER } from '../../src/core/channels/deliver-to-channel.ts';
import { runDigest } from '../../src/digest/run-digest.ts';
import { runLicenseAlerts } from '../../src/licenses/alerts/run-license-alerts.ts';
import { runLicenseReport } from '../../src/licenses/report/run-license-report.ts';
import type { ChannelKind } from '../../src/ports/channels.ts';
import { fixedClock } from '../../src/ports/clock.ts';
import type { JobPorts } from '../../src/ports/job-ports.ts';
import { DIGEST_TODAY, type LocalDigest, startLocalDigest } from '../helpers/local-digest.ts';
import { filesUnder, leaksIn, leaksInFiles } from '../helpers/secret-search.ts';
import { type StubReply, type StubServer, startStubServer } from '../helpers/stub-server.ts';

const MONDAY = fixedClock(`${DIGEST_TODAY}T10:00:00Z`);
const [DESKTOP, SERVER] = ['12345678901', '9876543210'] as const;
const to = (...names: string[]) => names.map((n) => ({ address: `${n}@example.com` }));
/** A host plain http may not reach (not loopback): refused before any connection is tried. */
const REMOTE_ORIGIN = 'http://hooks.example.com';

/**
 * How the receiver answers a channel's posts: a status (its body may echo the URL the post went to), no answer,
 * the connection dropped after the body, or a 429 to the first post of each delivery id and a 200 to the next.
 */
type Answer = { status: number; headers?: (url: string) => Record<string, string>; body?: (url: string) => string };
type Behaviour = Answer | 'hang' | 'drop' | 'rate-limit-once';

interface TestChannel {
  id: string;
  kind: ChannelKind;
  /** Config fields besides id, kind and secret. */
  extra?: Record<string, unknown>;
  /** The value of its environment variable. */
  secret: string;
  /** How the receiver answers it; absent = its posts never reach the receiver. */
  behaviour?: Behaviour;
}

interface Received {
  channel: string;
  /** The request target (path and query): the one place a channel's URL token may travel. */
  target: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** Every URL, token and signing secret made for a channel: what the search looks for. */
const made = { urls: [] as string[], tokens: [] as string[], signingSecrets: [] as string[] };

/** A random token, remembered for the search. */
function token(): string {
  const t = randomUUID();
  made.tokens.push(t);
  return t;
}

/** A distinctive channel URL: two random tokens in its path and query (a Slack hook's path, a workflow's `sig`). */
function channelUrl(origin: string, kind: ChannelKind): string {
  const [a, b] = [token(), token()];
  const target =
    kind === 'teams'
      ? `/workflows/${a}/triggers/manual/paths/invoke?api-version=2016-06-01&sig=${b}`
      : `/services/T0/B0/${a}?sig=${b}`;
  made.urls.push(`${origin}${target}`);
  return `${origin}${target}`;
}

/** A Standard Webhooks secret; `keyBytes` below 24 makes a malformed one (a key too short). */
function signingSecret(keyBytes = 32): string {
  const secret = `whsec_${randomBytes(keyBytes).toString('base64')}`;
  made.signingSecrets.push(secret);
  return secret;
}

const endpoint = (url: string, secret?: string) =>
  JSON.stringify(secret === undefined ? { url } : { url, signingSecret: secret });

/** What a .NET service (a Teams workflow) writes: JSON with `&` escaped as \u0026. */
const dotnetJson = (value: unknown) => JSON.stringify(value).replaceAll('&', '\\u0026');
const htmlEscaped = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
const targetOf = (url: string) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

/** The channels, one per path a post can take; built once the receiver's origin is known. */
function testChannels(origin: string, closedOrigin: string): TestChannel[] {
  const url = (kind: ChannelKind) => channelUrl(origin, kind);
  return [
    // Slack and Teams take the bare URL too; the first has no `var`, so PULSE_CHANNEL_SLACK_OK is read.
    { id: 'slack-ok', kind: 'slack', secret: url('slack'), behaviour: { status: 200, body: () => 'ok' } },
    { id: 'teams-ok', kind: 'teams', secret: endpoint(url('teams')), behaviour: { status: 202 } },
    { id: 'hook-ok', kind: 'webhook', secret: endpoint(url('webhook'), signingSecret()), behaviour: { status: 204 } },
    {
      id: 'slack-gone',
      kind: 'slack',
      secret: endpoint(url('slack')),
      behaviour: { status: 404, body: (u) => `channel_not_found: no channel behind ${u} (POST ${targetOf(u)})` },
    },
    {
      id: 'teams-bad',
      kind: 'teams',
      secret: endpoint(url('teams')),
      behaviour: {
        status: 400,
        headers: () => ({ 'content-type': 'application/json; charset=utf-8' }),
        body: (u) =>
          dotnetJson({
            error: {
              code: 'InvalidRequestContent',
              message: `The request to '${u}' is not valid.`,
              target: targetOf(u),
              sig: new URL(u).searchParams.get('sig'),
            },
          }),
      },
    },
    {
      // A receiver on Symfony or Laravel whose route moved: its JSON 404 names the request, slashes escaped.
      id: 'hook-gone',
      kind: 'webhook',
      secret: endpoint(url('webhook'), signingSecret()),
      behaviour: {
        status: 404,
        headers: () => ({ 'content-type': 'application/json' }),
        body: (u) => JSON.stringify({ message: `No route found for "POST ${u}"` }).replaceAll('/', '\\/'),
      },
    },
    {
      id: 'slack-broken',
      kind: 'slack',
      secret: endpoint(url('slack')),
      behaviour: {
        status: 500,
        headers: () => ({ 'content-type': 'text/html' }),
        body: (u) =>
          `<html><body><h1>500</h1><p>POST ${htmlEscaped(targetOf(u))} failed: <a href="${htmlEscaped(u)}">retry</a></p></body></html>`,
      },
    },
    {
      id: 'hook-broken',
      kind: 'webhook',
      extra: { maxAttempts: 2 },
      secret: endpoint(url('webhook'), signingSecret()),
      behaviour: { status: 503, body: (u) => `upstream ${u} unavailable` },
    },
    {
      id: 'slack-moved',
      kind: 'slack',
      secret: endpoint(url('slack')),
      behaviour: {
        status: 301,
        headers: (u) => ({ location: `${u}&moved=1` }),
        body: (u) => `Moved Permanently. Redirecting to ${u}&moved=1`,
      },
    },
    { id: 'slack-busy', kind: 'slack', secret: endpoint(url('slack')), behaviour: 'rate-limit-once' },
    {
      id: 'hook-busy',
      kind: 'webhook',
      secret: endpoint(url('webhook'), signingSecret()),
      behaviour: 'rate-limit-once',
    },
    {
      id: 'slack-silent',
      kind: 'slack',
      extra: { timeoutMs: 1000 },
      secret: endpoint(url('slack')),
      behaviour: 'hang',
    },
    {
      id: 'hook-silent',
      kind: 'webhook',
      extra: { timeoutMs: 1000, maxAttempts: 1 },
      secret: endpoint(url('webhook'), signingSecret()),
      behaviour: 'hang',
    },
    { id: 'teams-dropped', kind: 'teams', secret: endpoint(url('teams')), behaviour: 'drop' },
    { id: 'slack-closed', kind: 'slack', secret: endpoint(channelUrl(closedOrigin, 'slack')) },
    // Malformed JSON (the closing brace missing): JSON.parse's message would quote the text, URL and all.
    { id: 'teams-garbled', kind: 'teams', secret: endpoint(url('teams')).slice(0, -1) },
    // A signing secret that is not base64 (the token and a `!`) and one whose key is too short.
    { id: 'hook-badkey', kind: 'webhook', secret: endpoint(url('webhook'), `whsec_${token()}!`) },
    { id: 'hook-shortkey', kind: 'webhook', secret: endpoint(url('webhook'), signingSecret(12)) },
    { id: 'slack-plain', kind: 'slack', secret: channelUrl(REMOTE_ORIGIN, 'slack') },
    { id: 'hook-plain', kind: 'webhook', secret: endpoint(channelUrl(REMOTE_ORIGIN, 'webhook'), signingSecret()) },
  ];
}

/** Where each channel's secret is: its own variable, except slack-ok's (the default name). */
const varOf = (c: TestChannel) =>
  c.id === 'slack-ok' ? 'PULSE_CHANNEL_SLACK_OK' : `TEST_CHANNEL_${c.id.replaceAll('-', '_')}`;
const NOTICE_CHANNELS = ['slack-ok', 'teams-ok', 'hook-ok', 'slack-gone', 'teams-bad'];

let env: LocalDigest;
let receiver: StubServer;
let channels: TestChannel[] = [];
const received: Received[] = [];
const results: string[] = [];
const outcomes: Record<string, unknown> = {};
const record = (name: string, r: unknown) => {
  outcomes[name] = r;
  results.push(JSON.stringify(r), inspect(r, { depth: Number.POSITIVE_INFINITY, showHidden: true }));
  return r;
};

/** The receiver: answers each channel's posts as its behaviour says, and keeps every request whole. */
async function startReceiver(): Promise<StubServer> {
  const limited = new Set<string>();
  const server = await startStubServer((req, body): StubReply | Promise<StubReply> => {
    const target = req.url ?? '';
    const channel = channels.find((c) => c.behaviour && targetOf(urlOf(c)) === target);
    received.push({ channel: channel?.id ?? '?', target, headers: req.headers, body });
    const url = `${receiver.url}${target}`;
    const behaviour = channel?.behaviour ?? { status: 404, body: () => 'no_service' };
    if (behaviour === 'hang') return new Promise(() => {});
    if (behaviour === 'drop') {
      req.socket.destroy();
      return new Promise(() => {});
    }
    if (behaviour === 'rate-limit-once') {
      const id = String(req.headers[DELIVERY_ID_HEADER] ?? req.headers['webhook-id']);
      if (limited.has(id)) return { status: 200, headers: {}, body: 'ok' };
      limited.add(id);
      return { status: 429, headers: { 'retry-after': '1' }, body: `rate_limited ${url}` };
    }
    return { status: behaviour.status, headers: behaviour.headers?.(url) ?? {}, body: behaviour.body?.(url) ?? '' };
  });
  return server;
}

/** The URL in a channel's secret (its JSON, or the bare URL; the garbled one's JSON cut short). */
function urlOf(c: TestChannel): string {
  return /https?:\/\/[^"]+/.exec(c.secret)![0];
}

/** A port nothing listens on: a server's, closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function configWithChannels(base: PulseConfig): PulseConfig {
  const ids = channels.map((c) => c.id);
  return parseConfig({
    ...base,
    channels: channels.map((c) => ({
      id: c.id,
      kind: c.kind,
      ...c.extra,
      secret: c.id === 'slack-ok' ? { source: 'env' } : { source: 'env', var: varOf(c) },
    })),
    digests: [
      { id: 'weekly', productIds: [DESKTOP, SERVER], recipients: to('ann'), channels: ids, owner: 'owner@example.com' },
      { id: 'guarded', productIds: [SERVER], recipients: to('g1'), owner: 'guard-owner@example.com' },
    ],
    licenses: {
      productIds: [DESKTOP, SERVER],
      owner: { address: 'licenses@example.com', timeZone: 'UTC' },
      routing: [{ recipients: to('keys'), channels: ids }],
      report: { recipients: to('ops'), channels: ids },
    },
    notices: { channels: NOTICE_CHANNELS },
  });
}

beforeAll(async () => {
  receiver = await startReceiver();
  channels = testChannels(receiver.url, `http://127.0.0.1:${await closedPort()}`);
  env = await startLocalDigest({
    clients: 120,
    products: [
      { id: DESKTOP, name: 'Desktop' },
      { id: SERVER, name: 'Server' },
    ],
    digests: [],
  });
  const config = configWithChannels(env.config);
  const vars = Object.fromEntries(channels.map((c) => [varOf(c), c.secret]));
  const ports = (): JobPorts => ({
    ...env.ports(MONDAY),
    channels: { secrets: new EnvChannelSecrets(vars), poster: new HttpChannelPoster() },
  });

  record('digest', await runDigest(config, ports(), { digestIds: ['weekly'] }));
  // Again: the unknown deliveries are reported from the ledger's record, the refused ones posted again.
  record('digest again', await runDigest(config, ports(), { digestIds: ['weekly'] }));
  const emu = env.peers.emulator;
  emu.faults.set({ rules: [{ operations: ['usageDistribution'], serverErrorRate: 1 }] });
  try {
    record('held digest', await runDigest(config, ports(), { digestIds: ['guarded'] }));
  } finally {
    emu.faults.set({ rules: [] });
  }
  record('license alerts', await runLicenseAlerts(config, ports()));
  record('license report', await runLicenseReport(config, ports()));
}, 180_000);

afterAll(async () => {
  await receiver?.close();
  await env?.close();
});

/** Each URL and secret in every form it could travel in. */
function secrets(): string[] {
  const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');
  const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');
  const urlForms = made.urls.flatMap((url) => {
    const target = targetOf(url);
    return [
      url,
      target,
      encodeURIComponent(url),
      encodeURIComponent(target),
      JSON.stringify(url).slice(1, -1),
      url.replaceAll('/', '\\/'),
      dotnetJson(url).slice(1, -1),
      htmlEscaped(url),
      b64(url),
      b64url(url),
    ];
  });
  const secretForms = made.signingSecrets.flatMap((secret) => {
    const keyPart = secret.slice('whsec_'.length);
    const key = Buffer.from(keyPart, 'base64');
    return [secret, keyPart, b64url(key), key.toString('hex'), encodeURIComponent(secret), b64(secret)];
  });
  return [...new Set([...made.tokens, ...urlForms, ...secretForms])];
}

const errorsOf = (name: string) => (outcomes[name] as { errors: string[] }).errors.join('\n');
const postsTo = (id: string) => received.filter((r) => r.channel === id);

describe('channel posts that succeed, are refused, fail, time out or never leave', () => {
  it('each channel was posted to (or not) as its behaviour says, and the runs say what happened by name', () => {
    for (const id of ['slack-ok', 'teams-ok', 'hook-ok', 'slack-gone', 'teams-bad', 'slack-broken', 'teams-dropped']) {
      expect(postsTo(id).length, id).toBeGreaterThan(0);
    }
    // A 429 then a 200 for every delivery id: each post made twice, sent the second time.
    for (const id of ['slack-busy', 'hook-busy']) {
      const ids = postsTo(id).map((r) => String(r.headers[DELIVERY_ID_HEADER] ?? r.headers['webhook-id']));
      expect(ids.length, id).toBeGreaterThan(0);
      expect(ids.length, id).toBe(2 * new Set(ids).size);
    }
    // Nothing reaches the receiver when the secret is unusable or the URL is refused.
    for (const id of ['teams-garbled', 'hook-badkey', 'hook-shortkey', 'slack-plain', 'hook-plain']) {
      expect(postsTo(id), id).toEqual([]);
    }
    const digest = errorsOf('digest');
    expect(digest).toContain('Slack channel slack-gone refused it: 404 channel_not_found');
    expect(digest).toContain('Teams channel teams-bad refused it: 400');
    expect(digest).toMatch(/Slack channel slack-silent.*unknown|unknown.*Slack channel slack-silent/);
    expect(digest).toContain('webhook hook-broken did not take event');
    expect(digest).toContain('environment variable TEST_CHANNEL_teams_garbled is not valid JSON');
    expect(digest).toContain('has an unusable "signingSecret"');
    expect(digest).toContain('must be https');
    expect(outcomes.digest).toMatchObject({ ok: false, counts: { sent: 6, unknown: 3 } });
    expect(outcomes['digest again']).toMatchObject({ ok: false, counts: { skippedAlreadySent: 6, unknown: 3 } });
    expect(outcomes['held digest']).toMatchObject({ ok: false, counts: { held: 1 } });
    expect(outcomes['license alerts']).toMatchObject({ ok: false });
    expect(outcomes['license report']).toMatchObject({ ok: false });
  });

  it("the digest's unknown channel delivery reached its owner by email and in the notice channels", async () => {
    const notices = (await env.mails()).filter((m) => m.parsed.headers.get('x-pulse-notice') === 'delivery-unknown');
    expect(notices.map((m) => m.to)).toContain('owner@example.com');
    const owner = notices.filter((m) => m.to === 'owner@example.com').map((m) => m.parsed.text ?? '');
    expect(owner.some((t) => t.includes('Slack channel slack-silent'))).toBe(true);
    for (const id of ['slack-ok', 'teams-ok', 'hook-ok']) {
      const bodies = postsTo(id).map((r) => r.body.toString('utf8'));
      expect(
        bodies.some((b) => b.includes('slack-silent') && /delivery[ .]unknown/i.test(b)),
        id,
      ).toBe(true);
    }
  });

  it('every webhook post is signed, and the chat posts carry their delivery id', () => {
    for (const r of received) {
      const kind = channels.find((c) => c.id === r.channel)?.kind;
      if (kind === 'webhook') expect(r.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
      else expect(r.headers[DELIVERY_ID_HEADER]).toMatch(/\S/);
    }
  });
});

describe('no channel URL or signing secret in any trace', () => {
  it('the search finds each URL and secret in each form it looks for (a planted canary)', () => {
    expect(made.urls).toHaveLength(channels.length);
    expect(made.signingSecrets.length).toBeGreaterThanOrEqual(6);
    for (const s of secrets()) {
      const found: string[] = [];
      leaksIn(
        secrets(),
        'canary',
        Buffer.concat([Buffer.from('prefix '), Buffer.from(s), Buffer.from(' suffix')]),
        found,
      );
      expect(found.length).toBeGreaterThan(0);
    }
  });

  it('no log line holds one', () => {
    expect(env.logLines.some((l) => l.includes('"channel answered"'))).toBe(true);
    expect(env.logLines.some((l) => l.includes('"channel post failed"'))).toBe(true);
    const found: string[] = [];
    for (const [i, line] of env.logLines.entries()) leaksIn(secrets(), `log line ${i}`, line, found);
    expect(found).toEqual([]);
  });

  it('no JobResult (errors, outputs, counts; JSON and util.inspect) holds one', () => {
    expect(results).toHaveLength(10);
    const found: string[] = [];
    for (const [i, r] of results.entries()) leaksIn(secrets(), `result ${i}`, r, found);
    expect(found).toEqual([]);
  });

  it('no email in the sink holds one (raw and decoded)', async () => {
    const found: string[] = [];
    const mails = await env.mails();
    expect(mails.length).toBeGreaterThanOrEqual(5);
    for (const m of mails) {
      leaksIn(secrets(), `mail to ${m.to}`, m.raw, found);
      leaksIn(secrets(), `mail to ${m.to} (decoded)`, `${m.parsed.text}${m.parsed.html}`, found);
      for (const a of m.parsed.attachments) leaksIn(secrets(), `attachment ${a.filename}`, a.content, found);
    }
    expect(found).toEqual([]);
  });

  it('no item of any dynalite table holds one (every table scanned)', async () => {
    const db = env.peers.dynamodb as DynamoDBDocumentClient;
    const found: string[] = [];
    const { TableNames = [] } = await db.send(new ListTablesCommand({}));
    let items = 0;
    for (const TableName of TableNames) {
      for await (const page of paginateScan({ client: db }, { TableName })) {
        for (const item of page.Items ?? []) {
          items++;
          leaksIn(secrets(), `${TableName} ${String(item.pk ?? '')}`, JSON.stringify(item), found);
        }
      }
    }
    expect(items).toBeGreaterThan(20);
    expect(found).toEqual([]);
  });

  it("no file under the work dir (outbox and its .eml files, s3rver's objects, dynalite's LevelDB) holds one", async () => {
    const found: string[] = [];
    const files = await filesUnder(env.peers.workDir);
    expect(files.some((f) => f.endsWith('.eml'))).toBe(true);
    expect(files.some((f) => f.includes(`${join(env.peers.workDir, 'dynamodb')}`))).toBe(true);
    expect(files.some((f) => f.includes(`${join(env.peers.workDir, 's3')}`))).toBe(true);
    await leaksInFiles(secrets(), files, found);
    expect(found).toEqual([]);
  });

  it('no request the receiver got holds one beyond its request line; the signing secret is never sent', () => {
    expect(received.length).toBeGreaterThan(20);
    const found: string[] = [];
    for (const [i, r] of received.entries()) {
      const c = channels.find((x) => x.id === r.channel);
      // The request line carries exactly the channel's own path and query, nothing more.
      expect(c && targetOf(urlOf(c)), r.target).toBe(r.target);
      leaksIn(secrets(), `request ${i} to ${r.channel} (headers)`, JSON.stringify(r.headers), found);
      leaksIn(secrets(), `request ${i} to ${r.channel} (body)`, r.body, found);
    }
    expect(found).toEqual([]);
  });
});
