/**
 * The request body of every operation that takes one, as zod schemas keyed by operation id, plus the service's error
 * body. The family modules take their request types from here with `import type`, so the client's runtime never loads
 * these schemas (they stay out of the Lambda bundles); scripts/build-openapi.ts turns them into the OpenAPI document
 * (src/api/openapi.json).
 */
import * as z from 'zod';
import type { OperationId } from '../../api/operations.ts';
import {
  ClientStatus,
  DateFilter,
  DateRange,
  DateRangeFilter,
  DateReportedLost,
  DateSplit,
  DaysUntilDeclaredLost,
  EventSelector,
  GlobalFilters,
  IsoDate,
  Level,
  Levels,
  LicenseStatusFlags,
  LostParameters,
  NoLevels,
  NumberFilter,
  NumberRangeFilter,
  Paging,
  RegexFilter,
  Segment,
  Segmentation,
  SingleEventSelector,
  SortDirection,
  StringArrayFilter,
  StringFilter,
} from './request-types.ts';

// ---- auth (docs/interface.md "Sessions")

export const SignInRequest = z.object({ userName: z.string(), password: z.string() });
export type SignInRequest = z.input<typeof SignInRequest>;
/** Anything else in the body is ignored. */
export const LogoutRequest = z.object({ allSessions: z.boolean().optional() });
export type LogoutRequest = z.input<typeof LogoutRequest>;

// ---- metadata (docs/interface.md "Product properties")

export const PropertyValuesRequest = z.object({
  /** A property with `supportsMeta`, or a dotted level name (`geography.country`). */
  property: z.string(),
  /** Only for `os` (platform, version, edition), `geography` (continent, country, usState), `gpu` (vendor, model). */
  granularity: z.string().optional(),
  /** Not allowed for geography. */
  filter: z.object({ type: z.enum(['string', 'regex']), value: z.string() }).optional(),
  /** Continue after this value: the last value of the previous page. */
  startAfter: z.string().optional(),
  /** `os`, `osLanguage`, `geography`: every known value, not only those seen. */
  getFullList: z.boolean().optional(),
});
export type PropertyValuesRequest = z.input<typeof PropertyValuesRequest>;

// ---- generic reports (docs/interface.md "Generic reports")

const genericReportBase = {
  /** 1–3 distinct statuses; only these counts are returned. */
  clientStatus: z.array(ClientStatus).min(1).max(3),
  /** `clientId` (default), `machineId`, `licenseKey` or a custom property `C01`–`C20`. */
  groupBy: z.string().optional(),
  /** Required when `lost` is requested (≥ 1). */
  daysUntilDeclaredLost: DaysUntilDeclaredLost.optional(),
  /** Required when `lost` is requested. */
  dateReportedLost: DateReportedLost.optional(),
  globalFilters: GlobalFilters.optional(),
  resultMode: z.enum(['absolute', 'percentOfActive']).optional(),
};
const dateRangeBase = { ...genericReportBase, startDate: IsoDate, stopDate: IsoDate };

/** No split: one total for the range, optionally segmented by up to three levels. */
export const DateRangeTotalsRequest = z.object({
  ...dateRangeBase,
  dateSplit: z.null().optional(),
  levels: z.union([Levels, NoLevels]).optional(),
});
export type DateRangeTotalsRequest = z.input<typeof DateRangeTotalsRequest>;
/** Split into periods; at most `level1`. */
export const DateRangeSplitRequest = z.object({
  ...dateRangeBase,
  dateSplit: DateSplit,
  levels: z.union([z.object({ level1: Level }), NoLevels]).optional(),
});
export type DateRangeSplitRequest = z.input<typeof DateRangeSplitRequest>;
export const DateRangeRequest = z.union([DateRangeTotalsRequest, DateRangeSplitRequest]);
export type DateRangeRequest = z.input<typeof DateRangeRequest>;

