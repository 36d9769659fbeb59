/**
 * The client's session against the emulator over real sockets: request-csrf → sign-in → data call, lazy sign-in,
 * logout on every exit path, transparent re-authentication (single-flight), and the session limit.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { type ClientOptions, NotFoundError, ReportingClient, SessionLimitError } from '../../src/client/index.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';
import { served, WireRecorder } from './wire-recorder.ts';

const TOKEN = 'Svc-Session-Token';
let emu: Emulator;
let productId: string;
let expectedProps: unknown;
let expectedEvents: unknown;

beforeAll(async () => {
  emu = await startTestEmulator({ clients: 50 });
  productId = emu.products[0]!.productId;
  expectedProps = await served(emu, 'GET', '/v3/meta/productProperties');
  expectedEvents = await served(emu, 'GET', `/v3/event-tracking/${productId}`);
});
afterEach(() => {
  emu.faults.clear();
  // Sessions a failed test left behind must not push later tests into the session limit.
  emu.state.sessions.endAll(emu.credentials.userName);
});
afterAll(() => emu.close());

function newClient(extra: Partial<ClientOptions> = {}) {
  const wire = new WireRecorder();
  const client = new ReportingClient({
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    credentials: emu.credentials,
    fetch: wire.fetch,
    cookieMissingDelayMs: 5,
    ...extra,
  });
  return { client, wire };
}

const isLive = (token: string | undefined) => emu.state.sessions.peek(token) !== undefined;
const liveCount = () => emu.state.sessions.liveSessionsOf(emu.credentials.userName).length;
/** The session token the client sent with its last request. */
const lastToken = (wire: WireRecorder) => WireRecorder.cookie(wire.requests.at(-1), TOKEN);

describe('sign-in', () => {
  it('signs in lazily on the first call: request-csrf, sign-in, then the call with the CSRF header', async () => {
    const { client, wire } = newClient();
    expect(wire.requests).toHaveLength(0); // constructing sends nothing
    expect(await client.call('productProperties')).toEqual(expectedProps);
    expect(wire.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'GET /v3/request-csrf',
      'POST /v3/auth/web',
      'GET /v3/meta/productProperties',
    ]);
    const [csrf, signIn, data] = wire.requests;
    expect(csrf!.headers.get('cookie')).toBeNull();
    // sign-in carries the pre-login CSRF cookie; the data call the session and the CSRF value sign-in issued
    const preLogin = WireRecorder.cookie(signIn, 'Svc-Csrf');
    expect(preLogin).toBeTruthy();
    expect(data!.headers.get('Svc-Csrf')).toBe(WireRecorder.cookie(data, 'Svc-Csrf'));
    expect(data!.headers.get('Svc-Csrf')).not.toBe(preLogin);
    expect(data!.headers.get('origin')).toBe(emu.origin);
    const token = lastToken(wire);
    expect(isLive(token)).toBe(true);
    // a second call reuses the session
    expect(await client.call('listEvents', { productId })).toEqual(expectedEvents);
    expect(wire.of('signIn')).toHaveLength(1);
    await client.logout();
    expect(isLive(token)).toBe(false);
    expect(client.signedIn).toBe(false);
  });

  it('calls the credentials provider at every sign-in, also the one after the session expired', async () => {
    let calls = 0;
    const { client, wire } = newClient({
      credentials: async () => {
        calls++;
        return emu.credentials;
      },
    });
    await client.call('productProperties');
    const first = lastToken(wire);
    // The session's next request is its second: the emulator ends it and answers 401.
    emu.faults.set({ rules: [{ sessionExpiresAfterRequests: 1 }] });
    expect(await client.call('listEvents', { productId })).toEqual(expectedEvents);
    emu.faults.clear();
    expect(calls).toBe(2);
    expect(wire.of('listEvents').map((r) => r.status)).toEqual([401, 200]);
    expect(isLive(first)).toBe(false);
    await client.logout();
    expect(isLive(lastToken(wire))).toBe(false);
  });

  it('signs in again exactly once when the session expires under 8 concurrent calls', async () => {
    const { client, wire } = newClient();
    await client.signIn();
    emu.clock.advance(31 * 60_000); // past the 30-minute idle expiry
    const results = await Promise.all(Array.from({ length: 8 }, () => client.call('listEvents', { productId })));
    for (const r of results) expect(r).toEqual(expectedEvents);
    expect(wire.of('signIn')).toHaveLength(2);
    expect(wire.of('listEvents').filter((r) => r.status === 401)).toHaveLength(8);
    expect(liveCount()).toBe(1);
    await client.logout();
    expect(liveCount()).toBe(0);
  });
});

