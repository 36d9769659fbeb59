/**
 * Row order, paging and layout of the lifetime data tables `lifetimeDataTable`/`churnLifetimeDataTable`
 * (docs/interface.md "Paging"): sort the flat rows, take the page, then attach each row's segments (sorted per row)
 * and, with categorizeEvents, group the page by category.
 */
import type { ProductData } from '../../data/model.ts';
import { eventDisplayOrder } from '../event-management.ts';
import { percent, ratio } from './numbers.ts';
import type { TableRequest } from './table-request.ts';

/** Sums per slot (0 = all units, s + 1 = segment s) and row. */
export interface TableTotals {
  rowCount: number;
  /** Population units per slot. */
  active: Float64Array;
  count: Float64Array;
  users: Float64Array;
  /** Lifetime active days of the units that used the row's event. */
  usedDays: Float64Array;
}

/** The metrics of row r in a slot (docs/interface.md "Event tracking reports"). */
export function rowMetrics(t: TableTotals, slot: number, r: number) {
  const x = slot * t.rowCount + r;
  const count = t.count[x]!;
  const users = t.users[x]!;
  return {
    eventCount: count,
    uniqueUsersUsedAtLeastOnce: users,
    percentUsedAtLeastOnce: percent(users, t.active[slot]!),
    eventCountPerUserUsedAtLeastOnce: ratio(count, users),
    eventCountPerUserUsedAtLeastOnceActiveDay: ratio(count, t.usedDays[x]!),
  };
}

/** Row numbers (indexes into req.rows) of the requested page, in sort order; ties by category, then name. */
export function pageRows(pd: ProductData, req: TableRequest, t: TableTotals): number[] {
  const sign = req.eventsDirection === 'asc' ? 1 : -1;
  const rank = new Int32Array(pd.events.length);
  eventDisplayOrder(pd).forEach((e, r) => {
    rank[e] = r;
  });
  const alpha = (a: number, b: number) => rank[req.rows[a]!]! - rank[req.rows[b]!]!;
  const metric = req.eventSort === 'eventCounts' ? t.count : req.eventSort === 'alpha' ? undefined : t.users;
  const order = req.rows.map((_e, r) => r);
  order.sort(metric ? (a, b) => sign * (metric[a]! - metric[b]!) || alpha(a, b) : (a, b) => sign * alpha(a, b));
  const end = req.limit === undefined ? order.length : req.startAt + req.limit;
  return order.slice(req.startAt, end);
}

function segmentsOf(req: TableRequest, t: TableTotals, r: number) {
  const seg = req.segmentation!;
  const R = t.rowCount;
  const share = (id: number) => (t.active[id + 1]! === 0 ? 0 : t.users[(id + 1) * R + r]! / t.active[id + 1]!);
  const metrics: Record<string, ((id: number) => number) | undefined> = {
    active: (id) => t.active[id + 1]!,
    eventCounts: (id) => t.count[(id + 1) * R + r]!,
    uniqueUsersUsedAtLeastOnce: (id) => t.users[(id + 1) * R + r]!,
    percentUsedAtLeastOnce: share,
  };
  let ids: number[];
  if (req.segmentSort === undefined) ids = seg.order();
  else if (req.segmentSort === 'alpha') ids = seg.order(undefined, req.segmentsDirection ?? 'asc');
  else ids = seg.order(metrics[req.segmentSort], req.segmentsDirection ?? 'desc');
  return ids.map((id) => ({ segmentLabel: seg.labels[id]!, active: t.active[id + 1]!, ...rowMetrics(t, id + 1, r) }));
}

/** The response rows of a page: flat, or grouped by category in order of first appearance on the page. */
export function shapeRows(pd: ProductData, req: TableRequest, t: TableTotals, page: number[]): unknown[] {
  const rows = page.map((r) => {
    const e = pd.events[req.rows[r]!]!;
    const row: Record<string, unknown> = { eventCategory: e.category, eventName: e.name, ...rowMetrics(t, 0, r) };
    if (req.segmentation) row.segments = segmentsOf(req, t, r);
    return row;
  });
  if (!req.categorize) return rows;
  const groups = new Map<string | null, Record<string, unknown>[]>();
  for (const { eventCategory, ...rest } of rows) {
    const key = eventCategory as string | null;
    const group = groups.get(key);
    if (group) group.push(rest);
    else groups.set(key, [rest]);
  }
  return [...groups].map(([eventCategory, categoryData]) => ({ eventCategory, categoryData }));
}
