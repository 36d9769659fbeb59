/**
 * One error class per failure, and no secret anywhere an error or a log line can surface: the password, the
 * session cookie and the CSRF values (the ones the client really sent, read off the wire) must not appear in any
 * error's message, stack, String(), JSON.stringify() or util.inspect() (which prints the cause chain), nor in any
 * logger call. Also: the service's cookies never reach another origin.
 */
import { randomUUID } from 'node:crypto';
import { inspect } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { ServiceCookieJar } from '../../src/client/cookie-jar.ts';
import {
  AuthenticationError,
  BadRequestError,
  type ClientOptions,
  CsrfError,
  FeatureNotEnabledError,
  NetworkError,
  NotFoundError,
  OriginRejectedError,
  RateLimitedError,
  ReportingClient,
  type ReportingServiceError,
  ServerError,
  TimeoutError,
  UnexpectedStatusError,
} from '../../src/client/index.ts';
import { startTestEmulator, TestSession } from '../helpers/emulator-session.ts';
import { closedOrigin, type OtherServer, sendTo, startOtherServer, WireRecorder } from './wire-recorder.ts';

const PASSWORD = `pw-${randomUUID()}`;
let emu: Emulator;
let other: OtherServer;
let redirector: OtherServer;
let productId: string;

beforeAll(async () => {
  emu = await startTestEmulator({ clients: 50, password: PASSWORD });
  other = await startOtherServer();
  redirector = await startOtherServer(new URL('/steal', other.origin));
  productId = emu.products[0]!.productId;
});
afterEach(() => {
  emu.faults.clear();
  emu.state.sessions.endAll(emu.credentials.userName);
});
afterAll(async () => {
  await Promise.all([other.close(), redirector.close()]);
  await emu.close();
});

function newClient(extra: Partial<ClientOptions> = {}) {
  const wire = new WireRecorder();
  const logs: string[] = [];
  const log = (level: string) => (message: string, data?: Record<string, unknown>) =>
    logs.push(JSON.stringify({ level, message, data }));
  const client = new ReportingClient({
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    credentials: emu.credentials,
    fetch: wire.fetch,
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    maxRetries: 0,
    timeoutMs: 100,
    cookieMissingDelayMs: 5,
    ...extra,
  });
  return { client, wire, logs };
}

/** Every form in which an error reaches a terminal, a log or a bug report. */
const renderings = (e: unknown): string[] => [
  String(e),
  (e as Error).message,
  (e as Error).stack ?? '',
  JSON.stringify(e),
  inspect(e, { depth: Number.POSITIVE_INFINITY, showHidden: true }),
];

function expectNoSecrets(texts: string[], secrets: Iterable<string>): void {
  const leaks: string[] = [];
  for (const secret of secrets) for (const t of texts) if (t.includes(secret)) leaks.push(t.slice(0, 300));
  expect(leaks).toEqual([]);
}

