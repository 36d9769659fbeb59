/**
 * Checks that a typed client method returns exactly what the service sends: the raw JSON fetched on a separate
 * session without Pulse's client (test/helpers/emulator-session.ts), and the generic `client.call` for the same id.
 */
import { expect } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { OPERATION_BY_ID } from '../../src/api/operations.ts';
import { ReportingClient } from '../../src/client/index.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

export interface Peer {
  emu: Emulator;
  client: ReportingClient;
  /** A second, client-free session on the same emulator. */
  wire: TestSession;
  productId: string;
  close(): Promise<void>;
}

export async function startPeer(): Promise<Peer> {
  const emu = await startTestEmulator();
  const client = new ReportingClient({ baseUrl: emu.baseUrl, origin: emu.origin, credentials: emu.credentials });
  const wire = await signedIn(emu);
  return {
    emu,
    client,
    wire,
    productId: wire.productId,
    close: async () => {
      await client.logout();
      await wire.call('POST', '/v3/auth/logout', {});
      await emu.close();
    },
  };
}

/** The emulator's raw JSON for an operation. */
export async function wireJson(wire: TestSession, id: string, productId: string | undefined, body?: unknown) {
  const op = OPERATION_BY_ID.get(id)!;
  const path = productId === undefined ? op.path : op.path.replace('{product_id}', productId);
  const r = await wire.call(op.method, path, body);
  if (r.status !== 200) throw new Error(`${id}: ${r.status} ${r.text}`);
  return r.json as unknown;
}

/** Asserts that `typed` (the typed method's result) equals the wire JSON and the generic call's result. */
export async function expectSameAsWire(
  peer: Peer,
  typed: unknown,
  id: string,
  productId: string | undefined,
  body?: unknown,
): Promise<void> {
  expect(typed).toEqual(await wireJson(peer.wire, id, productId, body));
  const args = productId === undefined ? { body } : { productId, body };
  expect(await peer.client.call(id, args)).toEqual(typed);
}

/** Consecutive period starts (Mondays for weeks, 1sts for months) covering [start, stop]. */
export function periodStarts(start: string, stop: string, split: 'day' | 'week' | 'month'): string[] {
  const day = (s: string) => Date.parse(`${s}T00:00:00Z`);
  const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const d = new Date(day(start));
  if (split === 'week') d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7));
  if (split === 'month') d.setUTCDate(1);
  const out: string[] = [];
  while (d.getTime() <= day(stop)) {
    out.push(fmt(d.getTime()));
    if (split === 'month') d.setUTCMonth(d.getUTCMonth() + 1);
    else d.setUTCDate(d.getUTCDate() + (split === 'week' ? 7 : 1));
  }
  return out;
}

export const isCount = (n: unknown) => Number.isInteger(n) && (n as number) >= 0;
