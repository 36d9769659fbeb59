/**
 * The emulator's one data model. Clients live in columns (typed arrays indexed by client number, clients sorted by
 * clientId), daily activity in one bitset, so a report over a million clients is a pass over flat arrays.
 * Sessions and runtime of an active day, and event counts, are derived on demand (see activity.ts) instead of stored.
 */
import type { Day } from './dates.ts';

export interface ProductFeatures {
  advancedEventTracking: boolean;
  customEventTracking: boolean;
  exceptionTracking: boolean;
  licenseKeyRegistry: boolean;
  rawDataExport: boolean;
}

export interface Product {
  productId: string;
  productName: string;
  productType: 'paid' | 'freeware';
  role: 'owner' | 'admin' | 'member';
  features: ProductFeatures;
  /** Configured custom properties, id (`C01`) → display name. */
  customProperties: Record<string, string>;
}

/** `codes[i] === 0` means no value; otherwise the value is `dict[codes[i] - 1]`. */
export interface StringColumn {
  kind: 'string';
  dict: string[];
  codes: Uint16Array | Uint32Array;
}
/** NaN means no value. */
export interface NumberColumn {
  kind: 'number';
  values: Float64Array;
}
/** -1 means no value. */
export interface DateColumn {
  kind: 'date';
  days: Int32Array;
}
/** 0 false, 1 true, 2 no value. */
export interface BooleanColumn {
  kind: 'boolean';
  values: Uint8Array;
}
export type Column = StringColumn | NumberColumn | DateColumn | BooleanColumn;

export interface TrackedEvent {
  category: string | null;
  name: string;
  basic: boolean;
  advanced: boolean;
  dateFirstSeen: Day;
  /** Numeric custom value carried by each occurrence, or null when the event carries none. */
  customValue: number | null;
}

export interface Campaign {
  reachoutID: number;
  name: string | null;
  kind: 'auto' | 'manual';
}

export interface LicenseStatus {
  activated: boolean;
  allowed: boolean;
  blocked: boolean;
  expired: boolean;
}

export interface LicenseKeyRecord {
  licenseKey: string;
  licenseType: string;
  licenseStatus: LicenseStatus;
  expiryDate: Day | null;
  addedDate: Day;
  autoCollected: boolean;
  quota: number | null;
}

/** Keys beyond the generated ones, derived on demand (see license-bulk.ts); only upserted ones are stored. */
export interface BulkKeys {
  count: number;
  seed: number;
  today: Day;
  /** Record id → the record as an upsert left it. */
  overrides: Map<number, LicenseKeyRecord>;
}

export interface LicenseRegistry {
  /** Generated, planted and inserted keys; a record id below BULK_BASE indexes this array. */
  records: LicenseKeyRecord[];
  /** licenseKey → index in `records`. */
  index: Map<string, number>;
  /** Per generated record: distinct clients reporting the key, and the last day one did (-1 none). Records added
   * later have no clients, so these arrays are only as long as the generated part. */
  clientCount: Uint32Array;
  lastSeenDay: Int32Array;
  bulk: BulkKeys;
  /** Ids of the records an upsert changed (or dataDir restored): all that persistence has to write. */
  changed: Set<number>;
}

export type EpisodeKind = 'exceptionSpike' | 'versionDrop' | 'eventSurge';

/** What every planted episode (episodes.ts) has: where and when, and by how much the affected figure changes. */
export interface EpisodeSpan {
  productId: string;
  /** First and last day of the episode (inclusive): day numbers, and the same as `YYYY-MM-DD`. */
  startDay: Day;
  endDay: Day;
  startDate: string;
  endDate: string;
  /** The affected figure on the episode's days is about `factor` times what it would have been. */
  factor: number;
}
/** Lines of one exception type in the exception files: about `factor` × its usual daily count on each day. */
export interface ExceptionSpike extends EpisodeSpan {
  kind: 'exceptionSpike';
  exceptionType: string;
}
/** Clients running one version: a share `1 − factor` of those active in the episode inactive on all of its days. */
export interface VersionDrop extends EpisodeSpan {
  kind: 'versionDrop';
  version: string;
}
/** One tracked event: each occurrence on the episode's days counts `factor` times (an integer). */
export interface EventSurge extends EpisodeSpan {
  kind: 'eventSurge';
  category: string | null;
  name: string;
}
export type PlantedEpisode = ExceptionSpike | VersionDrop | EventSurge;

/** The event surge as the event counting code reads it: event index, days, and extra occurrences per occurrence. */
export interface SurgePlan {
  event: number;
  from: Day;
  to: Day;
  extra: number;
}

export interface ProductData {
  product: Product;
  /** Number of clients. */
  n: number;
  /** The data set's "today" (the last day with data); reports use the clock's today. */
  today: Day;
  /** Day of bit 0 of every client's activity row. */
  firstDay: Day;
  /** 32-bit words per client in `activity`. */
  words: number;
  /** Ascending by code point; client number i is its rank. */
  clientIds: string[];
  installDay: Int32Array;
  lastSeenDay: Int32Array;
  /** n × words bitset; bit (d - firstDay) of row i = client i was active on day d. */
  activity: Uint32Array;
  /** Upper bound of sessions per active day for this client (1–6); see activity.ts. */
  sessionsCap: Uint8Array;
  lifetimeActiveDays: Uint32Array;
  lifetimeSessions: Uint32Array;
  lifetimeRuntimeMinutes: Uint32Array;
  /** Scalar property columns by name (built-in, hierarchical levels `os.platform`…, custom `C01`…). */
  columns: Map<string, Column>;
  /** For `prodVersion`/`prodBuild`: value at install, and the day the client moved to its latest version. */
  installVersion: StringColumn;
  installBuild: StringColumn;
  upgradeDay: Int32Array;
  /** Index into registry.records of the client's license key, or -1. */
  licenseKeyIndex: Int32Array;
  /** Bit 0 opted out now, bit 1 ever opted out, bit 2 backed off now, bit 3 ever backed off. */
  privacy: Uint8Array;
  events: TrackedEvent[];
  /** n × events.length: occurrences of event e on each active day of client i (0 = never uses it). */
  eventPerDay: Uint8Array;
  campaigns: Campaign[];
  /** Per client, the indexes into `campaigns` it received (sorted); empty arrays share one instance. */
  deliveries: (readonly number[])[];
  registry: LicenseRegistry;
  seed: number;
  /** The planted episodes of this product (episodes.ts); the version drop is already in `activity`. */
  episodes: readonly PlantedEpisode[];
  /** This product's event surge, if it has one. */
  surge: SurgePlan | undefined;
}

export const NULL_SENTINEL = '<NULL>';

export function stringAt(col: StringColumn, i: number): string | null {
  const code = col.codes[i] ?? 0;
  return code === 0 ? null : (col.dict[code - 1] ?? null);
}