/** The window runs from `startDate` to today. */
export const CurrentReportRequest = z.object({
  ...genericReportBase,
  startDate: IsoDate,
  levels: z.union([Levels, NoLevels]).optional(),
});
export type CurrentReportRequest = z.input<typeof CurrentReportRequest>;

// ---- usage distribution (docs/interface.md "Usage distribution")

export const UsageDistributionRequest = DateRange.extend({ globalFilters: GlobalFilters.optional() });
export type UsageDistributionRequest = z.input<typeof UsageDistributionRequest>;

// ---- event tracking reports (docs/interface.md "Event tracking reports")

export const HistogramMetric = z.enum([
  'eventCount',
  'averageCountPerActiveDay',
  'averageCountPerActiveWeek',
  'averageCountPerActiveMonth',
]);
export type HistogramMetric = z.input<typeof HistogramMetric>;
const perMetric = <T extends z.ZodType>(t: T) =>
  z.object({
    eventCount: t.optional(),
    averageCountPerActiveDay: t.optional(),
    averageCountPerActiveWeek: t.optional(),
    averageCountPerActiveMonth: t.optional(),
  });

export const LifetimeHistogramRequest = DateRange.extend({
  groupBy: z.string().optional(),
  globalFilters: GlobalFilters.optional(),
  /** One series per selector, ≥ 1. */
  events: z.array(EventSelector).min(1),
  /** Lower edge of the first bin: `eventCount` an int ≥ 1, the averages ≥ 0. */
  lowerBounds: perMetric(z.number().min(0)).optional(),
  /** Ascending upper edges; `"inf"` only last; decimals at most 2 places. */
  binUpperBounds: perMetric(z.array(z.union([z.number(), z.literal('inf')]))).optional(),
});
export type LifetimeHistogramRequest = z.input<typeof LifetimeHistogramRequest>;

export const TableSorting = z.object({
  events: z.enum(['alpha', 'eventCounts', 'uniqueUsersUsedAtLeastOnce']).optional(),
  eventsDirection: SortDirection.optional(),
  segments: z
    .enum(['alpha', 'active', 'eventCounts', 'uniqueUsersUsedAtLeastOnce', 'percentUsedAtLeastOnce'])
    .optional(),
  segmentsDirection: SortDirection.optional(),
});
export type TableSorting = z.input<typeof TableSorting>;

const lifetimeDataTableMembers = DateRange.extend({
  globalFilters: GlobalFilters.optional(),
  /** Which events get rows; absent or null = all events. */
  events: z.array(EventSelector).nullable().optional(),
  /** Group the rows of each page by category. */
  categorizeEvents: z.boolean().optional(),
  sorting: TableSorting.optional(),
  /** Without paging, all rows come back. */
  paging: Paging.optional(),
});
export const LifetimeDataTableRequest = z.intersection(
  lifetimeDataTableMembers.extend({ groupBy: z.string().optional() }),
  Segmentation,
);
export type LifetimeDataTableRequest = z.input<typeof LifetimeDataTableRequest>;

/** Counts cover the range only. */
export const BasicDataTableRequest = DateRange;
export type BasicDataTableRequest = z.input<typeof BasicDataTableRequest>;

const Divisor = z.enum(['users', 'sessions', 'runtime']);
/** Count occurrences, or sum numeric custom values; `divisor: "usageCounts"` only with custom values. */
const TimelineView = z.union([
  z.object({ dataView: z.literal('usageCounts'), divisor: Divisor.nullable().optional() }),
  z.object({
    dataView: z.literal('customValues'),
    divisor: z
      .union([Divisor, z.literal('usageCounts')])
      .nullable()
      .optional(),
  }),
]);
export const BasicTimelineRequest = z.intersection(
  DateRange.extend({
    dateSplit: DateSplit,
    /** One series per selector, ≥ 1. */
    events: z.array(EventSelector).min(1),
  }),
  TimelineView,
);
export type BasicTimelineRequest = z.input<typeof BasicTimelineRequest>;