describe('withSession and disposal', () => {
  it('signs in once for many calls and logs out after a normal return', async () => {
    const { client, wire } = newClient();
    const out = await client.withSession(async (c) => {
      const a = await c.call('productProperties');
      const b = await Promise.all([c.call('listEvents', { productId }), c.call('listEvents', { productId })]);
      return { a, b, token: lastToken(wire) };
    });
    expect(out.a).toEqual(expectedProps);
    expect(out.b).toEqual([expectedEvents, expectedEvents]);
    expect(wire.of('signIn')).toHaveLength(1);
    expect(wire.of('logout')).toHaveLength(1);
    expect(isLive(out.token)).toBe(false);
  });

  it('reuses the session the client already has instead of signing in again', async () => {
    const { client, wire } = newClient();
    await client.signIn();
    await client.withSession((c) => c.call('productProperties'));
    expect(wire.of('signIn')).toHaveLength(1);
    expect(liveCount()).toBe(0);
  });

  it('logs out when the callback throws, and passes its error on unchanged', async () => {
    const { client, wire } = newClient();
    const boom = new Error('the job failed');
    let token: string | undefined;
    await expect(
      client.withSession(async (c) => {
        await c.call('productProperties');
        token = lastToken(wire);
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(isLive(token)).toBe(false);
    expect(wire.of('logout')).toHaveLength(1);
  });

  it('logs out when a call inside is rejected', async () => {
    const { client, wire } = newClient();
    let token: string | undefined;
    const run = client.withSession(async (c) => {
      await c.call('productProperties');
      token = lastToken(wire);
      return c.call('listEvents', { productId: 'no-such-product' });
    });
    await expect(run).rejects.toBeInstanceOf(NotFoundError);
    expect(isLive(token)).toBe(false);
  });

  it('logs out when an `await using` scope ends', async () => {
    const wire = new WireRecorder();
    let token: string | undefined;
    {
      await using client = new ReportingClient({
        baseUrl: emu.baseUrl,
        origin: emu.origin,
        credentials: emu.credentials,
        fetch: wire.fetch,
      });
      expect(await client.call('productProperties')).toEqual(expectedProps);
      token = lastToken(wire);
      expect(isLive(token)).toBe(true);
    }
    expect(isLive(token)).toBe(false);
  });

  it('a logout after the service already ended the session succeeds quietly, also on `await using`', async () => {
    {
      await using client = newClient().client;
      await client.signIn();
      emu.clock.advance(31 * 60_000); // idle expiry: the session is gone on the service
    }
    const { client, wire } = newClient();
    await client.signIn();
    emu.state.sessions.endAll(emu.credentials.userName);
    await client.logout();
    expect(wire.of('logout').map((r) => r.status)).toEqual([401]);
    expect(client.signedIn).toBe(false);
  });
});

describe('session limit', () => {
  /** Opens sessions for the user on the emulator until the per-user limit is reached. */
  const fillSessions = () => {
    while (liveCount() < emu.state.options.maxSessionsPerUser) emu.state.sessions.create(emu.credentials.userName);
  };
  /** Sign-ins reach the emulator without the session cookie: a service that does not end the session they carry. */
  const stripSessionAtSignIn = (wire: WireRecorder) => {
    wire.divert = (req) => {
      if (!req.url.endsWith('/v3/auth/web')) return undefined;
      const headers = new Headers(req.headers);
      headers.set('cookie', (headers.get('cookie') ?? '').replace(new RegExp(`${TOKEN}=[^;]*;?\\s*`), ''));
      return fetch(new Request(req, { headers }));
    };
  };

  it('fails with SessionLimitError by default, and also with logoutOtherSessions when no session is at hand', async () => {
    fillSessions();
    for (const onSessionLimit of ['fail', 'logoutOtherSessions'] as const) {
      const { client } = newClient({ onSessionLimit });
      const err = await client.call('productProperties').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SessionLimitError);
      expect(err).toMatchObject({ operationId: 'signIn', status: 409, serviceError: 'Session Limit' });
      expect(client.signedIn).toBe(false);
    }
    expect(liveCount()).toBe(emu.state.options.maxSessionsPerUser);
  });

  it('with logoutOtherSessions, ends all sessions from the still-valid one in the jar and signs in again', async () => {
    const { client, wire } = newClient({ onSessionLimit: 'logoutOtherSessions' });
    await client.signIn();
    const [first] = emu.state.sessions.liveSessionsOf(emu.credentials.userName).map((x) => x.token);
    fillSessions();
    // The emulator ends a live session that signs in again (so, short of sessions held elsewhere, never answers 409
    // then); whether the real service does is open (docs/interface.md "Sessions"). Model a service that does not:
    // sign-ins reach it without the session cookie.
    stripSessionAtSignIn(wire);
    // Two Cookie Missing answers make the client sign in again while its session is still valid.
    emu.faults.set({ rules: [{ operations: ['listEvents'], cookieMissingRate: 1, times: 2 }] });
    expect(await client.call('listEvents', { productId })).toEqual(expectedEvents);
    expect(wire.of('signIn').map((r) => r.status)).toEqual([200, 409, 200]);
    expect(wire.of('logout').map((r) => WireRecorder.cookie(r, TOKEN))).toEqual([first]);
    expect(liveCount()).toBe(1); // the filled sessions are gone, only the new one is left
    await client.logout();
    expect(liveCount()).toBe(0);
  });

  describe('held elsewhere (fault rule heldSessions)', () => {
    const max = () => emu.state.options.maxSessionsPerUser;
    const held = () => emu.state.sessions.heldElsewhereBy(emu.credentials.userName);

    it('a second client is refused with SessionLimitError, also with logoutOtherSessions (no session at hand)', async () => {
      await using a = newClient().client;
      await a.signIn();
      emu.faults.set({ rules: [{ operations: ['signIn'], heldSessions: max() - 1 }] });
      const { client: b } = newClient({ onSessionLimit: 'logoutOtherSessions' });
      const err = await b.call('productProperties').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SessionLimitError);
      expect(held()).toBe(max() - 1);
      expect(await a.call('productProperties')).toEqual(expectedProps); // the first client keeps working
    });

    it('with logoutOtherSessions, a client whose session is still valid ends them (logout allSessions) and signs in', async () => {
      const { client, wire } = newClient({ onSessionLimit: 'logoutOtherSessions' });
      await client.signIn();
      const [first] = emu.state.sessions.liveSessionsOf(emu.credentials.userName).map((x) => x.token);
      stripSessionAtSignIn(wire);
      // Two Cookie Missing answers make the client sign in again while its session is still valid; that sign-in
      // takes the held sessions, which with the client's own fill the limit.
      emu.faults.set({
        rules: [
          { operations: ['listEvents'], cookieMissingRate: 1, times: 2 },
          { operations: ['signIn'], heldSessions: max() - 1 },
        ],
      });
      expect(await client.call('listEvents', { productId })).toEqual(expectedEvents);
      expect(wire.of('signIn').map((r) => r.status)).toEqual([200, 409, 200]);
      expect(wire.of('logout').map((r) => WireRecorder.cookie(r, TOKEN))).toEqual([first]);
      expect(held()).toBe(0);
      expect(liveCount()).toBe(1);
      await client.logout();
      expect(liveCount()).toBe(0);
    });

    it('a refused sign-in keeps the session it carried: logoutOtherSessions ends the held ones from it', async () => {
      // No cookie stripping: the sign-in carries the live session, which the emulator ends only when it succeeds.
      const { client, wire } = newClient({ onSessionLimit: 'logoutOtherSessions' });
      await client.signIn();
      emu.faults.set({
        rules: [
          { operations: ['listEvents'], cookieMissingRate: 1, times: 2 },
          { operations: ['signIn'], heldSessions: max() },
        ],
      });
      expect(await client.call('listEvents', { productId })).toEqual(expectedEvents);
      expect(wire.of('signIn').map((r) => r.status)).toEqual([200, 409, 200]);
      expect(wire.of('logout').map((r) => r.status)).toEqual([204]);
      expect(held()).toBe(0);
      expect(liveCount()).toBe(1);
      await client.logout();
      expect(liveCount()).toBe(0);
    });
  });
});