const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('failures and their error classes, free of secrets', () => {
  it('wrong credentials → AuthenticationError without the password tried', async () => {
    const wrong = `${PASSWORD}-wrong`;
    const { client, wire, logs } = newClient({ credentials: { userName: emu.credentials.userName, password: wrong } });
    const err = await failure(client.call('productProperties'));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ operationId: 'signIn', status: 401, serviceError: 'Unauthorized' });
    expect(client.signedIn).toBe(false);
    expectNoSecrets([...renderings(err), ...logs], [wrong, ...wire.sentSecrets()]);
  });

  it('wrong origin → OriginRejectedError', async () => {
    const { client } = newClient({ origin: 'https://evil.example' });
    const err = await failure(client.call('productProperties'));
    expect(err).toBeInstanceOf(OriginRejectedError);
    expect(err).toMatchObject({ operationId: 'requestCsrf', status: 403, serviceError: 'Origin Not Allowed' });
  });

  it('every failure of a signed-in client maps to its class and shows no password, cookie or CSRF value', async () => {
    const { client, wire, logs } = newClient();
    await client.signIn();
    const refused = await closedOrigin();
    const noExport = emu.products.find((p) => !p.rawDataExport)!.productId;
    const props = () => client.call('productProperties');
    /** Runs `action` under `faults` (and a diversion of its requests), and returns what it threw. */
    const provoke = async (action: () => Promise<unknown>, rules: object[] = [], divert?: WireRecorder['divert']) => {
      emu.faults.set({ rules });
      wire.divert = divert;
      const e = await failure(action());
      emu.faults.clear();
      wire.divert = undefined;
      return e;
    };
    const tamperCsrf = (req: Request) => {
      const headers = new Headers(req.headers);
      headers.set('Svc-Csrf', 'tampered');
      return fetch(new Request(req, { headers }));
    };
    const cases: [unknown, new (...a: never[]) => ReportingServiceError, number | undefined][] = [
      [await provoke(props, [{ operations: ['productProperties'], latencyMs: 300 }]), TimeoutError, undefined],
      [await provoke(props, [], (req) => sendTo(refused, req)), NetworkError, undefined],
      [await provoke(props, [], (req) => sendTo(redirector.origin, req)), UnexpectedStatusError, 302],
      [await provoke(props, [{ operations: ['productProperties'], serverErrorRate: 1 }]), ServerError, 503],
      [await provoke(props, [{ rateLimitRate: 1 }]), RateLimitedError, 429],
      [await provoke(() => client.call('listEvents', { productId: 'nope' })), NotFoundError, 404],
      [
        await provoke(() => client.call('dateRangeReport', { productId, body: { stopDate: 'x' } })),
        BadRequestError,
        400,
      ],
      [await provoke(() => client.call('rawEventsListFiles', { productId: noExport })), FeatureNotEnabledError, 403],
      [await provoke(props, [], tamperCsrf), CsrfError, 403],
      [await provoke(props, [{ operations: ['productProperties'], cookieMissingRate: 1 }]), AuthenticationError, 401],
    ];
    for (const [err, cls, status] of cases) {
      expect(err).toBeInstanceOf(cls);
      expect(err).toMatchObject({ status });
    }
    // The service's message names the bad field.
    expect(cases[6]![0]).toMatchObject({ serviceMessage: expect.stringMatching(/^startDate: /) });
    expect(logs.length).toBeGreaterThan(cases.length); // the logger did see these calls

    const secrets = new Set([PASSWORD, ...wire.sentSecrets()]);
    // Non-vacuous: both sessions' tokens (the second after Cookie Missing) and their CSRF values were sent.
    expect(secrets.size).toBeGreaterThanOrEqual(6);
    expectNoSecrets([...cases.flatMap(([e]) => renderings(e)), ...logs], secrets);
    await client.logout();
  });
});

describe('cookie scoping', () => {
  it("the jar gives the service's cookies to its own origin only, and takes none from elsewhere", async () => {
    const url = new URL(emu.baseUrl);
    const jar = new ServiceCookieJar(url.origin, 'Svc');
    const session = new TestSession(emu);
    await session.signIn();
    const lines = [...session.cookies].map(([k, v]) => `${k}=${v}; Path=/`);
    await jar.store(`${emu.baseUrl}/v3/auth/web`, lines);
    const token = session.cookies.get('Svc-Session-Token')!;
    expect(await jar.value('Session-Token')).toBe(token);
    expect(await jar.header(`${emu.baseUrl}/v3/meta/productProperties`)).toContain(`Svc-Session-Token=${token}`);
    for (const elsewhere of [
      `http://127.0.0.1:${Number(url.port) + 1}/v3/meta/productProperties`, // same host, another port
      `https://127.0.0.1:${url.port}/v3/meta/productProperties`, // another scheme
      `http://localhost:${url.port}/v3/meta/productProperties`, // another host name
      other.origin,
    ])
      expect(await jar.header(elsewhere)).toBeUndefined();
    await jar.store(`${other.origin}/x`, ['Svc-Session-Token=planted; Path=/']);
    expect(await jar.value('Session-Token')).toBe(token);
    await session.call('POST', '/v3/auth/logout');
  });

  it('a download from another origin carries no cookie, Origin or service header', async () => {
    const { client } = newClient();
    await client.signIn();
    const before = other.received.length;
    const d = await client.download(`${other.origin}/files/day.zip?signature=abc`);
    expect(await new Response(d.stream).text()).toBe('ok');
    const seen = other.received.slice(before);
    expect(seen).toHaveLength(1);
    for (const name of ['cookie', 'origin', 'svc-csrf', 'svc-client', 'svc-client-version'])
      expect(seen[0]).not.toHaveProperty(name);
    await client.logout();
  });

  it('a redirect answered by the service is not followed, so the cookies stay home', async () => {
    const { client, wire } = newClient();
    await client.signIn();
    const before = other.received.length;
    wire.divert = (req) => sendTo(redirector.origin, req);
    const err = await failure(client.call('productProperties'));
    expect(err).toBeInstanceOf(UnexpectedStatusError);
    expect(err).toMatchObject({ status: 302 });
    expect(other.received.length).toBe(before);
    wire.divert = undefined;
    await client.logout();
  });
});
