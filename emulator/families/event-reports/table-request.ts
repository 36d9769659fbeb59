/**
 * Request members of the lifetime data tables `lifetimeDataTable`/`churnLifetimeDataTable` besides dates, filters and
 * groupBy (docs/interface.md "Event tracking reports"): which events get rows, sorting, paging, categorizeEvents,
 * segmentBy/segments.
 */
import type { ProductData } from '../../data/model.ts';
import { asObject, fail, type Json, optBool, optEnum, optInt } from '../../http/validate.ts';
import { parseSelectors } from '../../query/event-selectors.ts';
import { assertSegmentableProperty, parseSegmentation, type Segmentation } from '../../query/segments.ts';

export type Direction = 'asc' | 'desc';
export type EventSort = 'alpha' | 'eventCounts' | 'uniqueUsersUsedAtLeastOnce';
export type SegmentSort = 'alpha' | 'active' | 'eventCounts' | 'uniqueUsersUsedAtLeastOnce' | 'percentUsedAtLeastOnce';

export interface TableRequest {
  /** Event indexes that get a row, ascending. */
  rows: number[];
  eventSort: EventSort;
  eventsDirection: Direction;
  segmentSort: SegmentSort | undefined;
  segmentsDirection: Direction | undefined;
  startAt: number;
  limit: number | undefined;
  categorize: boolean;
  segmentation: Segmentation | undefined;
}

const DIRECTIONS = ['asc', 'desc'] as const;

export function parseTableRequest(pd: ProductData, body: Json): TableRequest {
  let rows: number[];
  if (body.events === undefined || body.events === null) rows = pd.events.map((_e, k) => k);
  else rows = [...new Set(parseSelectors(pd, body, 'events').flatMap((s) => s.events))].sort((a, b) => a - b);

  const sorting = body.sorting == null ? {} : asObject(body.sorting, 'sorting');
  const eventSort =
    optEnum(sorting, 'events', ['alpha', 'eventCounts', 'uniqueUsersUsedAtLeastOnce'] as const, 'sorting') ?? 'alpha';
  const eventsDirection =
    optEnum(sorting, 'eventsDirection', DIRECTIONS, 'sorting') ?? (eventSort === 'alpha' ? 'asc' : 'desc');
  const segmentSort = optEnum(
    sorting,
    'segments',
    ['alpha', 'active', 'eventCounts', 'uniqueUsersUsedAtLeastOnce', 'percentUsedAtLeastOnce'] as const,
    'sorting',
  );
  const segmentsDirection = optEnum(sorting, 'segmentsDirection', DIRECTIONS, 'sorting');

  const paging = body.paging == null ? undefined : asObject(body.paging, 'paging');
  const startAt = paging ? (optInt(paging, 'startAt', 'paging', { min: 0 }) ?? 0) : 0;
  // With paging, a page never exceeds the maximum of 1000 rows; without it, every row comes back.
  const limit = paging ? (optInt(paging, 'limit', 'paging', { min: 1, max: 1000 }) ?? 1000) : undefined;

  const categorize = optBool(body, 'categorizeEvents') ?? false;

  return {
    rows,
    eventSort,
    eventsDirection,
    segmentSort,
    segmentsDirection,
    startAt,
    limit,
    categorize,
    segmentation: parseSegmentBy(pd, body),
  };
}

/**
 * `segmentBy` plus optional `segments` (docs/interface.md "Segments and levels"), as the event and churn reports take
 * them.
 */
export function parseSegmentBy(pd: ProductData, body: Json): Segmentation | undefined {
  const property = body.segmentBy;
  if (property === undefined || property === null) {
    if (body.segments !== undefined && body.segments !== null) fail('segments', 'requires segmentBy');
    return undefined;
  }
  assertSegmentableProperty(pd, property, 'segmentBy');
  return parseSegmentation(pd, property as string, body.segments, 'segments');
}