export const AdvancedFullReportRequest = z.intersection(
  DateRange.extend({
    /** Single form only; each must be an advanced event (`listEvents`). */
    events: z.array(SingleEventSelector).min(1),
    globalFilters: GlobalFilters.optional(),
    /** Segment order. */
    sort: z.enum(['alpha', 'eventCounts']).optional(),
    sortDirection: SortDirection.optional(),
  }),
  Segmentation,
);
export type AdvancedFullReportRequest = z.input<typeof AdvancedFullReportRequest>;

// ---- churn reports (docs/interface.md "Churn reports")

export const ChurnAndEngagementRequest = DateRange.extend({
  /** Days of inactivity before a client counts as lost, ≥ 1. (`startDate`/`stopDate`: install-date range.) */
  daysUntilDeclaredLost: DaysUntilDeclaredLost,
  /** Step of the "periods since install" axis. */
  dateSplit: DateSplit,
  globalFilters: GlobalFilters.optional(),
  /** A property, or `"installationMonth"` (cohort by install month; then no `segments`). */
  segmentBy: z.string().optional(),
  segments: z.array(Segment).optional(),
});
export type ChurnAndEngagementRequest = z.input<typeof ChurnAndEngagementRequest>;

/** `startDate`/`stopDate`: the range in which clients were lost. */
export const ChurnHistogramRequest = DateRange.extend({
  ...LostParameters.shape,
  globalFilters: GlobalFilters.optional(),
});
export type ChurnHistogramRequest = z.input<typeof ChurnHistogramRequest>;

/** The `lifetimeDataTable` members except `groupBy`, plus the loss parameters; the population is the lost clients. */
export const ChurnLifetimeDataTableRequest = z.intersection(
  lifetimeDataTableMembers.extend(LostParameters.shape),
  Segmentation,
);
export type ChurnLifetimeDataTableRequest = z.input<typeof ChurnLifetimeDataTableRequest>;
/** The `lifetimeHistogram` members except `groupBy`, plus the loss parameters. */
export const ChurnLifetimeHistogramRequest = LifetimeHistogramRequest.omit({ groupBy: true }).extend(
  LostParameters.shape,
);
export type ChurnLifetimeHistogramRequest = z.input<typeof ChurnLifetimeHistogramRequest>;

// ---- license key registry (docs/interface.md "License key registry")

/** String filter kinds (docs/interface.md "Filters"). */
export const LicenseStringFilter = z.union([StringFilter, StringArrayFilter, RegexFilter]);
export type LicenseStringFilter = z.input<typeof LicenseStringFilter>;
/** Date filter kinds; `value: "<NULL>"` matches keys without a date. */
export const LicenseDateFilter = z.union([DateFilter, DateRangeFilter]);
export type LicenseDateFilter = z.input<typeof LicenseDateFilter>;
export const LicenseNumberFilter = z.union([NumberFilter, NumberRangeFilter]);
export type LicenseNumberFilter = z.input<typeof LicenseNumberFilter>;

export const LicenseKeySearchRequest = z.object({
  /** Combined with AND; the `licenseStatus` objects with OR. */
  filters: z
    .object({
      licenseKey: LicenseStringFilter.optional(),
      licenseType: LicenseStringFilter.optional(),
      addedDate: LicenseDateFilter.optional(),
      expiryDate: LicenseDateFilter.optional(),
      autoCollected: z.boolean().optional(),
      overQuotaCount: LicenseNumberFilter.optional(),
      licenseStatus: z.array(LicenseStatusFlags).optional(),
    })
    .optional(),
  /** `startAt` ≥ 0 (default 0), `limit` 1–1000 (default 100). */
  paging: Paging.optional(),
});
export type LicenseKeySearchRequest = z.input<typeof LicenseKeySearchRequest>;

export const LicenseKeyUpdate = z.object({
  licenseKey: z.string(),
  licenseType: z.string().optional(),
  /** Merged flag by flag into an existing key's status. */
  licenseStatus: LicenseStatusFlags.optional(),
  expiryDate: IsoDate.nullable().optional(),
  /** Clients allowed; null = no quota. */
  quota: z.number().int().min(0).nullable().optional(),
});
export type LicenseKeyUpdate = z.input<typeof LicenseKeyUpdate>;

