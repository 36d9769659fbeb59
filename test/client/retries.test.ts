/**
 * The transport's retry policy (docs/interface.md "Safe-to-repeat requests") against injected faults: Cookie Missing,
 * 429 with Retry-After, 5xx bursts, timeouts and deadlines, network errors — and which operations may be repeated at
 * all. Server hits are counted on the wire (a recording `fetch`), so "not retried" is a fact, not a guess.
 */
import { getEventListeners } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import {
  AuthenticationError,
  type ClientOptions,
  type Logger,
  NetworkError,
  RateLimitedError,
  ReportingClient,
  ServerError,
  TimeoutError,
} from '../../src/client/index.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';
import { closedOrigin, type OtherServer, sendTo, served, startOtherServer, WireRecorder } from './wire-recorder.ts';

let emu: Emulator;
let reset: OtherServer;
let productId: string;
let expectedProps: unknown;
const open: ReportingClient[] = [];

beforeAll(async () => {
  emu = await startTestEmulator({ clients: 50 });
  reset = await startOtherServer('reset');
  productId = emu.products[0]!.productId;
  expectedProps = await served(emu, 'GET', '/v3/meta/productProperties');
});
afterEach(async () => {
  emu.faults.clear();
  await Promise.all(open.splice(0).map((c) => c.logout().catch(() => {})));
});
afterAll(async () => {
  await reset.close();
  await emu.close();
});

/** A signed-in client with short delays; `random: 0.5` makes the jittered backoff predictable. */
async function signedInClient(extra: Partial<ClientOptions> = {}) {
  const wire = new WireRecorder();
  const warnings: Record<string, unknown>[] = [];
  const logger: Logger = { debug() {}, info() {}, error() {}, warn: (_m, data) => warnings.push(data ?? {}) };
  const client = new ReportingClient({
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    credentials: emu.credentials,
    fetch: wire.fetch,
    logger,
    cookieMissingDelayMs: 5,
    retryBaseDelayMs: 20,
    random: () => 0.5,
    ...extra,
  });
  open.push(client);
  await client.signIn();
  return { client, wire, warnings };
}

const statuses = (wire: WireRecorder, id: Parameters<WireRecorder['of']>[0]) => wire.of(id).map((r) => r.status);
const props = (c: ReportingClient) => c.call('productProperties');
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

describe('Cookie Missing', () => {
  it('repeats the request once after the configured delay, without signing in again', async () => {
    const { client, wire } = await signedInClient({ cookieMissingDelayMs: 150 });
    emu.faults.set({ rules: [{ operations: ['productProperties'], cookieMissingRate: 1, times: 1 }] });
    const t = performance.now();
    expect(await props(client)).toEqual(expectedProps);
    expect(performance.now() - t).toBeGreaterThanOrEqual(145);
    expect(statuses(wire, 'productProperties')).toEqual([401, 200]);
    expect(wire.of('signIn')).toHaveLength(1);
  });

  it('ends in AuthenticationError after one sign-in again when it persists', async () => {
    const { client, wire } = await signedInClient();
    emu.faults.set({ rules: [{ operations: ['productProperties'], cookieMissingRate: 1 }] });
    const err = await failure(props(client));
    expect(err).toBeInstanceOf(AuthenticationError);
    expect(err).toMatchObject({ status: 401, serviceError: 'Cookie Missing' });
    expect(statuses(wire, 'productProperties')).toEqual([401, 401, 401]);
    expect(wire.of('signIn')).toHaveLength(2);
  });
});

describe('429 Too Many Requests', () => {
  it('waits Retry-After seconds, then repeats', async () => {
    const { client, wire, warnings } = await signedInClient();
    emu.faults.set({
      rules: [{ operations: ['productProperties'], rateLimitRate: 1, retryAfterSeconds: 1, times: 1 }],
    });
    const t = performance.now();
    expect(await props(client)).toEqual(expectedProps);
    expect(performance.now() - t).toBeGreaterThanOrEqual(995);
    expect(statuses(wire, 'productProperties')).toEqual([429, 200]);
    expect(warnings).toEqual([expect.objectContaining({ status: 429, delayMs: 1000 })]);
  });

  it('gives up after maxRetries with RateLimitedError carrying Retry-After', async () => {
    const { client, wire } = await signedInClient({ maxRetries: 2 });
    emu.faults.set({ rules: [{ operations: ['productProperties'], rateLimitRate: 1, retryAfterSeconds: 0 }] });
    const err = await failure(props(client));
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ status: 429, retryAfterSeconds: 0 });
    expect(statuses(wire, 'productProperties')).toEqual([429, 429, 429]);
  });

  it('fails at once when Retry-After lies beyond the deadline', async () => {
    const { client, wire } = await signedInClient({ deadlineMs: 2000 });
    emu.faults.set({ rules: [{ operations: ['productProperties'], rateLimitRate: 1, retryAfterSeconds: 30 }] });
    const err = await failure(props(client));
    expect(err).toMatchObject({ name: 'RateLimitedError', retryAfterSeconds: 30 });
    expect(statuses(wire, 'productProperties')).toEqual([429]);
  });
});

