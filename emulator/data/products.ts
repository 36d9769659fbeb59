/** The products of the synthetic account and the tracked events and in-app campaigns each one reports. */
import type { Campaign, Product, TrackedEvent } from './model.ts';
import { hashText } from './rng.ts';

const ALL_FEATURES = {
  advancedEventTracking: true,
  customEventTracking: true,
  exceptionTracking: true,
  licenseKeyRegistry: true,
  rawDataExport: true,
};

/**
 * A product's id: a string of digits (docs/interface.md "Numbers and identifiers": 10–11 digits are normal and exceed
 * 32-bit integers). The same rule as the config's product ids, so the emulator can serve every product a config names.
 */
export const PRODUCT_ID = /^\d{1,20}$/;

/**
 * A product to serve besides the built-in ones (`EmulatorOptions.products`): plain data, so a local run can pass the
 * products its config names. A built-in id keeps its data set and takes the name given.
 */
export interface ProductSpec {
  productId: string;
  productName?: string | undefined;
  /** @default 'paid' */
  productType?: 'paid' | 'freeware' | undefined;
}

export type ProductDefinition = Product & {
  /** Scales the --clients count. */
  clientShare: number;
  /** What seeds the product's data, with the data set's seed: its position for a built-in, its id for the others. */
  seedKey: { key: number; salt: number };
};

/** Ids of 10–11 digits (beyond 32-bit range), always strings. `clientShare` scales the --clients count. */
export const PRODUCT_DEFINITIONS: readonly (Product & { clientShare: number })[] = [
  {
    productId: '12345678901',
    productName: 'Example Desktop',
    productType: 'paid',
    role: 'owner',
    features: { ...ALL_FEATURES, rawDataExport: false },
    customProperties: { C01: 'Plan', C02: 'Reseller' },
    clientShare: 1,
  },
  {
    productId: '9876543210',
    productName: 'Example Server',
    productType: 'paid',
    role: 'member',
    features: { ...ALL_FEATURES, advancedEventTracking: false },
    customProperties: { C01: 'Deployment' },
    clientShare: 0.25,
  },
  {
    productId: '40000000017',
    productName: 'Example Viewer',
    productType: 'freeware',
    role: 'admin',
    features: ALL_FEATURES,
    customProperties: {},
    clientShare: 0.1,
  },
];

/** Share of the first product's clients that a product from `ProductSpec` gets. */
const SPEC_CLIENT_SHARE = 0.5;

/**
 * The products served, in sign-in order: the built-in ones, each with its name from `specs` when given there, then
 * the other specs in their order. A built-in product's data is seeded by its position, as it always was, so naming
 * it (or adding others) changes none of its data; another product's data is seeded by its id, so it is the same
 * whatever else is served.
 */
export function productDefinitions(specs: readonly ProductSpec[] = []): ProductDefinition[] {
  const byId = new Map(specs.map((s) => [s.productId, s]));
  const builtIn = PRODUCT_DEFINITIONS.map((d, k) => {
    const name = byId.get(d.productId)?.productName;
    return { ...d, ...(name ? { productName: name } : {}), seedKey: { key: k, salt: 7 } };
  });
  const known = new Set(builtIn.map((d) => d.productId));
  const others = specs
    .filter((s) => !known.has(s.productId))
    .map(
      (s): ProductDefinition => ({
        productId: s.productId,
        productName: s.productName || `Product ${s.productId}`,
        productType: s.productType ?? 'paid',
        role: 'owner',
        features: ALL_FEATURES,
        customProperties: { C01: 'Plan' },
        clientShare: SPEC_CLIENT_SHARE,
        seedKey: { key: hashText(s.productId), salt: 13 },
      }),
    );
  return [...builtIn, ...others];
}

type EventSeed = Omit<TrackedEvent, 'dateFirstSeen'> & { firstSeenOffset: number; useChance: number };

const ev = (
  category: string | null,
  name: string,
  flags: 'basic' | 'advanced' | 'none',
  useChance: number,
  customValue: number | null = null,
  firstSeenOffset = 0,
): EventSeed => ({
  category,
  name,
  basic: flags !== 'none',
  advanced: flags === 'advanced',
  customValue,
  firstSeenOffset,
  useChance,
});

/** Event catalogue shared by all products; `firstSeenOffset` = days after the data set's first day. */
export const EVENT_SEEDS: readonly EventSeed[] = [
  ev('File', 'Open', 'advanced', 0.95),
  ev('File', 'Save', 'advanced', 0.85),
  ev('File', 'Export PDF', 'basic', 0.4, 3),
  ev('File', 'Print', 'basic', 0.25, 2),
  ev('Edit', 'Undo', 'basic', 0.7),
  ev('Edit', 'Find', 'advanced', 0.6),
  ev('Edit', 'Replace', 'basic', 0.3),
  ev('View', 'Zoom', 'basic', 0.5, 125),
  ev('View', 'Dark Mode', 'basic', 0.2, null, 300),
  ev('Report', 'Generate', 'advanced', 0.45, 12),
  ev('Report', 'Schedule', 'basic', 0.1, null, 420),
  ev('Plugins', 'Install', 'basic', 0.15, 4.5),
  ev('Help', 'Open Docs', 'basic', 0.35),
  ev('Help', 'Contact Support', 'none', 0.05),
  ev('Licensing', 'Activate', 'advanced', 0.6),
  ev(null, 'Startup', 'basic', 1),
  ev(null, 'Telemetry Ping', 'none', 0.5),
];

export const CAMPAIGNS: readonly Campaign[] = [
  { reachoutID: 101, name: 'Welcome tour', kind: 'auto' },
  { reachoutID: 102, name: 'Upgrade to 4.x', kind: 'auto' },
  { reachoutID: 103, name: null, kind: 'auto' },
  { reachoutID: 104, name: 'Renewal reminder', kind: 'auto' },
  { reachoutID: 201, name: 'Survey 2026', kind: 'manual' },
  { reachoutID: 202, name: 'Webinar invite', kind: 'manual' },
];

/** Releases: version and how many days before the data set's today it shipped. */
export const RELEASES: readonly { version: string; daysAgo: number }[] = [
  { version: '3.0', daysAgo: 800 },
  { version: '3.1', daysAgo: 610 },
  { version: '3.2', daysAgo: 470 },
  { version: '3.3', daysAgo: 350 },
  { version: '4.0', daysAgo: 230 },
  { version: '4.1', daysAgo: 140 },
  { version: '4.2', daysAgo: 60 },
  { version: '4.3', daysAgo: 12 },
];
