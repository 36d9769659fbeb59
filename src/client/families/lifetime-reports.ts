/**
 * The lifetime histogram and lifetime data table shapes (`lifetimeHistogram`/`lifetimeDataTable`, docs/interface.md
 * "Event tracking reports"), shared with their churn twins `churnLifetimeHistogram`/`churnLifetimeDataTable`, plus the
 * pager that walks a data table's `paging.startAt`.
 */
import * as z from 'zod';
import { validateResponse } from '../shape.ts';
import type { Caller, CallOptions } from './caller.ts';
import { Count, EventValue } from './common.ts';
import type {
  HistogramMetric,
  LifetimeDataTableRequest,
  LifetimeHistogramRequest,
  TableSorting,
} from './request-bodies.ts';
import type { Paging } from './request-types.ts';
import { isRecord, shapeChoice } from './shape-choice.ts';

// ---- lifetimeHistogram

export type { HistogramMetric, LifetimeDataTableRequest, LifetimeHistogramRequest, TableSorting };

// The per-bin items are a guess (docs/interface.md "Event tracking reports"): kept as unknown, read through
// `histogramBins`.
const HistogramSeries = z.array(z.unknown());

export const LifetimeHistogramResponse = z.looseObject({
  summary: z.looseObject({ usedAtLeastOnce: z.array(EventValue), neverUsed: z.array(EventValue) }),
  result: z.looseObject({
    eventCount: HistogramSeries,
    averageCountPerActiveDay: HistogramSeries,
    averageCountPerActiveWeek: HistogramSeries,
    averageCountPerActiveMonth: HistogramSeries,
  }),
});
export type LifetimeHistogramResponse = z.output<typeof LifetimeHistogramResponse>;

const HistogramBin = z.looseObject({ bin: z.string(), values: z.array(EventValue) });
export type HistogramBin = z.output<typeof HistogramBin>;

/** The `{ bin, values }` items of a histogram series, in the service's (ascending) order; other items skipped. */
export function histogramBins(series: readonly unknown[]): HistogramBin[] {
  return series.flatMap((item) => {
    const parsed = HistogramBin.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

// ---- lifetimeDataTable

// Metrics beyond these three documented ones are guesses (docs/interface.md "Event tracking reports"): optional,
// extras kept.
const metrics = {
  eventCount: Count,
  eventCountPerUserUsedAtLeastOnce: z.number(),
  eventCountPerUserUsedAtLeastOnceActiveDay: z.number(),
  uniqueUsersUsedAtLeastOnce: z.number().optional(),
  percentUsedAtLeastOnce: z.number().optional(),
};
const SegmentRow = z.looseObject({ segmentLabel: z.string(), active: z.number().optional(), ...metrics });
const eventMetrics = { ...metrics, segments: z.array(SegmentRow).optional() };

export const EventRow = z.looseObject({ eventCategory: z.string().nullable(), eventName: z.string(), ...eventMetrics });
export type EventRow = z.output<typeof EventRow>;
/** A category of the current page (`categorizeEvents: true`); a category can span pages. */
export const CategoryRow = z.looseObject({
  eventCategory: z.string().nullable(),
  categoryData: z.array(z.looseObject({ eventName: z.string(), ...eventMetrics })),
});
export type CategoryRow = z.output<typeof CategoryRow>;

const tableOf = <R extends z.ZodType>(row: R) =>
  z.looseObject({ returnedEventsCount: Count, matchingEventsCount: Count, result: z.array(row) });
const EventTable = tableOf(EventRow);
const CategoryTable = tableOf(CategoryRow);
export type EventTable = z.output<typeof EventTable>;
export type CategoryTable = z.output<typeof CategoryTable>;

/** Either row form, told apart by content (for `client.call`); the typed methods narrow by request. */
export const LifetimeDataTableResponse = tableOf(
  shapeChoice([EventRow, CategoryRow], (row) => (isRecord(row) && 'categoryData' in row ? CategoryRow : EventRow)),
);
export type LifetimeDataTableResponse = z.output<typeof LifetimeDataTableResponse>;

type TableOp = 'lifetimeDataTable' | 'churnLifetimeDataTable';
type TableBody = { categorizeEvents?: boolean | undefined; paging?: Paging | undefined };

/**
 * The table a request asks for: categorized rows with `categorizeEvents: true`, flat rows otherwise. (`startDate`
 * keeps the tested type from being a weak, all-optional one, which a body without `categorizeEvents` would not match.)
 */
export type LifetimeDataTableFor<B extends TableBody> = B extends { categorizeEvents: true }
  ? CategoryTable
  : B extends { startDate: unknown; categorizeEvents?: false | undefined }
    ? EventTable
    : LifetimeDataTableResponse;

/** Calls `lifetimeDataTable` or `churnLifetimeDataTable` and holds the answer to the row form the request asks for. */
export async function fetchTable<B extends TableBody>(
  call: Caller,
  id: TableOp,
  productId: string,
  body: B,
  opts?: CallOptions,
): Promise<LifetimeDataTableFor<B>> {
  const any = await call.json<LifetimeDataTableResponse>(id, productId, body, opts);
  return validateResponse(
    id,
    body.categorizeEvents === true ? CategoryTable : EventTable,
    any,
  ) as LifetimeDataTableFor<B>;
}

/** Largest page the service serves (docs/interface.md "Paging"). */
export const MAX_TABLE_PAGE = 1000;

/**
 * Every page of `lifetimeDataTable` or `churnLifetimeDataTable`, from `paging.startAt` (default 0) in pages of
 * `paging.limit` (default the maximum), until all `matchingEventsCount` rows came (or a page comes back empty).
 */
export async function* tablePages<B extends TableBody>(
  call: Caller,
  id: TableOp,
  productId: string,
  body: B,
  opts?: CallOptions,
): AsyncGenerator<LifetimeDataTableFor<B>, void, undefined> {
  let startAt = body.paging?.startAt ?? 0;
  const limit = body.paging?.limit ?? MAX_TABLE_PAGE;
  for (;;) {
    const page: { returnedEventsCount: number; matchingEventsCount: number } & LifetimeDataTableFor<B> =
      await fetchTable(call, id, productId, { ...body, paging: { startAt, limit } }, opts);
    yield page;
    startAt += page.returnedEventsCount;
    if (page.returnedEventsCount === 0 || startAt >= page.matchingEventsCount) return;
  }
}
