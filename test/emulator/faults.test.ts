import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FaultInjector, FaultProfileError, parseFaultProfile } from '../../emulator/faults.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TestSession } from '../helpers/emulator-session.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startTestEmulator({ clients: 60 });
});
afterEach(() => emu.faults.clear());
afterAll(() => emu.close());

const PROPS = '/v3/meta/productProperties';

describe('fault profiles', () => {
  it('adds latency to the matching operation only', async () => {
    emu.faults.set({ rules: [{ operations: ['requestCsrf'], latencyMs: 150 }] });
    const s = new TestSession(emu);
    let t = performance.now();
    await s.call('GET', '/v3/request-csrf');
    expect(performance.now() - t).toBeGreaterThanOrEqual(140);
    await s.signIn();
    t = performance.now();
    const r = await s.call('GET', PROPS);
    expect(r.status).toBe(200);
    expect(performance.now() - t).toBeLessThan(140);
  });

  it('injects 5xx bursts, JSON or not, for a bounded number of times', async () => {
    emu.faults.set({ rules: [{ path: '^/v3/request-csrf$', serverErrorRate: 1, times: 2 }] });
    const s = new TestSession(emu);
    const a = await s.call('GET', '/v3/request-csrf');
    expect(a.status).toBe(503);
    expect(a.json.error).toBe('Service Unavailable');
    expect((await s.call('GET', '/v3/request-csrf')).status).toBe(503);
    expect((await s.call('GET', '/v3/request-csrf')).status).toBe(204);
    emu.faults.set({ rules: [{ serverErrorRate: 1, serverErrorStatus: 502, nonJsonBody: true }] });
    const b = await s.call('GET', '/v3/request-csrf');
    expect(b.status).toBe(502);
    expect(b.json).toBeUndefined();
    expect(b.headers.get('content-type')).toContain('text/html');
  });

  it('a client that gives up during the latency is no internal error (no stack trace on stderr)', async () => {
    const s = await signedIn(emu);
    emu.faults.set({ rules: [{ operations: ['dateRangeReport'], latencyMs: 300 }] });
    const stderr = vi.spyOn(process.stderr, 'write');
    try {
      const body = JSON.stringify({ startDate: '2026-01-01', stopDate: '2026-01-31', clientStatus: ['active'] });
      const req = request(`${emu.baseUrl}/v3/reporting/generic/dateRange/${s.productId}`, {
        method: 'POST',
        headers: {
          Origin: emu.origin,
          Cookie: [...s.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
          'Content-Type': 'application/json',
          'Content-Length': Buffer.byteLength(body) + 10, // the rest never comes: the client times out first
        },
      });
      req.on('error', () => undefined);
      req.write(body);
      await sleep(50);
      req.destroy();
      await sleep(500);
      expect(stderr.mock.calls.map((c) => String(c[0])).filter((l) => l.includes('internal error'))).toEqual([]);
    } finally {
      stderr.mockRestore();
    }
  });

  it('answers 429 with Retry-After', async () => {
    emu.faults.set({ rules: [{ rateLimitRate: 1, retryAfterSeconds: 7 }] });
    const r = await new TestSession(emu).call('GET', '/v3/request-csrf');
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('7');
    expect(r.json.error).toBe('Too Many Requests');
  });

  it('answers Cookie Missing at the configured rate, deterministically by seed', async () => {
    const s = await signedIn(emu);
    const run = async () => {
      emu.faults.set({ seed: 42, rules: [{ operations: ['productProperties'], cookieMissingRate: 0.5 }] });
      const out: number[] = [];
      for (let k = 0; k < 16; k++) out.push((await s.call('GET', PROPS)).status);
      return out;
    };
    const first = await run();
    expect(first).toContain(401);
    expect(first).toContain(200);
    expect(await run()).toEqual(first);
  });

  it('expires a session after N authenticated requests', async () => {
    emu.faults.set({ rules: [{ sessionExpiresAfterRequests: 2 }] });
    const s = await signedIn(emu);
    expect((await s.call('GET', PROPS)).status).toBe(200);
    expect((await s.call('GET', PROPS)).status).toBe(200);
    const r = await s.call('GET', PROPS);
    expect(r.status).toBe(401);
    expect(r.json.error).toBe('Unauthorized');
    expect((await s.signIn()).status).toBe(200);
  });

  it('validates profiles, naming the bad field', () => {
    expect(() => parseFaultProfile({ rules: [{ serverErrorRate: 2 }] })).toThrow(
      new FaultProfileError('rules[0].serverErrorRate: must be a number from 0 to 1'),
    );
    expect(() => parseFaultProfile({ rules: [{ latency: 5 }] })).toThrow(/rules\[0\]\.latency: unknown field/);
    expect(() => parseFaultProfile({ rules: [{ path: '(' }] })).toThrow(/rules\[0\]\.path: invalid regular expression/);
    expect(() => parseFaultProfile([])).toThrow(/profile: must be an object/);
  });

  it('decides download faults per file key', () => {
    const f = new FaultInjector({ rules: [{ path: '_cust_', truncateDownloadRate: 1, downloadBytesPerSecond: 1000 }] });
    expect(f.forDownload('1/cust/1_cust_2026-11-01.zip')).toEqual({ truncate: true, bytesPerSecond: 1000 });
    expect(f.forDownload('1/exc/1_exc_2026-11-01.zip')).toBeUndefined();
    const stalling = new FaultInjector({ rules: [{ path: '_exc_', stallDownloadRate: 1, times: 1 }] });
    expect(stalling.forDownload('1/exc/1_exc_2026-11-01.zip')).toEqual({ stall: true });
    expect(stalling.forDownload('1/exc/1_exc_2026-11-01.zip')).toBeUndefined();
  });
});

describe('fault rule heldSessions (the session limit)', () => {
  const MAX = 5; // the emulator's default per-user maximum
  let small: Emulator;
  beforeAll(async () => {
    small = await startTestEmulator({ clients: 40, maxSessionsPerUser: MAX });
  });
  afterEach(() => {
    small.faults.clear();
    small.state.sessions.endAll(small.credentials.userName); // held sessions outlive the profile
  });
  afterAll(() => small.close());

  const user = () => small.credentials.userName;
  const held = () => small.state.sessions.heldElsewhereBy(user());
  const expectSessionLimit = (r: { status: number; json: { error?: string } }) => {
    expect(r.status).toBe(409);
    expect(r.json.error).toBe('Session Limit');
  };

  it('validates heldSessions as an integer ≥ 0, naming the field', () => {
    expect(parseFaultProfile({ rules: [{ heldSessions: 0 }, { heldSessions: 7 }] }).rules).toHaveLength(2);
    for (const v of [-1, 1.5, 'x'])
      expect(() => parseFaultProfile({ rules: [{ heldSessions: v }] })).toThrow(
        new FaultProfileError('rules[0].heldSessions: must be an integer ≥ 0'),
      );
  });

  it('takes the sessions once per rule, on its first matching request after `after`, within `times`', () => {
    const f = new FaultInjector({ rules: [{ operations: ['signIn'], heldSessions: 3, after: 1 }] });
    expect(f.forRequest('requestCsrf', '/v3/request-csrf').heldSessions).toBeUndefined();
    expect(f.forRequest('signIn', '/v3/auth/web').heldSessions).toBeUndefined(); // the one `after` lets pass
    expect(f.forRequest('signIn', '/v3/auth/web').heldSessions).toBe(3);
    expect(f.forRequest('signIn', '/v3/auth/web').heldSessions).toBeUndefined();
    const spent = new FaultInjector({ rules: [{ heldSessions: 2, times: 0 }] });
    expect(spent.forRequest('signIn', '/v3/auth/web').heldSessions).toBeUndefined();
    const byPath = new FaultInjector({ rules: [{ path: '^/v3/meta/', heldSessions: 1 }] });
    expect(byPath.forRequest('signIn', '/v3/auth/web').heldSessions).toBeUndefined();
    expect(byPath.forRequest('productProperties', PROPS).heldSessions).toBe(1);
  });

  it('refuses a sign-in with 409 Session Limit when the held sessions fill the limit', async () => {
    small.faults.set({ rules: [{ heldSessions: MAX }] });
    const s = new TestSession(small);
    expectSessionLimit(await s.signIn());
    expect(held()).toBe(MAX);
    expect(small.state.sessions.liveSessionsOf(user())).toHaveLength(0);
  });

  it('a sign-in that is itself the first matching request is already refused', async () => {
    small.faults.set({ rules: [{ operations: ['signIn'], heldSessions: MAX }] });
    expectSessionLimit(await new TestSession(small).signIn());
  });

  it('with one slot left, the first client signs in (and again), a second concurrent one gets 409', async () => {
    small.faults.set({ rules: [{ heldSessions: MAX - 1 }] });
    const a = await signedIn(small);
    expect((await a.call('GET', PROPS)).status).toBe(200);
    expect((await a.signIn()).status).toBe(200); // replaces its own session: still one slot
    expectSessionLimit(await new TestSession(small).signIn());
    expect((await a.call('GET', PROPS)).status).toBe(200);
    expect(small.state.sessions.peakSessionsPerUser).toBeLessThanOrEqual(MAX - 1); // held ones are not counted
  });

  it('with `after`, a client signed in before keeps working; signing in after the rule took its sessions is refused', async () => {
    // requestCsrf, signIn and one data call pass; the second data call takes the sessions
    small.faults.set({ rules: [{ heldSessions: MAX - 1, after: 3 }] });
    const a = await signedIn(small);
    expect((await a.call('GET', PROPS)).status).toBe(200);
    expect(held()).toBe(0);
    expect((await a.call('GET', PROPS)).status).toBe(200);
    expect(held()).toBe(MAX - 1);
    expectSessionLimit(await new TestSession(small).signIn());
    expect((await a.call('GET', PROPS)).status).toBe(200);
  });

  it('do not idle out: after the idle timeout the limit still holds', async () => {
    small.faults.set({ rules: [{ heldSessions: MAX }] });
    await new TestSession(small).call('GET', '/v3/request-csrf');
    small.clock.advance(2 * 60 * 60_000);
    expectSessionLimit(await new TestSession(small).signIn());
  });

  it('are ended by a logout with allSessions from a still-valid session; then sign-ins work again', async () => {
    small.faults.set({ rules: [{ operations: ['productProperties'], heldSessions: MAX }] });
    const a = await signedIn(small);
    expect((await a.call('GET', PROPS)).status).toBe(200); // takes the sessions
    const b = new TestSession(small);
    expectSessionLimit(await b.signIn());
    expect((await a.call('POST', '/v3/auth/logout', { allSessions: true })).status).toBe(204);
    expect(held()).toBe(0);
    expect((await a.call('GET', PROPS)).status).toBe(401); // its own session ended too
    expect((await b.signIn()).status).toBe(200);
    expect((await b.call('GET', PROPS)).status).toBe(200); // the rule took its sessions once only
  });

  it('are not ended by a plain logout, which frees only the calling session', async () => {
    small.faults.set({ rules: [{ heldSessions: MAX - 1 }] });
    const a = await signedIn(small);
    expect((await a.call('POST', '/v3/auth/logout', {})).status).toBe(204);
    expect(held()).toBe(MAX - 1);
    const b = await signedIn(small); // A's slot is free again
    expectSessionLimit(await new TestSession(small).signIn());
    expect((await b.call('POST', '/v3/auth/logout')).status).toBe(204);
    expect(held()).toBe(MAX - 1);
  });

  it('a later rule replaces the count; 0 gives them up', async () => {
    small.faults.set({ rules: [{ heldSessions: MAX }] });
    expectSessionLimit(await new TestSession(small).signIn());
    small.faults.set({ rules: [{ heldSessions: 0 }] });
    expect((await new TestSession(small).signIn()).status).toBe(200);
    expect(held()).toBe(0);
  });
});
