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
