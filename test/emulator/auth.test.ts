import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator, TestSession } from '../helpers/emulator-session.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startTestEmulator({ clients: 60 });
});
afterAll(() => emu.close());

describe('auth flow', () => {
  it('request-csrf answers 204 with a CSRF cookie and the common headers', async () => {
    const s = new TestSession(emu);
    const r = await s.call('GET', '/v3/request-csrf');
    expect(r.status).toBe(204);
    expect(r.text).toBe('');
    expect(s.cookies.get('Svc-Csrf')?.length).toBeGreaterThanOrEqual(32);
    expect(r.headers.get('svc-api')).toBeTruthy();
    expect(r.headers.get('svc-lib')).toBeTruthy();
    expect(r.headers.get('access-control-allow-origin')).toBe(emu.origin);
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
    expect(r.headers.get('vary')).toBe('Origin');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('x-xss-protection')).toBeTruthy();
    expect(r.headers.get('referrer-policy')).toBeTruthy();
  });

  it('signs in, sets an HttpOnly session cookie and a new CSRF value', async () => {
    const s = new TestSession(emu);
    await s.call('GET', '/v3/request-csrf');
    const before = s.cookies.get('Svc-Csrf');
    const res = await fetch(`${emu.baseUrl}/v3/auth/web`, {
      method: 'POST',
      headers: { Origin: emu.origin, Cookie: `Svc-Csrf=${before}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(emu.credentials),
    });
    expect(res.status).toBe(200);
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith('Svc-Session-Token='));
    expect(session).toMatch(/HttpOnly/);
    const csrf = cookies.find((c) => c.startsWith('Svc-Csrf='));
    expect(csrf).toBeDefined();
    expect(csrf).not.toContain(`Svc-Csrf=${before};`);
    const body = (await res.json()) as {
      products: object;
      userSettings: { currentProduct: string };
      beatInterval: number;
    };
    expect(Object.keys(body.products)).toEqual(emu.products.map((p) => p.productId));
    expect(body.userSettings.currentProduct).toBe(emu.products[0]!.productId);
    expect(Number.isInteger(body.beatInterval)).toBe(true);
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(JSON.stringify(body))));
  });

  it('refuses sign-in with a CSRF cookie it did not issue, with wrong credentials, and with a bad body', async () => {
    const s = new TestSession(emu);
    s.cookies.set('Svc-Csrf', 'made-up-value');
    expect((await s.call('POST', '/v3/auth/web', emu.credentials)).json.error).toBe('CSRF Mismatch');
    // (Without the cookie it answers Cookie Missing and sets one: test/emulator/sign-in-retry.test.ts.)
    await s.call('GET', '/v3/request-csrf');
    const wrong = await s.call('POST', '/v3/auth/web', { userName: emu.credentials.userName, password: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('nope');
    const bad = await s.call('POST', '/v3/auth/web', { userName: 'x' });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: 'Bad Request', message: 'password: required' });
  });

  it('rejects a missing or foreign Origin on every endpoint', async () => {
    const s = await signedIn(emu);
    for (const origin of [null, 'https://evil.example']) {
      const r = await s.call('GET', '/v3/request-csrf', undefined, { origin });
      expect(r.status).toBe(403);
      expect(r.json.error).toBe('Origin Not Allowed');
      const r2 = await s.call('GET', `/v3/event-tracking/${s.productId}`, undefined, { origin });
      expect(r2.status).toBe(403);
    }
  });

  it('answers 401 without a session, Cookie Missing with only the CSRF cookie', async () => {
    const s = new TestSession(emu);
    const none = await s.call('GET', '/v3/meta/productProperties');
    expect(none.status).toBe(401);
    expect(none.json.error).toBe('Unauthorized');
    await s.call('GET', '/v3/request-csrf');
    const missing = await s.call('GET', '/v3/meta/productProperties');
    expect(missing.status).toBe(401);
    expect(missing.json.error).toBe('Cookie Missing');
  });

  it('checks the optional CSRF header against the cookie', async () => {
    const s = await signedIn(emu);
    s.sendCsrfHeader = true;
    expect((await s.call('POST', '/v3/auth/logout', {}, { headers: {} })).status).toBe(204);
    const s2 = await signedIn(emu);
    const r = await s2.call('GET', '/v3/meta/productProperties', undefined, { headers: { 'Svc-Csrf': 'forged' } });
    expect(r.status).toBe(403);
    expect(r.json.error).toBe('CSRF Mismatch');
    await s2.call('POST', '/v3/auth/logout');
  });

  it('logs out one session, or all sessions of the user', async () => {
    const a = await signedIn(emu);
    const b = await signedIn(emu);
    expect((await a.call('POST', '/v3/auth/logout')).status).toBe(204);
    expect((await a.call('POST', '/v3/auth/logout')).status).toBe(401);
    const c = await signedIn(emu);
    expect((await c.call('POST', '/v3/auth/logout', { allSessions: true })).status).toBe(204);
    expect((await b.call('POST', '/v3/auth/logout')).status).toBe(401);
    expect((await c.call('POST', '/v3/auth/logout', { allSessions: 'yes' })).status).toBe(401);
  });

  it('limits concurrent sessions per user with 409 Session Limit', async () => {
    const small = await startTestEmulator({ clients: 40, maxSessionsPerUser: 3 });
    try {
      const sessions = [await signedIn(small), await signedIn(small), await signedIn(small)];
      const extra = new TestSession(small);
      const r = await extra.signIn();
      expect(r.status).toBe(409);
      expect(r.json.error).toBe('Session Limit');
      // Signing in again on a live session replaces it rather than counting twice.
      expect((await sessions[0]!.signIn()).status).toBe(200);
      expect((await sessions[1]!.call('POST', '/v3/auth/logout', { allSessions: true })).status).toBe(204);
      expect((await extra.signIn()).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  it('expires idle sessions', async () => {
    const s = await signedIn(emu);
    emu.clock.advance(31 * 60_000);
    expect((await s.call('GET', '/v3/meta/productProperties')).status).toBe(401);
  });

  it('answers unknown paths and methods with 404 and bad JSON with 400', async () => {
    const s = await signedIn(emu);
    expect((await s.call('GET', '/v3/nope')).status).toBe(404);
    expect((await s.call('DELETE', '/v3/auth/logout')).status).toBe(404);
    const bad = await s.call('POST', '/v3/auth/logout', undefined, { raw: '{"allSessions":' });
    expect(bad.json).toEqual({ error: 'Bad Request', message: 'body: invalid JSON' });
    const arr = await s.call('POST', '/v3/auth/logout', undefined, { raw: '[1]' });
    expect(arr.json.message).toBe('body: must be a JSON object');
    const huge = await s.call('POST', '/v3/auth/logout', undefined, { raw: `{"x":"${'a'.repeat(2 * 1024 * 1024)}"}` });
    expect(huge.status).toBe(413);
    await s.call('POST', '/v3/auth/logout');
  });

  it('answers a CORS preflight from the allowed origin', async () => {
    const s = new TestSession(emu);
    const r = await s.call('OPTIONS', '/v3/auth/web');
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-methods')).toBe('GET, POST, PATCH, OPTIONS');
    expect(r.headers.get('access-control-max-age')).toBe('600');
  });
});

describe('header prefix', () => {
  it('uses a configured prefix for cookies and headers', async () => {
    const other = await startTestEmulator({ headerPrefix: 'Acme', clients: 50 });
    try {
      const s = new TestSession(other);
      const r = await s.signIn();
      expect(r.status).toBe(200);
      expect([...s.cookies.keys()].sort()).toEqual(['Acme-Csrf', 'Acme-Session-Token']);
      expect(r.headers.get('acme-api')).toBeTruthy();
    } finally {
      await other.close();
    }
  });
});
