/**
 * Request body pieces shared by the report families: dates, filters, segments, levels, event selectors and paging, as
 * zod schemas with their TypeScript types (`z.input`). The client's runtime imports this module for its types only
 * (`import type`), so the schemas stay out of the Lambda bundles; scripts/build-openapi.ts turns them into the
 * OpenAPI document (src/api/openapi.json). The service validates the bodies (400 names the bad field).
 */
import * as z from 'zod';
import { DateString } from './common.ts';

/** A UTC calendar day `YYYY-MM-DD` (docs/interface.md "Dates, weeks and time zones"). */
export const IsoDate = DateString;
export type IsoDate = z.input<typeof IsoDate>;
export const DateSplit = z.enum(['day', 'week', 'month']);
export type DateSplit = z.input<typeof DateSplit>;
export const ClientStatus = z.enum(['new', 'active', 'lost']);
export type ClientStatus = z.input<typeof ClientStatus>;
export const SortDirection = z.enum(['asc', 'desc']);
export type SortDirection = z.input<typeof SortDirection>;
export const DateReportedLost = z.enum(['dateLastSeen', 'dateDeclaredLost']);
export type DateReportedLost = z.input<typeof DateReportedLost>;

/** Both days included; `startDate > stopDate` is a 400. */
export const DateRange = z.object({ startDate: IsoDate, stopDate: IsoDate });
export type DateRange = z.input<typeof DateRange>;

/** Days of inactivity before a unit counts as lost, ≥ 1. */
export const DaysUntilDeclaredLost = z.number().int().min(1);

/** When a unit counts as lost (docs/interface.md "Generic reports"). */
export const LostParameters = z.object({
  daysUntilDeclaredLost: DaysUntilDeclaredLost,
  dateReportedLost: DateReportedLost,
});
export type LostParameters = z.input<typeof LostParameters>;

/** `shape` plus inclusive bounds `min`/`max` of type `bound`, at least one of them. */
function withBounds<S extends z.ZodRawShape, B extends z.ZodType>(shape: S, bound: B) {
  return z.union([
    z.object({ ...shape, min: bound, max: bound.optional() }),
    z.object({ ...shape, min: bound.optional(), max: bound }),
  ]);
}

// Filter kinds of ordinary properties (docs/interface.md "Filters"). `"<NULL>"` as a string/stringArray/date value
// matches "no value".
export const StringFilter = z.object({ type: z.literal('string'), value: z.string() });
export type StringFilter = z.input<typeof StringFilter>;
export const StringArrayFilter = z.object({ type: z.literal('stringArray'), value: z.array(z.string()) });
export type StringArrayFilter = z.input<typeof StringArrayFilter>;
/** ECMAScript pattern, case-sensitive, unanchored. */
export const RegexFilter = z.object({ type: z.literal('regex'), value: z.string() });
export type RegexFilter = z.input<typeof RegexFilter>;
export const NumberFilter = z.object({ type: z.literal('number'), value: z.number() });
export type NumberFilter = z.input<typeof NumberFilter>;
export const NumberRangeFilter = withBounds({ type: z.literal('numberRange') }, z.number());
export type NumberRangeFilter = z.input<typeof NumberRangeFilter>;
export const DateFilter = z.object({ type: z.literal('date'), value: z.union([IsoDate, z.literal('<NULL>')]) });
export type DateFilter = z.input<typeof DateFilter>;
export const DateRangeFilter = withBounds({ type: z.literal('dateRange') }, IsoDate);
export type DateRangeFilter = z.input<typeof DateRangeFilter>;
/** For the `licenseStatus.*` flags. */
export const BooleanFilter = z.object({ type: z.literal('boolean'), value: z.boolean() });
export type BooleanFilter = z.input<typeof BooleanFilter>;
export const PropertyFilter = z.union([
  StringFilter,
  StringArrayFilter,
  RegexFilter,
  NumberFilter,
  NumberRangeFilter,
  DateFilter,
  DateRangeFilter,
  BooleanFilter,
]);
export type PropertyFilter = z.input<typeof PropertyFilter>;

