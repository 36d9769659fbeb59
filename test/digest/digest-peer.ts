/**
 * A test emulator plus a ReportingClient whose fetch is recorded (WireRecorder) and whose requests in flight are
 * counted, and a client-free wire session for reading the emulator's raw JSON independently of Pulse's code.
 */
import type { Emulator } from '../../emulator/index.ts';
import { type FetchLike, ReportingClient } from '../../src/client/index.ts';
import { DIGEST_SECTIONS } from '../../src/config/schema.ts';
import type { IsoWeek } from '../../src/core/calendar.ts';
import { type CollectOptions, collectDigestData } from '../../src/digest/collect.ts';
import type { DigestData } from '../../src/digest/data.ts';
import { wireJson } from '../client/typed-vs-wire.ts';
import { WireRecorder } from '../client/wire-recorder.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

export interface DigestPeer {
  emu: Emulator;
  wire: WireRecorder;
  /** Most requests the client had in flight at once. */
  maxInFlight(): number;
  client(opts?: { maxRetries?: number }): ReportingClient;
  /** The emulator's raw JSON for an operation, over a separate session. */
  raw<T>(id: string, productId: string, body?: unknown): Promise<T>;
  /** The two first products, by id → name. */
  names: Record<string, string>;
  productIds: string[];
  /** The service's today (UTC date of the emulator clock). */
  today: string;
  close(): Promise<void>;
}

export const COLLECT: CollectOptions = { daysUntilDeclaredLost: 30, concurrency: 3, sections: [...DIGEST_SECTIONS] };

export async function startDigestPeer(): Promise<DigestPeer> {
  const emu = await startTestEmulator();
  const wire = new WireRecorder();
  let inFlight = 0;
  let max = 0;
  const counting: FetchLike = async (input, init) => {
    max = Math.max(max, ++inFlight);
    try {
      return await wire.fetch(input, init);
    } finally {
      inFlight--;
    }
  };
  let session: TestSession | undefined;
  const products = emu.products.slice(0, 2);
  return {
    emu,
    wire,
    maxInFlight: () => max,
    client: (opts = {}) =>
      new ReportingClient({
        baseUrl: emu.baseUrl,
        origin: emu.origin,
        credentials: emu.credentials,
        fetch: counting,
        ...(opts.maxRetries === undefined ? {} : { maxRetries: opts.maxRetries }),
      }),
    async raw<T>(id: string, productId: string, body?: unknown) {
      session ??= await signedIn(emu);
      return (await wireJson(session, id, productId, body)) as T;
    },
    names: Object.fromEntries(products.map((p) => [p.productId, p.productName])),
    productIds: products.map((p) => p.productId),
    today: new Date(emu.clock.now()).toISOString().slice(0, 10),
    close: async () => {
      await session?.call('POST', '/v3/auth/logout', {});
      await emu.close();
    },
  };
}

/** One digest run's collection for the peer's products, over one session. */
export function collectWith(peer: DigestPeer, week: IsoWeek, client = peer.client()): Promise<DigestData> {
  return client.withSession((c) => collectDigestData(c, peer.productIds, week, COLLECT));
}
