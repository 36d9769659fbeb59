/**
 * `startEmulator(options)`: the Reporting Service emulator on 127.0.0.1 — the service listener, the storage
 * listener for signed downloads, and the synthetic data set — ready for tests, `npm start` and `pulse emulator`.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SessionStore } from './auth/sessions.ts';
import { Clock } from './clock.ts';
import { dayOfMs } from './data/dates.ts';
import { plantedEpisodes } from './data/episodes.ts';
import { generateAll } from './data/generate.ts';
import type { PlantedEpisode, ProductData } from './data/model.ts';
import { observedHandlers, watchExchanges } from './exchanges.ts';
import { resolveStorageKey } from './families/files/storage-keys.ts';
import { HANDLERS } from './families/index.ts';
import { FaultInjector } from './faults.ts';
import { startStorageServer } from './files/storage-server.ts';
import { createServiceServer } from './http/server.ts';
import { type EmulatorOptions, resolveOptions } from './options.ts';
import { loadRegistryChanges, saveRegistryChanges } from './persistence.ts';
import type { EmulatorState } from './state.ts';

export type { EpisodeKind, EventSurge, ExceptionSpike, PlantedEpisode, VersionDrop } from './data/episodes.ts';
export type { EmulatorExchange, ExchangeObserver } from './exchanges.ts';
export { observeExchanges } from './exchanges.ts';
export type { EmulatorOptions, ProductSpec } from './options.ts';
export { EmulatorConfigError } from './options.ts';
export { plantedEpisodes };

export interface ProductSummary {
  productId: string;
  productName: string;
  clients: number;
  rawDataExport: boolean;
}

export interface Emulator {
  baseUrl: string;
  storageUrl: string;
  origin: string;
  headerPrefix: string;
  credentials: { userName: string; password: string };
  products: ProductSummary[];
  /** The episodes planted in the data set (emulator/data/episodes.ts): what usage alerts should find. */
  episodes: readonly PlantedEpisode[];
  clock: Clock;
  faults: FaultInjector;
  /** Internal state, for tests that check reports against the data they were computed from. */
  state: EmulatorState;
  close(): Promise<void>;
}

export async function startEmulator(input: EmulatorOptions = {}): Promise<Emulator> {
  const options = resolveOptions(input);
  const clock = new Clock(options.today ? Clock.noonOf(options.today) : undefined);
  const today = dayOfMs(clock.now());
  const data = generateAll({
    seed: options.seed,
    clients: options.clients,
    today,
    registryKeys: options.registryKeys,
    products: options.products,
  });
  const products = new Map<string, ProductData>(data.map((pd) => [pd.product.productId, pd]));
  if (options.dataDir) for (const pd of data) loadRegistryChanges(options.dataDir, pd);

  const faults = new FaultInjector(options.faults);
  let signer: ((key: string) => string) | undefined;
  const state: EmulatorState = {
    options,
    clock,
    products,
    sessions: new SessionStore({
      now: () => clock.now(),
      idleMs: options.sessionIdleMinutes * 60_000,
      maxPerUser: options.maxSessionsPerUser,
    }),
    faults,
    signDownload: (key) => {
      if (!signer) throw new Error('storage listener not started');
      return signer(key);
    },
    persistRegistry: (pd) => {
      if (options.dataDir) saveRegistryChanges(options.dataDir, pd);
    },
  };

  const storage = await startStorageServer({
    port: options.storagePort,
    host: options.host,
    secret: randomBytes(32),
    now: () => clock.now(),
    ttlMs: options.downloadUrlTtlMinutes * 60_000,
    headerPrefix: options.headerPrefix,
    resolve: async (key) => resolveStorageKey(state, key),
    faults: (key) => faults.forDownload(key),
  });
  signer = (key) => storage.sign(key);

  const bodies = new WeakMap<IncomingMessage, unknown>();
  const server = createServiceServer(state, observedHandlers(HANDLERS, state, bodies));
  watchExchanges(server, state, bodies);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://${options.host}:${port}`,
    storageUrl: storage.url,
    origin: options.origin,
    headerPrefix: options.headerPrefix,
    credentials: { userName: options.user, password: options.password },
    products: data.map((pd) => ({
      productId: pd.product.productId,
      productName: pd.product.productName,
      clients: pd.n,
      rawDataExport: pd.product.features.rawDataExport,
    })),
    episodes: plantedEpisodes(options.seed, today),
    clock,
    faults,
    state,
    close: async () => {
      server.closeAllConnections();
      await Promise.all([new Promise<void>((r) => server.close(() => r())), storage.close()]);
    },
  };
}