// Special properties.
export const LicenseStatusFlags = z.object({
  activated: z.boolean().optional(),
  allowed: z.boolean().optional(),
  blocked: z.boolean().optional(),
  expired: z.boolean().optional(),
});
export type LicenseStatusFlags = z.input<typeof LicenseStatusFlags>;
/** Objects OR, flags within one object AND. */
export const LicenseStatusFilter = z.array(LicenseStatusFlags);
export type LicenseStatusFilter = z.input<typeof LicenseStatusFilter>;
/** The values of one level of a hierarchical property; any given level matches (OR). */
const LevelValues = z.object({ value: z.array(z.string()) });
export const OsFilter = z.object({
  type: z.literal('stringArray'),
  platform: LevelValues.optional(),
  version: LevelValues.optional(),
  edition: LevelValues.optional(),
});
export type OsFilter = z.input<typeof OsFilter>;
/** Continents as two letters, countries ISO 3166-1 alpha-2, US states `US-XX`. */
export const GeographyFilter = z.object({
  type: z.literal('stringArray'),
  continent: LevelValues.optional(),
  country: LevelValues.optional(),
  usState: LevelValues.optional(),
});
export type GeographyFilter = z.input<typeof GeographyFilter>;
export const GpuFilter = z.object({
  type: z.literal('stringArray'),
  vendor: LevelValues.optional(),
  model: LevelValues.optional(),
});
export type GpuFilter = z.input<typeof GpuFilter>;
/** `current` = in that state now, `historical` = ever; objects OR, members AND. */
export const PrivacyFilter = z.array(z.object({ historical: z.boolean().optional(), current: z.boolean().optional() }));
export type PrivacyFilter = z.input<typeof PrivacyFilter>;

// Event selectors (docs/interface.md "Event selectors").
export const MatchType = z.enum(['string', 'regex']);
export type MatchType = z.input<typeof MatchType>;
export const CombiEntry = z.object({
  /** `null` with type `string` matches uncategorised events. */
  category: z.string().nullable(),
  categoryType: MatchType.optional(),
  name: z.string(),
  nameType: MatchType.optional(),
});
export type CombiEntry = z.input<typeof CombiEntry>;
/** One event, exact match. */
export const SingleEventSelector = z.object({ category: z.string().nullable(), name: z.string() });
export type SingleEventSelector = z.input<typeof SingleEventSelector>;
/** One series made of every event any entry matches; default label `"<category>/<name>"` joined by `", "`. */
export const CombinationSelector = z.object({ combiLabel: z.string().optional(), combiArray: z.array(CombiEntry) });
export type CombinationSelector = z.input<typeof CombinationSelector>;
export const EventSelector = z.union([SingleEventSelector, CombinationSelector]);
export type EventSelector = z.input<typeof EventSelector>;

/** The client's lifetime count of the matched events lies in `[min ?? 0, max]`; entries AND. */
export const LifetimeEventUsageFilter = z.array(
  z.object({ combiArray: z.array(CombiEntry), min: z.number().int().min(0).optional(), max: z.number().int() }),
);
export type LifetimeEventUsageFilter = z.input<typeof LifetimeEventUsageFilter>;
/** In-app message campaign ids as strings; lists in one object AND, objects OR. */
export const ReachOutDeliveriesFilter = z.array(
  z.object({
    auto: z
      .object({ delivered: z.array(z.string()).optional(), undelivered: z.array(z.string()).optional() })
      .optional(),
    manual: z.object({ delivered: z.array(z.string()).optional() }).optional(),
  }),
);
export type ReachOutDeliveriesFilter = z.input<typeof ReachOutDeliveriesFilter>;
export const SpecialFilter = z.union([
  LicenseStatusFilter,
  OsFilter,
  GeographyFilter,
  GpuFilter,
  PrivacyFilter,
  LifetimeEventUsageFilter,
  ReachOutDeliveriesFilter,
]);
export type SpecialFilter = z.input<typeof SpecialFilter>;

/** Keyed by property name (from productProperties); members AND; `{}` = no filtering. */
export const GlobalFilters = z
  .object({
    licenseStatus: LicenseStatusFilter.optional(),
    os: OsFilter.optional(),
    geography: GeographyFilter.optional(),
    gpu: GpuFilter.optional(),
    optOut: PrivacyFilter.optional(),
    backOff: PrivacyFilter.optional(),
    lifetimeEventUsage: LifetimeEventUsageFilter.optional(),
    reachOutDeliveries: ReachOutDeliveriesFilter.optional(),
  })
  // Ordinary properties take the kinds of their type (string, number, date or boolean kinds).
  .catchall(z.union([PropertyFilter, SpecialFilter]));
