/**
 * Request body pieces shared by the report families: dates, filters, segments, levels, event selectors and paging.
 * Types only; the service validates the bodies (400 names the bad field).
 */

/** A UTC calendar day `YYYY-MM-DD` (docs/interface.md "Dates, weeks and time zones"). */
export type IsoDate = string;
export type DateSplit = 'day' | 'week' | 'month';
export type ClientStatus = 'new' | 'active' | 'lost';
export type SortDirection = 'asc' | 'desc';
export type DateReportedLost = 'dateLastSeen' | 'dateDeclaredLost';

/** Both days included; `startDate > stopDate` is a 400. */
export interface DateRange {
  startDate: IsoDate;
  stopDate: IsoDate;
}

/** When a unit counts as lost (docs/interface.md "Generic reports"). */
export interface LostParameters {
  /** Days of inactivity, ≥ 1. */
  daysUntilDeclaredLost: number;
  dateReportedLost: DateReportedLost;
}

/** Inclusive bounds with at least one of them. */
export type Bounds<T> = { min: T; max?: T } | { min?: T; max: T };

// Filter kinds of ordinary properties (docs/interface.md "Filters"). `"<NULL>"` as a string/stringArray/date value
// matches "no value".
export interface StringFilter {
  type: 'string';
  value: string;
}
export interface StringArrayFilter {
  type: 'stringArray';
  value: string[];
}
/** ECMAScript pattern, case-sensitive, unanchored. */
export interface RegexFilter {
  type: 'regex';
  value: string;
}
export interface NumberFilter {
  type: 'number';
  value: number;
}
export type NumberRangeFilter = { type: 'numberRange' } & Bounds<number>;
export interface DateFilter {
  type: 'date';
  value: IsoDate;
}
export type DateRangeFilter = { type: 'dateRange' } & Bounds<IsoDate>;
/** For the `licenseStatus.*` flags. */
export interface BooleanFilter {
  type: 'boolean';
  value: boolean;
}
export type PropertyFilter =
  | StringFilter
  | StringArrayFilter
  | RegexFilter
  | NumberFilter
  | NumberRangeFilter
  | DateFilter
  | DateRangeFilter
  | BooleanFilter;

// Special properties.
export interface LicenseStatusFlags {
  activated?: boolean;
  allowed?: boolean;
  blocked?: boolean;
  expired?: boolean;
}
/** Objects OR, flags within one object AND. */
export type LicenseStatusFilter = LicenseStatusFlags[];
/** Any given level matches (OR). */
export type HierarchyFilter<Level extends string> = { type: 'stringArray' } & { [L in Level]?: { value: string[] } };
export type OsFilter = HierarchyFilter<'platform' | 'version' | 'edition'>;
/** Continents as two letters, countries ISO 3166-1 alpha-2, US states `US-XX`. */
export type GeographyFilter = HierarchyFilter<'continent' | 'country' | 'usState'>;
export type GpuFilter = HierarchyFilter<'vendor' | 'model'>;
/** `current` = in that state now, `historical` = ever; objects OR, members AND. */
export type PrivacyFilter = { historical?: boolean; current?: boolean }[];
/** The client's lifetime count of the matched events lies in `[min ?? 0, max]`; entries AND. */
export type LifetimeEventUsageFilter = { combiArray: CombiEntry[]; min?: number; max: number }[];
/** In-app message campaign ids as strings; lists in one object AND, objects OR. */
export type ReachOutDeliveriesFilter = {
  auto?: { delivered?: string[]; undelivered?: string[] };
  manual?: { delivered?: string[] };
}[];
export type SpecialFilter =
  | LicenseStatusFilter
  | OsFilter
  | GeographyFilter
  | GpuFilter
  | PrivacyFilter
  | LifetimeEventUsageFilter
  | ReachOutDeliveriesFilter;

/** Keyed by property name (from productProperties); members AND; `{}` = no filtering. */
export interface GlobalFilters {
  licenseStatus?: LicenseStatusFilter;
  os?: OsFilter;
  geography?: GeographyFilter;
  gpu?: GpuFilter;
  optOut?: PrivacyFilter;
  backOff?: PrivacyFilter;
  lifetimeEventUsage?: LifetimeEventUsageFilter;
  reachOutDeliveries?: ReachOutDeliveriesFilter;
  /** Ordinary properties take the kinds of their type (string, number, date or boolean kinds). */
  [property: string]: PropertyFilter | SpecialFilter | undefined;
}

// Segments (docs/interface.md "Segments and levels"). `includeNull`: clients without a value join the segment (or form
// a `"<NULL>"` segment with split).
interface SegmentBase {
  segmentLabel?: string;
  includeNull?: boolean;
}
/** With `split`, one segment per matched value (first `limit` after sorting); without, `segmentLabel` is required. */
type Splittable<T> = T &
  ({ split: true; limit?: number; segmentLabel?: string } | { split?: false; limit?: never; segmentLabel: string });

export interface StringSegment extends SegmentBase {
  type: 'string';
  value: string;
}
export type StringArraySegment = Splittable<{ type: 'stringArray'; value: string[]; includeNull?: boolean }>;
export type RegexSegment = Splittable<{ type: 'regex'; value: string; includeNull?: boolean }>;
export interface NumberSegment extends SegmentBase {
  type: 'number';
  value: number;
}
export type NumberRangeSegment = { type: 'numberRange'; segmentLabel: string; includeNull?: boolean } & Bounds<number>;
export interface BooleanSegment extends SegmentBase {
  type: 'boolean';
  value: boolean;
}
/** Property `licenseStatus` only. */
export interface LicenseStatusSegment {
  type: 'licenseStatus';
  value: LicenseStatusFlags[];
  segmentLabel: string;
  includeNull?: boolean;
}
export type Segment =
  | StringSegment
  | StringArraySegment
  | RegexSegment
  | NumberSegment
  | NumberRangeSegment
  | BooleanSegment
  | LicenseStatusSegment;

/** `segmentBy` + `segments` of the event and churn reports; absent segments = one per value. */
export type Segmentation =
  | { segmentBy?: undefined; segments?: undefined }
  | { segmentBy: string; segments?: Segment[] };

/** One level of the generic reports. Hierarchical properties by level name (`geography.country`). */
export interface Level {
  property: string;
  /** Absent or empty: one segment per distinct value. */
  segments?: Segment[];
  /** Without it, segments keep the request order. */
  sort?: 'alpha' | ClientStatus;
  /** Defaults: `asc` for `alpha`, `desc` for counts. */
  sortDirection?: SortDirection;
}
/** Up to three levels, each needing the one above. */
export type Levels =
  | { level1: Level; level2?: Level; level3?: never }
  | { level1: Level; level2: Level; level3?: Level };
/** `levels` that mean "no segmentation". */
export type NoLevels = Record<string, never>;

// Event selectors (docs/interface.md "Event selectors").
export type MatchType = 'string' | 'regex';
export interface CombiEntry {
  /** `null` with type `string` matches uncategorised events. */
  category: string | null;
  categoryType?: MatchType;
  name: string;
  nameType?: MatchType;
}
/** One event, exact match. */
export interface SingleEventSelector {
  category: string | null;
  name: string;
}
/** One series made of every event any entry matches; default label `"<category>/<name>"` joined by `", "`. */
export interface CombinationSelector {
  combiLabel?: string;
  combiArray: CombiEntry[];
}
export type EventSelector = SingleEventSelector | CombinationSelector;

/** Offset and page size (1–1000) over the rows. */
export interface Paging {
  startAt?: number;
  limit?: number;
}