describe('5xx', () => {
  it('retries a burst with exponential backoff, then succeeds', async () => {
    const { client, wire, warnings } = await signedInClient();
    emu.faults.set({ rules: [{ operations: ['productProperties'], serverErrorRate: 1, times: 2 }] });
    expect(await props(client)).toEqual(expectedProps);
    expect(statuses(wire, 'productProperties')).toEqual([503, 503, 200]);
    // base 20 ms doubling, times the injected jitter 0.5
    expect(warnings.map((w) => w.delayMs)).toEqual([10, 20]);
  });

  it('sends every retry with the session cookie and the CSRF header the jar holds', async () => {
    const { client, wire } = await signedInClient();
    emu.faults.set({ rules: [{ operations: ['productProperties'], serverErrorRate: 1, times: 2 }] });
    expect(await props(client)).toEqual(expectedProps);
    const sent = wire.of('productProperties');
    const token = WireRecorder.cookie(sent[0], 'Svc-Session-Token');
    expect(token).toBeTruthy();
    for (const r of sent) {
      expect(WireRecorder.cookie(r, 'Svc-Session-Token')).toBe(token);
      expect(r.headers.get('Svc-Csrf')).toBe(WireRecorder.cookie(r, 'Svc-Csrf'));
      expect(r.headers.get('Svc-Csrf')).toBeTruthy();
    }
  });

  it('maps a non-JSON 5xx page to ServerError after maxRetries', async () => {
    const { client, wire } = await signedInClient({ maxRetries: 1 });
    emu.faults.set({
      rules: [{ operations: ['productProperties'], serverErrorRate: 1, serverErrorStatus: 502, nonJsonBody: true }],
    });
    const err = await failure(props(client));
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status: 502, serviceError: undefined });
    expect((err as Error).message).toContain('502 Bad Gateway');
    expect(statuses(wire, 'productProperties')).toEqual([502, 502]);
  });

  it('fails at once with ServerError when the next backoff would end past the deadline', async () => {
    // random 0.5 of a 2000 ms first backoff = 1000 ms, beyond the 500 ms deadline: no waiting it out.
    const { client, wire, warnings } = await signedInClient({ deadlineMs: 500, retryBaseDelayMs: 2000 });
    emu.faults.set({ rules: [{ operations: ['productProperties'], serverErrorRate: 1 }] });
    const t = performance.now();
    expect(await failure(props(client))).toBeInstanceOf(ServerError);
    expect(performance.now() - t).toBeLessThan(400);
    expect(statuses(wire, 'productProperties')).toEqual([503]);
    expect(warnings).toEqual([]);
  });

  it('never repeats a license-key write answered 5xx', async () => {
    const { client, wire } = await signedInClient();
    emu.faults.set({ rules: [{ operations: ['insertLicenseKeys'], serverErrorRate: 1, times: 2 }] });
    const body = { keyUpdates: [{ licenseKey: 'RETRY-TEST-5XX' }] };
    expect(await failure(client.call('insertLicenseKeys', { productId, body }))).toBeInstanceOf(ServerError);
    expect(statuses(wire, 'insertLicenseKeys')).toEqual([503]);
  });
});

describe('time limits', () => {
  it('turns a slow answer into TimeoutError, retrying a read only within maxRetries', async () => {
    emu.faults.set({ rules: [{ operations: ['productProperties'], latencyMs: 400 }] });
    const once = await signedInClient({ timeoutMs: 80, maxRetries: 0 });
    expect(await failure(props(once.client))).toBeInstanceOf(TimeoutError);
    expect(once.wire.of('productProperties')).toHaveLength(1);
    const twice = await signedInClient({ timeoutMs: 80, maxRetries: 1 });
    expect(await failure(props(twice.client))).toBeInstanceOf(TimeoutError);
    expect(twice.wire.of('productProperties')).toHaveLength(2);
  });

  it('stops at the call deadline long before maxRetries is used up', async () => {
    const { client, wire } = await signedInClient({ timeoutMs: 80, deadlineMs: 200, maxRetries: 20 });
    emu.faults.set({ rules: [{ operations: ['productProperties'], latencyMs: 400 }] });
    expect(await failure(props(client))).toBeInstanceOf(TimeoutError);
    // 80 + 80 + 40 ms of attempts fit in 200 ms (timers only fire late, so never more): far from 21 attempts.
    const attempts = wire.of('productProperties').length;
    expect(attempts).toBeGreaterThanOrEqual(1);
    expect(attempts).toBeLessThanOrEqual(4);
  });
});

