/**
 * Churn-related reports (docs/interface.md "Churn reports"): `churnAndEngagement`, the lost-client histograms
 * `churnHistogramDays`, `churnHistogramRuntime`, `churnHistogramSessions`, and the event-based churn reports
 * `churnLifetimeDataTable`/`churnLifetimeHistogram`, which answer exactly as `lifetimeDataTable`/`lifetimeHistogram`
 * (same schemas, same pager).
 */
import * as z from 'zod';
import type { Caller, CallOptions, SchemaMap } from './caller.ts';
import { BinCounts, Count } from './common.ts';
import {
  fetchTable,
  type LifetimeDataTableFor,
  LifetimeDataTableResponse,
  LifetimeHistogramResponse,
  tablePages,
} from './lifetime-reports.ts';
import type {
  ChurnAndEngagementRequest,
  ChurnHistogramRequest,
  ChurnLifetimeDataTableRequest,
  ChurnLifetimeHistogramRequest,
} from './request-bodies.ts';

export type {
  ChurnAndEngagementRequest,
  ChurnHistogramRequest,
  ChurnLifetimeDataTableRequest,
  ChurnLifetimeHistogramRequest,
};

// ---- responses

// The segment keys and the period range are guesses (docs/interface.md "Churn reports"): maps keyed by string.
export const ChurnAndEngagementResponse = z.looseObject({
  /** `{ "<segment label>" | "all" | "YYYY-MM-01": { "<n periods since install>": … } }` */
  result: z.record(
    z.string(),
    z.record(
      z.string(),
      z.looseObject({ engaged: Count, engagedPercent: z.number(), lost: Count, lostPercent: z.number() }),
    ),
  ),
});
export type ChurnAndEngagementResponse = z.output<typeof ChurnAndEngagementResponse>;

/** `{ "<bin label>": lost clients }`; read the bins in order with `binEntries` (an open question). */
export const ChurnHistogramResponse = z.looseObject({ result: BinCounts });
export type ChurnHistogramResponse = z.output<typeof ChurnHistogramResponse>;

export const churnSchemas = {
  churnAndEngagement: ChurnAndEngagementResponse,
  churnHistogramDays: ChurnHistogramResponse,
  churnHistogramRuntime: ChurnHistogramResponse,
  churnHistogramSessions: ChurnHistogramResponse,
  churnLifetimeDataTable: LifetimeDataTableResponse,
  churnLifetimeHistogram: LifetimeHistogramResponse,
} satisfies SchemaMap;

export interface ChurnMethods {
  /** Engaged and lost members of an install cohort per period since install, optionally per segment. */
  churnAndEngagement(
    productId: string,
    body: ChurnAndEngagementRequest,
    opts?: CallOptions,
  ): Promise<ChurnAndEngagementResponse>;
  /** Clients lost in the range, binned by lifetime active days. */
  churnHistogramDays(
    productId: string,
    body: ChurnHistogramRequest,
    opts?: CallOptions,
  ): Promise<ChurnHistogramResponse>;
  /** Clients lost in the range, binned by lifetime runtime (`h:mm` labels). */
  churnHistogramRuntime(
    productId: string,
    body: ChurnHistogramRequest,
    opts?: CallOptions,
  ): Promise<ChurnHistogramResponse>;
  /** Clients lost in the range, binned by lifetime sessions. */
  churnHistogramSessions(
    productId: string,
    body: ChurnHistogramRequest,
    opts?: CallOptions,
  ): Promise<ChurnHistogramResponse>;
  /** The `lifetimeDataTable` table over the clients lost in the range (one page with `paging`). */
  churnLifetimeDataTable<B extends ChurnLifetimeDataTableRequest>(
    productId: string,
    body: B,
    opts?: CallOptions,
  ): Promise<LifetimeDataTableFor<B>>;
  /** Every page of `churnLifetimeDataTable`, from `paging.startAt` until all matching rows came. */
  churnLifetimeDataTablePages<B extends ChurnLifetimeDataTableRequest>(
    productId: string,
    body: B,
    opts?: CallOptions,
  ): AsyncGenerator<LifetimeDataTableFor<B>, void, undefined>;
  /** The `lifetimeHistogram` histograms over the clients lost in the range. */
  churnLifetimeHistogram(
    productId: string,
    body: ChurnLifetimeHistogramRequest,
    opts?: CallOptions,
  ): Promise<LifetimeHistogramResponse>;
}

export const churnMethods = (call: Caller): ChurnMethods => ({
  churnAndEngagement: (productId, body, opts) => call.json('churnAndEngagement', productId, body, opts),
  churnHistogramDays: (productId, body, opts) => call.json('churnHistogramDays', productId, body, opts),
  churnHistogramRuntime: (productId, body, opts) => call.json('churnHistogramRuntime', productId, body, opts),
  churnHistogramSessions: (productId, body, opts) => call.json('churnHistogramSessions', productId, body, opts),
  churnLifetimeDataTable: (productId, body, opts) => fetchTable(call, 'churnLifetimeDataTable', productId, body, opts),
  churnLifetimeDataTablePages: (productId, body, opts) =>
    tablePages(call, 'churnLifetimeDataTable', productId, body, opts),
  churnLifetimeHistogram: (productId, body, opts) => call.json('churnLifetimeHistogram', productId, body, opts),
});
