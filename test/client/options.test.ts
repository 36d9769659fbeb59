/**
 * ClientOptions: validated at construction (ClientConfigError naming the option's path, never echoing a value —
 * the password is among them), defaults, and the options that shape the wire, checked against an emulator with a
 * non-default vendor prefix and origin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { ClientConfigError, type ClientOptions, ReportingClient } from '../../src/client/index.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';
import { served, WireRecorder } from './wire-recorder.ts';

const PASSWORD = 'correct-horse-battery-staple';
const VALID: ClientOptions = {
  baseUrl: 'https://api.example.com',
  origin: 'https://dashboard.example.com',
  credentials: { userName: 'ada@example.com', password: PASSWORD },
};

let emu: Emulator;
beforeAll(async () => {
  emu = await startTestEmulator({ clients: 50, headerPrefix: 'Acme', origin: 'http://dash.acme.test:8080' });
});
afterAll(() => emu.close());

describe('validation', () => {
  // [the path the message must start with, option override]
  const bad: [string, Record<string, unknown>][] = [
    ['baseUrl', { baseUrl: 'not a url' }],
    ['baseUrl', { baseUrl: 'ftp://files.example.com' }],
    ['baseUrl', { baseUrl: `https://ada:${PASSWORD}@api.example.com` }],
    ['origin', { origin: '' }],
    ['headerPrefix', { headerPrefix: 'Svc-' }],
    ['headerPrefix', { headerPrefix: '1Svc' }],
    ['credentials.userName', { credentials: { userName: '', password: PASSWORD } }],
    ['credentials.password', { credentials: { userName: 'ada', password: '' } }],
    ['credentials', { credentials: PASSWORD }],
    ['timeoutMs', { timeoutMs: 0 }],
    ['timeoutMs', { timeoutMs: 1.5 }],
    ['deadlineMs', { deadlineMs: 2 ** 31 }],
    ['maxRetries', { maxRetries: 21 }],
    ['maxRetries', { maxRetries: -1 }],
    ['retryBaseDelayMs', { retryBaseDelayMs: -1 }],
    ['retryMaxDelayMs', { retryMaxDelayMs: 0.5 }],
    ['cookieMissingDelayMs', { cookieMissingDelayMs: Number.NaN }],
    ['sendCsrfHeader', { sendCsrfHeader: 'yes' }],
    ['onSessionLimit', { onSessionLimit: 'wait' }],
    ['clientName', { clientName: '' }],
  ];
  it.each(bad)('%s: invalid value %#, rejected at construction without echoing the password', (path, override) => {
    let err: unknown;
    try {
      new ReportingClient({ ...VALID, ...override } as ClientOptions);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ClientConfigError);
    const { message, stack } = err as Error;
    expect(message.startsWith(`${path}: `)).toBe(true);
    for (const text of [message, stack ?? '', JSON.stringify(err)]) expect(text).not.toContain(PASSWORD);
  });

  it('fills in the documented defaults, ignores undefined and normalises the URLs', () => {
    const c = new ReportingClient({
      ...VALID,
      baseUrl: 'https://api.example.com:8443/',
      origin: 'https://dashboard.example.com/app/index.html',
      timeoutMs: undefined,
    } as unknown as ClientOptions);
    expect(c.options).toMatchObject({
      baseUrl: 'https://api.example.com:8443',
      origin: 'https://dashboard.example.com',
      serviceOrigin: 'https://api.example.com:8443',
      headerPrefix: 'Svc',
      timeoutMs: 30_000,
      deadlineMs: 120_000,
      maxRetries: 4,
      retryBaseDelayMs: 300,
      retryMaxDelayMs: 10_000,
      cookieMissingDelayMs: 1000,
      sendCsrfHeader: true,
      onSessionLimit: 'fail',
      clientName: 'pulse',
    });
    expect(c.signedIn).toBe(false);
  });
});

describe('options on the wire', () => {
  function client(extra: Partial<ClientOptions>) {
    const wire = new WireRecorder();
    const c = new ReportingClient({
      baseUrl: `${emu.baseUrl}/`,
      origin: emu.origin,
      credentials: emu.credentials,
      headerPrefix: 'Acme',
      fetch: wire.fetch,
      ...extra,
    });
    return { c, wire };
  }

  it('uses the vendor prefix for the client headers and the CSRF header, and the configured client name', async () => {
    const expected = await served(emu, 'GET', '/v3/meta/productProperties');
    const { c, wire } = client({ clientName: 'digest-job', clientVersion: '9.9.9' });
    expect(await c.call('productProperties')).toEqual(expected);
    for (const r of wire.requests) {
      expect(r.headers.get('Origin')).toBe('http://dash.acme.test:8080');
      expect(r.headers.get('Acme-Client')).toBe('digest-job');
      expect(r.headers.get('Acme-Client-Version')).toBe('9.9.9');
      expect(r.headers.get('Svc-Client')).toBeNull();
    }
    const data = wire.of('productProperties')[0];
    expect(data?.headers.get('Acme-Csrf')).toBe(WireRecorder.cookie(data, 'Acme-Csrf'));
    expect(data?.headers.get('Acme-Csrf')).toBeTruthy();
    await c.logout();
  });

  it('sendCsrfHeader: false sends cookies only, which the service accepts', async () => {
    const { c, wire } = client({ sendCsrfHeader: false });
    await c.call('productProperties');
    const data = wire.of('productProperties')[0];
    expect(data?.status).toBe(200);
    expect(data?.headers.get('Acme-Csrf')).toBeNull();
    expect(WireRecorder.cookie(data, 'Acme-Session-Token')).toBeTruthy();
    await c.logout();
  });

  it('a failing credentials provider fails the call with its own error before anything is sent', async () => {
    const vaultDown = new Error('secret store unavailable');
    const { c, wire } = client({
      credentials: async () => {
        throw vaultDown;
      },
    });
    await expect(c.call('productProperties')).rejects.toBe(vaultDown);
    expect(wire.requests).toHaveLength(0);
  });
});
