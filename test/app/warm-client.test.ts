/**
 * The session a Lambda container keeps between invocations (src/app/warm-client.ts), against the emulator over real
 * sockets: reused while the service certainly still holds it, signed out and replaced once it has been idle for half
 * the service's timeout (or past it), and signed out when the container's service changes. The client's clock is the
 * emulator's, so moving the emulator's clock ages the session on both sides.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { containerSession, SERVICE_IDLE_TIMEOUT_MS, WarmSession } from '../../src/app/warm-client.ts';
import { ReportingClient } from '../../src/client/index.ts';
import { WireRecorder } from '../client/wire-recorder.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

const MINUTE = 60_000;
let emu: Emulator;

beforeAll(async () => {
  emu = await startTestEmulator({ clients: 50, maxSessionsPerUser: 5 });
});
afterEach(() => emu.state.sessions.endAll(emu.credentials.userName));
afterAll(() => emu.close());

function newClient() {
  const wire = new WireRecorder();
  const client = new ReportingClient({
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    credentials: emu.credentials,
    fetch: wire.fetch,
    now: () => emu.clock.now(),
  });
  return { client, wire };
}

const live = () => emu.state.sessions.liveSessionsOf(emu.credentials.userName).length;
const productProperties = (c: ReportingClient) => c.call('productProperties');

describe('WarmSession', () => {
  it('keeps its session between uses: one sign-in for two invocations, still live afterwards', async () => {
    const { client, wire } = newClient();
    const warm = new WarmSession(client);
    const before = emu.state.sessions.signIns;
    await warm.use(productProperties);
    emu.clock.advance(10 * MINUTE); // a frozen container, thawed within the reuse window
    expect(client.sessionIdleMs).toBeGreaterThanOrEqual(10 * MINUTE);
    await warm.use(productProperties);
    expect(client.sessionIdleMs).toBeLessThan(MINUTE); // the call renewed it
    expect(emu.state.sessions.signIns - before).toBe(1);
    expect(wire.of('logout')).toHaveLength(0);
    expect(live()).toBe(1);
  });

  it('signs out a session idle for half the service’s timeout and signs in anew, so only one is ever held', async () => {
    const { client, wire } = newClient();
    const warm = new WarmSession(client);
    const before = emu.state.sessions.signIns;
    await warm.use(productProperties);
    emu.clock.advance(SERVICE_IDLE_TIMEOUT_MS / 2 + MINUTE);
    expect(live()).toBe(1); // the service still holds it: signing out frees its place under the limit
    await warm.use(productProperties);
    expect(wire.of('logout').map((r) => r.status)).toEqual([204]);
    expect(emu.state.sessions.signIns - before).toBe(2);
    expect(live()).toBe(1);
  });

  it('a session the service has already ended is replaced before any call: no 401 on the job’s calls', async () => {
    const { client, wire } = newClient();
    const warm = new WarmSession(client);
    await warm.use(productProperties);
    emu.clock.advance(SERVICE_IDLE_TIMEOUT_MS + MINUTE);
    expect(live()).toBe(0);
    await warm.use(productProperties);
    // The logout is answered 401 (nothing left to end), which is what it wanted; the data calls never see one.
    expect(wire.of('logout').map((r) => r.status)).toEqual([401]);
    expect(wire.of('productProperties').map((r) => r.status)).toEqual([200, 200]);
    expect(live()).toBe(1);
  });

  it('keeps the session when the job throws; close() signs it out', async () => {
    const { client } = newClient();
    const warm = new WarmSession(client);
    await expect(warm.use(() => Promise.reject(new Error('job failed')))).rejects.toThrow('job failed');
    expect(client.signedIn).toBe(true);
    expect(live()).toBe(1);
    await warm.close();
    expect(live()).toBe(0);
  });
});

describe('containerSession', () => {
  it('is the same for the same service and replaces (signing out) the previous one for another', async () => {
    const first = containerSession('service A', () => newClient().client);
    expect(containerSession('service A', () => newClient().client)).toBe(first);
    await first.use(productProperties);
    expect(live()).toBe(1);
    const second = containerSession('service B', () => newClient().client);
    expect(second).not.toBe(first);
    await second.use(productProperties); // waits for the first one's sign-out before signing in
    expect(first.client.signedIn).toBe(false);
    expect(live()).toBe(1);
    await second.close();
  });
});
