/**
 * What one digest run fetched: the raw call records (kept verbatim for the archive) and the typed values read from
 * them. A section whose call failed is absent here; the guard refuses the digest over the failed call.
 */
import type { OperationId } from '../client/index.ts';
import type { DigestSection } from '../config/schema.ts';
import type { IsoDate, IsoWeek } from '../core/calendar.ts';

export interface CallFailure {
  /** The error class, e.g. `ServerError`. */
  name: string;
  /** Built by the client from the operation id and the service's own error fields: never a secret. */
  message: string;
  status?: number;
}

/** What a call's response becomes in ProductData (one section can need several calls). */
export type CallPurpose =
  | 'weekly'
  | 'cohort'
  | 'churnDays'
  | 'churnSessions'
  | 'churnRuntime'
  | 'usage'
  | 'topEvents'
  | 'versions'
  | 'countries'
  | 'exceptions';

export interface PlannedCall {
  operationId: OperationId;
  productId: string;
  section: DigestSection;
  purpose: CallPurpose;
  request: Record<string, unknown>;
}
/** One report call of the run: the request as sent and the validated response, or the failure. */
export type CallRecord = PlannedCall &
  ({ response: unknown; error?: never } | { error: CallFailure; response?: never });

export interface WeekCounts {
  /** Monday of the week. */
  weekStart: IsoDate;
  new: number;
  active: number;
  lost: number;
}

/** A histogram bin in the service's ascending order. */
export interface Bin {
  label: string;
  count: number;
}

/** Members of the install cohort n weeks after their install (churnAndEngagement, all segments together). */
export interface CohortPoint {
  period: number;
  engaged: number;
  lost: number;
}

/** Active clients of one segment (a version, a country) in one week. */
export interface SegmentCount {
  label: string;
  active: number;
}

export interface SegmentWeeks {
  week: SegmentCount[];
  previousWeek: SegmentCount[];
}

export interface EventUse {
  category: string | null;
  name: string;
  count: number;
  users: number | null;
}

export interface ExceptionGroup {
  type: string;
  /** The message with digit runs replaced by `N`, so "item 86" and "item 393" fall into one group. */
  message: string;
  count: number;
}

export interface ExceptionWeeks {
  /** Every group of the week, most frequent first. */
  week: ExceptionGroup[];
  /** Null when the latest lines do not reach back to the start of the previous week. */
  previousWeek: ExceptionGroup[] | null;
  /** False when the latest lines start after the week's Monday: the week's list is then partial. */
  coversWeek: boolean;
  /** Date of the oldest line fetched (null: no lines at all). */
  oldestLine: IsoDate | null;
}

export interface ProductData {
  productId: string;
  /** The digest week and the 8 weeks before it, oldest first (activity section). */
  weekly?: WeekCounts[];
  /** Install cohort of the last 12 weeks, weeks since install ascending (churn section). */
  cohort?: CohortPoint[];
  /** Clients lost in the week, binned by lifetime active days, sessions and runtime (churn section). */
  churnHistograms?: { days?: Bin[]; sessions?: Bin[]; runtime?: Bin[] };
  /** Clients active in the week by active days, sessions and runtime in the week (engagement section). */
  usage?: { activeDays: Bin[]; sessions: Bin[]; runtime: Bin[] };
  topEvents?: EventUse[];
  versions?: SegmentWeeks;
  countries?: SegmentWeeks;
  exceptions?: ExceptionWeeks;
}

export interface DigestData {
  week: IsoWeek;
  sections: DigestSection[];
  products: ProductData[];
  calls: CallRecord[];
}
