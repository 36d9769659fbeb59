import { describe, expect, it } from 'vitest';
import { ServiceCookieJar } from '../../src/client/cookie-jar.ts';

const ORIGIN = 'https://api.example.com';
const jarAt = (t: { now: number }) => new ServiceCookieJar(ORIGIN, 'Svc', () => t.now);

describe('ServiceCookieJar (RFC 6265 within one origin)', () => {
  it('sends stored cookies back to the same origin and path, longest path first', async () => {
    const t = { now: 1_000_000 };
    const jar = jarAt(t);
    await jar.store(`${ORIGIN}/v3/auth/web`, ['Svc-Csrf=abc; Path=/; Secure; SameSite=None', 'a=1; Path=/v3/meta']);
    expect(await jar.header(`${ORIGIN}/v3/meta/productProperties`)).toBe('a=1; Svc-Csrf=abc');
    expect(await jar.header(`${ORIGIN}/v3/metadata`)).toBe('Svc-Csrf=abc');
    expect(await jar.value('Csrf')).toBe('abc');
  });

  it('uses the default path (the request directory) without a Path attribute', async () => {
    const jar = jarAt({ now: 0 });
    await jar.store(`${ORIGIN}/v3/auth/web`, ['x=1']);
    expect(await jar.header(`${ORIGIN}/v3/auth/logout`)).toBe('x=1');
    expect(await jar.header(`${ORIGIN}/v3/meta`)).toBeUndefined();
  });

  it('replaces a cookie of the same name and path, and deletes it with Max-Age=0 or a past Expires', async () => {
    const jar = jarAt({ now: Date.parse('2026-11-20T00:00:00Z') });
    await jar.store(`${ORIGIN}/`, ['Svc-Session-Token=one; Path=/; HttpOnly']);
    await jar.store(`${ORIGIN}/`, ['Svc-Session-Token=two; Path=/; HttpOnly']);
    expect(await jar.value('Session-Token')).toBe('two');
    await jar.store(`${ORIGIN}/v3/auth/logout`, ['Svc-Session-Token=; Path=/; Max-Age=0']);
    expect(await jar.value('Session-Token')).toBeUndefined();
    await jar.store(`${ORIGIN}/`, ['k=v; Path=/', 'k=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT']);
    expect(await jar.header(`${ORIGIN}/`)).toBeUndefined();
  });

  it('expires cookies by Max-Age (which wins over Expires) as time passes', async () => {
    const t = { now: Date.parse('2026-11-20T00:00:00Z') };
    const jar = jarAt(t);
    await jar.store(`${ORIGIN}/`, ['m=1; Path=/; Max-Age=60; Expires=Wed, 01 Jan 2100 00:00:00 GMT']);
    t.now += 59_000;
    expect(await jar.header(`${ORIGIN}/`)).toBe('m=1');
    t.now += 2_000;
    expect(await jar.header(`${ORIGIN}/`)).toBeUndefined();
  });

  it('never sends to, nor accepts from, another scheme, host or port', async () => {
    const jar = jarAt({ now: 0 });
    await jar.store(`${ORIGIN}/`, ['Svc-Session-Token=t; Path=/']);
    for (const other of [
      'http://api.example.com/',
      'https://api.example.com:8443/',
      'https://evil.example/',
      'https://x.api.example.com/',
    ])
      expect(await jar.header(other)).toBeUndefined();
    await jar.store('https://evil.example/', ['Svc-Session-Token=planted; Path=/']);
    await jar.store('https://api.example.com:8443/', ['Svc-Session-Token=planted; Path=/']);
    expect(await jar.value('Session-Token')).toBe('t');
  });

  it('keeps Secure cookies to secure contexts (https and loopback) and ignores nameless lines', async () => {
    const plain = new ServiceCookieJar('http://intranet.example', 'Svc', () => 0);
    await plain.store('http://intranet.example/', ['s=1; Secure; Path=/', 'n=2; Path=/', '=x', 'novalue']);
    expect(await plain.header('http://intranet.example/')).toBe('n=2');
    const loopback = new ServiceCookieJar('http://127.0.0.1:8787', 'Svc', () => 0);
    await loopback.store('http://127.0.0.1:8787/', ['s=1; Secure; Path=/']);
    expect(await loopback.header('http://127.0.0.1:8787/v3')).toBe('s=1');
  });
});
