/**
 * Generic reports (docs/interface.md "Generic reports"): `dateRangeReport`, `currentReport`. The result layout depends
 * on the request (date split, levels), and much of it is still an open question there: maps keyed by period or segment
 * label, `totals` optional, counts as plain numbers (percentages in `percentOfActive` mode).
 */
import * as z from 'zod';
import { validateResponse } from '../shape.ts';
import type { Caller, CallOptions, SchemaMap } from './caller.ts';
import { DateString } from './common.ts';
import type {
  CurrentReportRequest,
  DateRangeRequest,
  DateRangeSplitRequest,
  DateRangeTotalsRequest,
} from './request-bodies.ts';
import type { DateSplit, Level, NoLevels } from './request-types.ts';
import { isRecord, shapeChoice } from './shape-choice.ts';

export type { CurrentReportRequest, DateRangeRequest, DateRangeSplitRequest, DateRangeTotalsRequest };

// ---- responses

/** Requested statuses only. */
export const Counts = z.looseObject({
  new: z.number().optional(),
  active: z.number().optional(),
  lost: z.number().optional(),
});
export type Counts = z.output<typeof Counts>;

const Node3 = z.looseObject({ totals: Counts });
const Node2 = z.looseObject({ totals: Counts, level3: z.record(z.string(), Node3).optional() });
const Node1 = z.looseObject({ totals: Counts, level2: z.record(z.string(), Node2).optional() });
/** `{ totals, level1?: { "<label>": { totals, level2?: … } } }`, keyed by segment label in the intended order. */
export const CountsTree = z.looseObject({ totals: Counts.optional(), level1: z.record(z.string(), Node1).optional() });
export type CountsTree = z.output<typeof CountsTree>;

/** `{ "<period start>": Counts }`, every period of the range. */
export const PeriodCounts = z.record(DateString, Counts);
/** `{ "<period start>": { "<segment label>": Counts } }`. */
export const PeriodSegmentCounts = z.record(DateString, z.record(z.string(), Counts));

const hasTree = (r: unknown) => isRecord(r) && ('totals' in r || 'level1' in r);
// A period holds segments when any of its members is an object (Counts members are numbers).
const hasSegments = (r: unknown) =>
  isRecord(r) && Object.values(r).some((p) => isRecord(p) && Object.values(p).some(isRecord));

const TreeResponse = z.looseObject({ result: CountsTree });
const PeriodResponse = z.looseObject({ result: PeriodCounts });
const PeriodSegmentResponse = z.looseObject({ result: PeriodSegmentCounts });
export type DateRangeTotalsResponse = z.output<typeof TreeResponse>;
export type DateRangeSplitResponse = z.output<typeof PeriodResponse>;
export type DateRangeSegmentedSplitResponse = z.output<typeof PeriodSegmentResponse>;

/** Any `dateRangeReport` layout, told apart by content (for `client.call`); the typed method narrows by request. */
export const DateRangeResponse = z.looseObject({
  result: shapeChoice([CountsTree, PeriodCounts, PeriodSegmentCounts], (r) =>
    hasTree(r) ? CountsTree : hasSegments(r) ? PeriodSegmentCounts : PeriodCounts,
  ),
});
export type DateRangeResponse = z.output<typeof DateRangeResponse>;

/**
 * The `dateRangeReport` layout a request asks for. (`clientStatus` keeps the tested types from being weak, all-optional
 * ones.)
 */
export type DateRangeResponseFor<B extends DateRangeRequest> = B extends { dateSplit: DateSplit }
  ? B extends { levels: { level1: Level } }
    ? DateRangeSegmentedSplitResponse
    : B extends { clientStatus: unknown; levels?: NoLevels | undefined }
      ? DateRangeSplitResponse
      : DateRangeSplitResponse | DateRangeSegmentedSplitResponse
  : B extends { clientStatus: unknown; dateSplit?: null | undefined }
    ? DateRangeTotalsResponse
    : DateRangeResponse;

function dateRangeShapeFor(body: DateRangeRequest): z.ZodType {
  if (!body.dateSplit) return TreeResponse;
  return body.levels && 'level1' in body.levels ? PeriodSegmentResponse : PeriodResponse;
}

/** With levels `{ level1: … }` (no `totals`), without `{ totals }`. */
export const CurrentReportResponse = TreeResponse;
export type CurrentReportResponse = z.output<typeof CurrentReportResponse>;

export const genericReportSchemas = {
  dateRangeReport: DateRangeResponse,
  currentReport: CurrentReportResponse,
} satisfies SchemaMap;

export interface GenericReportMethods {
  /** New / active / lost units in a date range: one total (optionally by levels) or one entry per period. */
  dateRangeReport<B extends DateRangeRequest>(
    productId: string,
    body: B,
    opts?: CallOptions,
  ): Promise<DateRangeResponseFor<B>>;
  /** New / active / lost units from `startDate` to today, optionally by up to three levels. */
  currentReport(productId: string, body: CurrentReportRequest, opts?: CallOptions): Promise<CurrentReportResponse>;
}

export const genericReportMethods = (call: Caller): GenericReportMethods => ({
  async dateRangeReport<B extends DateRangeRequest>(productId: string, body: B, opts?: CallOptions) {
    const any = await call.json<DateRangeResponse>('dateRangeReport', productId, body, opts);
    // The content-based choice accepts every layout; hold the answer to the one this request asks for.
    return validateResponse('dateRangeReport', dateRangeShapeFor(body), any) as DateRangeResponseFor<B>;
  },
  currentReport: (productId, body, opts) => call.json('currentReport', productId, body, opts),
});
