/**
 * Emulator options, their defaults and their validation. Invalid options fail at start with the field's name
 * (EmulatorConfigError), never later in a request.
 */
import { parseDay } from './data/dates.ts';
import { PRODUCT_ID, type ProductSpec } from './data/products.ts';
import { type FaultProfile, parseFaultProfile } from './faults.ts';

export interface EmulatorOptions {
  /** Service port; 0 picks a free port. Default 8787 for the CLI, 0 programmatically. */
  port?: number;
  /** Storage (download) port; 0 picks a free port. */
  storagePort?: number;
  host?: string;
  seed?: number;
  /** Clients of the first product (others get a share of it). */
  clients?: number;
  /** The single allowed `Origin` ({dashboard_origin}). */
  origin?: string;
  /** Vendor prefix of header and cookie names. */
  headerPrefix?: string;
  user?: string;
  password?: string;
  /** The data set's today, `YYYY-MM-DD`; the clock starts at noon UTC of that day. Default: the real date. */
  today?: string;
  sessionIdleMinutes?: number;
  maxSessionsPerUser?: number;
  downloadUrlTtlMinutes?: number;
  bodyLimitBytes?: number;
  faults?: FaultProfile;
  /** Least number of keys in each product's license registry (e.g. 1,000,000 for the bench); the keys beyond the
   * generated ones have no clients and are derived on demand, so they cost neither start-up time nor memory. */
  registryKeys?: number;
  /** Where license-registry changes are persisted (JSON); in memory only when absent. */
  dataDir?: string;
  /**
   * Products to serve besides the built-in ones, each with a data set generated for it from the seed and its id
   * (a local run passes the products its config names). A built-in id keeps its data and takes the name given.
   */
  products?: ProductSpec[];
  /** Where the emulator's notices go, one line each (a read's ignored body fields); default stderr. */
  log?: (line: string) => void;
}

export type { ProductSpec } from './data/products.ts';

type OptionalOptions = 'faults' | 'dataDir' | 'today' | 'products' | 'log';
export type ResolvedOptions = Required<Omit<EmulatorOptions, OptionalOptions>> & Pick<EmulatorOptions, OptionalOptions>;

export class EmulatorConfigError extends Error {
  override name = 'EmulatorConfigError';
}

export const DEFAULTS = {
  port: 0,
  storagePort: 0,
  host: '127.0.0.1',
  seed: 1,
  clients: 5000,
  origin: 'http://localhost:3000',
  headerPrefix: 'Svc',
  user: 'ada@example.com',
  password: 'emulator-password',
  sessionIdleMinutes: 30,
  maxSessionsPerUser: 5,
  downloadUrlTtlMinutes: 15,
  bodyLimitBytes: 1024 * 1024,
  registryKeys: 0,
} as const;

const bad = (field: string, problem: string): never => {
  throw new EmulatorConfigError(`${field}: ${problem}`);
};

function int(field: string, v: number, min: number, max: number): number {
  if (!Number.isInteger(v) || v < min || v > max) bad(field, `must be an integer from ${min} to ${max}, got ${v}`);
  return v;
}

export function resolveOptions(o: EmulatorOptions): ResolvedOptions {
  const r = {
    ...DEFAULTS,
    ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)),
  } as ResolvedOptions;
  int('port', r.port, 0, 65535);
  int('storagePort', r.storagePort, 0, 65535);
  int('seed', r.seed, 0, 2 ** 32 - 1);
  int('clients', r.clients, 1, 5_000_000);
  int('sessionIdleMinutes', r.sessionIdleMinutes, 1, 7 * 24 * 60);
  int('maxSessionsPerUser', r.maxSessionsPerUser, 1, 1000);
  int('downloadUrlTtlMinutes', r.downloadUrlTtlMinutes, 1, 7 * 24 * 60);
  int('registryKeys', r.registryKeys, 0, 100_000_000);
  int('bodyLimitBytes', r.bodyLimitBytes, 1024, 64 * 1024 * 1024);
  let origin: URL | undefined;
  try {
    origin = new URL(r.origin);
  } catch {
    bad('origin', `must be an absolute URL, got ${JSON.stringify(r.origin)}`);
  }
  if (origin && origin.origin !== r.origin) bad('origin', `must be a bare origin like ${origin.origin}`);
  if (!/^[A-Za-z][A-Za-z0-9]{0,31}$/.test(r.headerPrefix)) bad('headerPrefix', 'must be 1–32 letters or digits');
  if (!r.user) bad('user', 'must not be empty');
  if (!r.password) bad('password', 'must not be empty');
  if (r.today !== undefined && parseDay(r.today) === undefined) bad('today', 'must be a date YYYY-MM-DD');
  if (r.products !== undefined) checkProducts(r.products);
  if (r.faults !== undefined) {
    try {
      parseFaultProfile(r.faults);
    } catch (e) {
      bad('faults', (e as Error).message);
    }
  }
  return r;
}

/** Longest product name: the config's limit on a name. */
const MAX_PRODUCT_NAME = 200;

function checkProducts(products: unknown): void {
  if (!Array.isArray(products)) bad('products', 'must be a list of {productId, productName?, productType?}');
  const seen = new Set<string>();
  (products as unknown[]).forEach((p, i) => {
    const at = `products[${i}]`;
    if (typeof p !== 'object' || p === null) bad(at, 'must be an object {productId, productName?, productType?}');
    const { productId, productName, productType } = p as Record<string, unknown>;
    if (typeof productId !== 'string' || !PRODUCT_ID.test(productId))
      bad(`${at}.productId`, `must be a string of 1–20 digits (10–11 are usual), got ${JSON.stringify(productId)}`);
    if (seen.has(productId as string)) bad(`${at}.productId`, `${productId} is listed twice`);
    seen.add(productId as string);
    if (
      productName !== undefined &&
      (typeof productName !== 'string' || productName.length === 0 || productName.length > MAX_PRODUCT_NAME)
    )
      bad(`${at}.productName`, `must be a text of 1–${MAX_PRODUCT_NAME} characters`);
    if (productType !== undefined && productType !== 'paid' && productType !== 'freeware')
      bad(`${at}.productType`, `must be "paid" or "freeware", got ${JSON.stringify(productType)}`);
  });
}