describe('stalled bodies', () => {
  it('fails with TimeoutError when the body stalls after the headers, at the call deadline', async () => {
    // Headers arrive at once, the body never completes: the attempt timeout has passed, only the deadline is left.
    const stalling = async (input: Request | URL | string, init?: RequestInit) => {
      const res = await fetch(input, init);
      if (!String(input instanceof Request ? input.url : input).includes('/meta/productProperties')) return res;
      await res.body?.cancel();
      return new Response(new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"result":')) }), {
        status: 200,
        headers: { 'Content-Type': 'application/json' },
      });
    };
    const client = new ReportingClient({
      baseUrl: emu.baseUrl,
      origin: emu.origin,
      credentials: emu.credentials,
      fetch: stalling,
      deadlineMs: 300,
    });
    open.push(client);
    const started = Date.now();
    const err = await failure(props(client));
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).operationId).toBe('productProperties');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
  });
});

describe('network errors', () => {
  it('reports a refused connection as NetworkError after the retries', async () => {
    const wire = new WireRecorder();
    const client = new ReportingClient({
      baseUrl: await closedOrigin(),
      origin: emu.origin,
      credentials: emu.credentials,
      fetch: wire.fetch,
      maxRetries: 2,
      retryBaseDelayMs: 1,
    });
    const err = await failure(props(client));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err).toMatchObject({ operationId: 'requestCsrf', status: undefined });
    expect((err as Error).message).toContain('ECONNREFUSED');
    expect(wire.of('requestCsrf')).toHaveLength(3);
    expect(client.signedIn).toBe(false);
  });

  it('repeats a write whose connection was refused (never sent), and performs it once', async () => {
    const { client, wire } = await signedInClient();
    const refused = await closedOrigin();
    let diverted = 0;
    wire.divert = (req) => (req.url.includes('/update/') && diverted++ === 0 ? sendTo(refused, req) : undefined);
    const body = { keyUpdates: [{ licenseKey: 'RETRY-TEST-REFUSED' }] };
    expect(await client.call('insertLicenseKeys', { productId, body })).toMatchObject({
      result: { inserted: 1, updated: 0 },
    });
    expect(statuses(wire, 'insertLicenseKeys')).toEqual([undefined, 200]);
  });

  it('never repeats a write whose connection broke after sending, but repeats a read', async () => {
    const { client, wire } = await signedInClient();
    const toReset = new Set(['/update/', '/meta/']);
    wire.divert = (req) => {
      const hit = [...toReset].find((p) => req.url.includes(p));
      if (!hit) return undefined;
      toReset.delete(hit); // only the first request of each kind
      return sendTo(reset.origin, req);
    };
    const body = { keyUpdates: [{ licenseKey: 'RETRY-TEST-RESET' }] };
    expect(await failure(client.call('insertLicenseKeys', { productId, body }))).toBeInstanceOf(NetworkError);
    expect(wire.of('insertLicenseKeys')).toHaveLength(1);
    expect(await props(client)).toEqual(expectedProps);
    expect(wire.of('productProperties')).toHaveLength(2);
    expect(reset.received).toHaveLength(2); // both requests really went out before the connection broke
  });
});

describe('abort listeners', () => {
  it('leaves no abort listener on a long-lived signal after many retried calls', async () => {
    const { client, wire } = await signedInClient({ retryBaseDelayMs: 2 });
    const { signal } = new AbortController();
    // Every call waits twice (two 5xx backoffs) and once more for Cookie Missing: three sleeps per call.
    for (let i = 0; i < 15; i++) {
      emu.faults.set({
        rules: [
          { operations: ['productProperties'], serverErrorRate: 1, times: 2 },
          { operations: ['listEvents'], cookieMissingRate: 1, times: 1 },
        ],
      });
      expect(await client.call('productProperties', { signal })).toEqual(expectedProps);
      await client.call('listEvents', { productId, signal });
    }
    expect(statuses(wire, 'productProperties')).toHaveLength(45);
    expect(statuses(wire, 'listEvents')).toHaveLength(30);
    expect(getEventListeners(signal, 'abort')).toHaveLength(0);
  });

  it('still rejects a pending retry wait when the signal aborts', async () => {
    const { client } = await signedInClient({ retryBaseDelayMs: 10_000 });
    emu.faults.set({ rules: [{ operations: ['productProperties'], serverErrorRate: 1 }] });
    const ac = new AbortController();
    const pending = failure(client.call('productProperties', { signal: ac.signal }));
    await new Promise((r) => setTimeout(r, 100));
    ac.abort(new Error('stop'));
    expect(await pending).toMatchObject({ message: 'stop' });
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
  });
});