export type GlobalFilters = z.input<typeof GlobalFilters>;

// Segments (docs/interface.md "Segments and levels"). `includeNull`: clients without a value join the segment (or form
// a `"<NULL>"` segment with split).
const segmentBase = { segmentLabel: z.string().optional(), includeNull: z.boolean().optional() };

/** With `split`, one segment per matched value (first `limit` after sorting); without, `segmentLabel` is required. */
function splittable<S extends z.ZodRawShape>(shape: S) {
  return z.union([
    z.object({
      ...shape,
      includeNull: z.boolean().optional(),
      split: z.literal(true),
      limit: z.number().int().min(1).optional(),
      segmentLabel: z.string().optional(),
    }),
    z.object({
      ...shape,
      includeNull: z.boolean().optional(),
      split: z.literal(false).optional(),
      limit: z.never().optional(),
      segmentLabel: z.string(),
    }),
  ]);
}

export const StringSegment = z.object({ ...segmentBase, type: z.literal('string'), value: z.string() });
export type StringSegment = z.input<typeof StringSegment>;
export const StringArraySegment = splittable({ type: z.literal('stringArray'), value: z.array(z.string()) });
export type StringArraySegment = z.input<typeof StringArraySegment>;
export const RegexSegment = splittable({ type: z.literal('regex'), value: z.string() });
export type RegexSegment = z.input<typeof RegexSegment>;
export const NumberSegment = z.object({ ...segmentBase, type: z.literal('number'), value: z.number() });
export type NumberSegment = z.input<typeof NumberSegment>;
export const NumberRangeSegment = withBounds(
  { type: z.literal('numberRange'), segmentLabel: z.string(), includeNull: z.boolean().optional() },
  z.number(),
);
export type NumberRangeSegment = z.input<typeof NumberRangeSegment>;
export const BooleanSegment = z.object({ ...segmentBase, type: z.literal('boolean'), value: z.boolean() });
export type BooleanSegment = z.input<typeof BooleanSegment>;
/** Property `licenseStatus` only. */
export const LicenseStatusSegment = z.object({
  type: z.literal('licenseStatus'),
  value: z.array(LicenseStatusFlags),
  segmentLabel: z.string(),
  includeNull: z.boolean().optional(),
});
export type LicenseStatusSegment = z.input<typeof LicenseStatusSegment>;
export const Segment = z.union([
  StringSegment,
  StringArraySegment,
  RegexSegment,
  NumberSegment,
  NumberRangeSegment,
  BooleanSegment,
  LicenseStatusSegment,
]);
export type Segment = z.input<typeof Segment>;

/** `segmentBy` + `segments` of the event and churn reports; absent segments = one per value. */
export const Segmentation = z.union([
  z.object({ segmentBy: z.never().optional(), segments: z.never().optional() }),
  z.object({ segmentBy: z.string(), segments: z.array(Segment).optional() }),
]);
export type Segmentation = z.input<typeof Segmentation>;

/** One level of the generic reports. Hierarchical properties by level name (`geography.country`). */
export const Level = z.object({
  property: z.string(),
  /** Absent or empty: one segment per distinct value. */
  segments: z.array(Segment).optional(),
  /** Without it, segments keep the request order. */
  sort: z.union([z.literal('alpha'), ClientStatus]).optional(),
  /** Defaults: `asc` for `alpha`, `desc` for counts. */
  sortDirection: SortDirection.optional(),
});
export type Level = z.input<typeof Level>;
/** Up to three levels, each needing the one above. */
export const Levels = z.union([
  z.object({ level1: Level, level2: Level.optional(), level3: z.never().optional() }),
  z.object({ level1: Level, level2: Level, level3: Level.optional() }),
]);
export type Levels = z.input<typeof Levels>;
/** `levels` that mean "no segmentation". */
export const NoLevels = z.record(z.string(), z.never());
export type NoLevels = z.input<typeof NoLevels>;

/** Offset and page size (1–1000) over the rows. */
export const Paging = z.object({
  startAt: z.number().int().min(0).optional(),
  limit: z.number().int().min(1).max(1000).optional(),
});
export type Paging = z.input<typeof Paging>;