export const LicenseKeyUpdateRequest = z.object({
  /** 1–1000 items, processed in order; new and existing keys may be mixed (upsert). */
  keyUpdates: z.array(LicenseKeyUpdate).min(1).max(1000),
});
export type LicenseKeyUpdateRequest = z.input<typeof LicenseKeyUpdateRequest>;

// ---- files (docs/interface.md "Latest lines", "Download addresses")

export const LastLinesRequest = z.object({
  /** Number of latest lines, 1–1000. */
  lineCount: z.number().int().min(1).max(1000),
});
export type LastLinesRequest = z.input<typeof LastLinesRequest>;

export const DownloadUrlRequest = z.object({
  /** A name from the family's listing. */
  fileName: z.string(),
});
export type DownloadUrlRequest = z.input<typeof DownloadUrlRequest>;

// ---- client profile (docs/interface.md "Client property list", "Client export CSV")

export const ClientPropertyListRequest = z.object({
  /** First page: absent or null; later pages: the previous `nextClientId` (inclusive). */
  startAtClientId: z.string().nullable().optional(),
  /** Returned per client; absent or empty = `clientId` only. */
  properties: z.array(z.string()).optional(),
  /** Also return per-day values of these properties, for the days the client was active. */
  retDailyData: DateRange.extend({ properties: z.array(z.string()) }).optional(),
  globalFilters: GlobalFilters.optional(),
});
export type ClientPropertyListRequest = z.input<typeof ClientPropertyListRequest>;

export const ExportClientPropertyListRequest = z.object({
  /** Columns after `clientId`, at least one; names as in `clientPropertyList`. */
  properties: z.tuple([z.string()], z.string()),
  globalFilters: GlobalFilters.optional(),
});
export type ExportClientPropertyListRequest = z.input<typeof ExportClientPropertyListRequest>;

/** The request body of each operation that takes one (GET operations take none). */
export const REQUEST_SCHEMAS = {
  signIn: SignInRequest,
  logout: LogoutRequest,
  propertyValues: PropertyValuesRequest,
  dateRangeReport: DateRangeRequest,
  currentReport: CurrentReportRequest,
  usageDistribution: UsageDistributionRequest,
  lifetimeHistogram: LifetimeHistogramRequest,
  lifetimeDataTable: LifetimeDataTableRequest,
  basicDataTable: BasicDataTableRequest,
  basicTimeline: BasicTimelineRequest,
  advancedFullReport: AdvancedFullReportRequest,
  churnAndEngagement: ChurnAndEngagementRequest,
  churnHistogramDays: ChurnHistogramRequest,
  churnHistogramRuntime: ChurnHistogramRequest,
  churnHistogramSessions: ChurnHistogramRequest,
  churnLifetimeDataTable: ChurnLifetimeDataTableRequest,
  churnLifetimeHistogram: ChurnLifetimeHistogramRequest,
  searchLicenseKeys: LicenseKeySearchRequest,
  updateLicenseKeys: LicenseKeyUpdateRequest,
  insertLicenseKeys: LicenseKeyUpdateRequest,
  customEventsLastLines: LastLinesRequest,
  customEventsDownloadUrl: DownloadUrlRequest,
  exceptionsLastLines: LastLinesRequest,
  exceptionsDownloadUrl: DownloadUrlRequest,
  clientPropertyList: ClientPropertyListRequest,
  exportClientPropertyList: ExportClientPropertyListRequest,
  rawEventsDownloadUrl: DownloadUrlRequest,
} satisfies Partial<Record<OperationId, z.ZodType>>;

/** Every error answer's body (docs/interface.md "Errors"): the `error` label and a message naming the problem. */
export const ServiceErrorBody = z.looseObject({
  error: z.string(),
  /** A 400's is `"<field path>: <problem>"`. */
  message: z.string(),
});
