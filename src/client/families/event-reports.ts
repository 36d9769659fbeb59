/**
 * Event tracking reports (docs/interface.md "Event tracking reports"): `lifetimeHistogram`, `lifetimeDataTable`
 * (+ a pager over its pages), `basicDataTable`, `basicTimeline`, `advancedFullReport`.
 */
import * as z from 'zod';
import type { Caller, CallOptions, SchemaMap } from './caller.ts';
import { Count, DateString, EventValue } from './common.ts';
import {
  fetchTable,
  type LifetimeDataTableFor,
  type LifetimeDataTableRequest,
  LifetimeDataTableResponse,
  type LifetimeHistogramRequest,
  LifetimeHistogramResponse,
  tablePages,
} from './lifetime-reports.ts';
import type { AdvancedFullReportRequest, BasicDataTableRequest, BasicTimelineRequest } from './request-bodies.ts';

export type { AdvancedFullReportRequest, BasicDataTableRequest, BasicTimelineRequest };

// ---- basicDataTable

// Every metric name except cumulativeUsageCount is a guess (docs/interface.md "Event tracking reports"): a map of
// numbers.
const UsageSummary = z.object({ cumulativeUsageCount: Count }).catchall(z.number().nullable());
const CustomValuesSummary = z.record(z.string(), z.number().nullable());

export const BasicDataTableResponse = z.looseObject({
  result: z.array(
    z.looseObject({
      category: z.string().nullable(),
      categoryUsageSummary: UsageSummary,
      categoryCustomValuesSummary: CustomValuesSummary,
      categoryEventsData: z.record(
        z.string(),
        z.looseObject({ eventUsage: UsageSummary, eventCustomValues: CustomValuesSummary }),
      ),
    }),
  ),
});
export type BasicDataTableResponse = z.output<typeof BasicDataTableResponse>;

// ---- basicTimeline

/** `{ "<period start>": EventValue[] }`: every period, one item per selector in request order. */
export const BasicTimelineResponse = z.looseObject({ result: z.record(DateString, z.array(EventValue)) });
export type BasicTimelineResponse = z.output<typeof BasicTimelineResponse>;

// ---- advancedFullReport

// The segmented layout and frequency buckets are guesses (docs/interface.md "Event tracking reports"): every member
// optional.
const AdvancedReportItem = z.looseObject({
  category: z.string().nullable().optional(),
  name: z.string().optional(),
  segmentLabel: z.string().optional(),
  data: z
    .looseObject({
      eventCounts: z.number().optional(),
      averageEventCountPerSessionUsedAtLeastOnce: z.number().optional(),
      averageEventCountPerSessionAll: z.number().optional(),
      averageEventCountPerUserAtLeastOnce: z.number().optional(),
      averageEventCountPerUserAll: z.number().optional(),
      uniqueUsersUsedAtLeastOnce: z.number().optional(),
      uniqueUsersNeverUsed: z.number().optional(),
      /** `interval1` … `interval22`. */
      usageFrequency: z.record(z.string(), z.number()).optional(),
    })
    .optional(),
});

export const AdvancedFullReportResponse = z.looseObject({
  result: z.looseObject({ detailedReport: z.array(AdvancedReportItem) }),
});
export type AdvancedFullReportResponse = z.output<typeof AdvancedFullReportResponse>;

// ---- the family

export const eventReportSchemas = {
  lifetimeHistogram: LifetimeHistogramResponse,
  lifetimeDataTable: LifetimeDataTableResponse,
  basicDataTable: BasicDataTableResponse,
  basicTimeline: BasicTimelineResponse,
  advancedFullReport: AdvancedFullReportResponse,
} satisfies SchemaMap;

export interface EventReportMethods {
  /** Units per bin of lifetime event counts and averages, per selector, for units active in the range. */
  lifetimeHistogram(
    productId: string,
    body: LifetimeHistogramRequest,
    opts?: CallOptions,
  ): Promise<LifetimeHistogramResponse>;
  /** Lifetime metrics per event (one page with `paging`), flat or grouped by category. */
  lifetimeDataTable<B extends LifetimeDataTableRequest>(
    productId: string,
    body: B,
    opts?: CallOptions,
  ): Promise<LifetimeDataTableFor<B>>;
  /** Every page of `lifetimeDataTable`, from `paging.startAt` until all matching rows came. */
  lifetimeDataTablePages<B extends LifetimeDataTableRequest>(
    productId: string,
    body: B,
    opts?: CallOptions,
  ): AsyncGenerator<LifetimeDataTableFor<B>, void, undefined>;
  /** Usage and custom-value summaries of every basic event, per category, for the range. */
  basicDataTable(productId: string, body: BasicDataTableRequest, opts?: CallOptions): Promise<BasicDataTableResponse>;
  /** Per-period series of event usage or custom values. */
  basicTimeline(productId: string, body: BasicTimelineRequest, opts?: CallOptions): Promise<BasicTimelineResponse>;
  /** Detailed metrics of advanced events, optionally per segment. */
  advancedFullReport(
    productId: string,
    body: AdvancedFullReportRequest,
    opts?: CallOptions,
  ): Promise<AdvancedFullReportResponse>;
}

export const eventReportMethods = (call: Caller): EventReportMethods => ({
  lifetimeHistogram: (productId, body, opts) => call.json('lifetimeHistogram', productId, body, opts),
  lifetimeDataTable: (productId, body, opts) => fetchTable(call, 'lifetimeDataTable', productId, body, opts),
  lifetimeDataTablePages: (productId, body, opts) => tablePages(call, 'lifetimeDataTable', productId, body, opts),
  basicDataTable: (productId, body, opts) => call.json('basicDataTable', productId, body, opts),
  basicTimeline: (productId, body, opts) => call.json('basicTimeline', productId, body, opts),
  advancedFullReport: (productId, body, opts) => call.json('advancedFullReport', productId, body, opts),
});
