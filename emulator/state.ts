/** What every handler can reach: options, clock, products, sessions, faults and the download signer. */
import type { SessionStore } from './auth/sessions.ts';
import type { Clock } from './clock.ts';
import type { ProductData } from './data/model.ts';
import type { FaultInjector } from './faults.ts';
import type { ResolvedOptions } from './options.ts';

export interface EmulatorState {
  options: ResolvedOptions;
  clock: Clock;
  /** Products of the signed-in user, in sign-in order; the first is the current product. */
  products: Map<string, ProductData>;
  sessions: SessionStore;
  faults: FaultInjector;
  /** Absolute signed URL on the storage listener for a storage key (see families/files). */
  signDownload(key: string): string;
  /** Persists a product's license registry to `dataDir` (no-op without one). */
  persistRegistry(pd: ProductData): void;
}
