/**
 * Generic reports (docs/interface.md "Generic reports"): `dateRangeReport` and `currentReport`. Both count
 * new / active / lost units with one counting pass (query/counting.ts) over a tree of segment nodes, then shape the
 * counts into the result.
 */
import { formatDay, periodsOf } from '../data/dates.ts';
import type { Handler, HandlerContext } from '../http/handler.ts';
import { orderedJson } from '../query/bins.ts';
import { ACTIVE, type Counts, countUnits, STATUSES, type Status } from '../query/counting.ts';
import { parseReportRequest, type ReportRequest } from './generic-reports/request.ts';
import { buildTree, type Tree } from './generic-reports/tree.ts';

type Row = Map<string, unknown>;

interface Report {
  req: ReportRequest;
  tree: Tree;
  counts: Counts;
  /** Periods as `{ start, from, to }`; one period covering the range when there is no date split. */
  periods: { start: number; from: number; to: number }[];
  /** Requested counts of a node in one period, shaped for the result mode. */
  values(node: number, period: number): Row;
}

function runReport(ctx: HandlerContext, op: 'dateRange' | 'current'): Report {
  const req = parseReportRequest(ctx, op);
  const { startDay: from, stopDay: to } = req;
  const periods = req.dateSplit ? periodsOf(from, to, req.dateSplit) : [{ start: from, from, to }];
  const tree = buildTree(
    req.levels.map((l) => l.seg),
    periods.length,
  );
  // Also count what sorting or percentages need, even when the request does not return it.
  const need = (s: Status) =>
    req.statuses.includes(s) || req.levels.some((l) => l.sort === s) || (s === 'active' && req.percentOfActive);
  const counts = countUnits(ctx.pd, {
    from,
    to,
    periods,
    want: [need('new'), need('active'), need('lost')],
    lost: req.lost,
    today: ctx.today,
    filter: req.filter,
    groupBy: req.groupBy,
    nodes: tree.nodes,
    nodesOf: tree.nodesOf,
  });
  const P = periods.length;
  const at = (node: number, status: number, period: number) => counts.counts[(node * 3 + status) * P + period]!;
  const values = (node: number, period: number): Row => {
    const row: Row = new Map();
    const denominator = at(0, ACTIVE, period);
    for (const s of req.statuses) {
      const c = at(node, STATUSES.indexOf(s), period);
      row.set(s, req.percentOfActive ? percent(c, denominator) : c);
    }
    return row;
  };
  return { req, tree, counts, periods, values };
}

/** Percent rounded to 1 decimal; division by zero gives 0 (docs/interface.md "Numbers and identifiers"). */
function percent(count: number, of: number): number {
  return of === 0 ? 0 : Math.round((count * 1000) / of) / 10;
}

/** Segment ids of a level under a parent, in the requested order; split segments only where units were counted. */
function orderedIds(r: Report, depth: number, parent: number): number[] {
  const level = r.req.levels[depth]!;
  const P = r.periods.length;
  const node = (id: number) => r.tree.index(depth, parent, id);
  const present = (id: number) => r.counts.present[node(id)] === 1;
  if (level.sort === undefined) return level.seg.order(undefined, undefined, present);
  if (level.sort === 'alpha') return level.seg.order(undefined, level.sortDirection ?? 'asc', present);
  const status = STATUSES.indexOf(level.sort);
  const metric = (id: number) => {
    let sum = 0;
    for (let p = 0; p < P; p++) sum += r.counts.counts[(node(id) * 3 + status) * P + p]!;
    return sum;
  };
  return level.seg.order(metric, level.sortDirection ?? 'desc', present);
}

/** `{ "<label>": { totals, level<d+2>? } }` for one level under one parent (no date split: one period). */
function levelTree(r: Report, depth: number, parent: number): Row {
  const out: Row = new Map();
  const { seg } = r.req.levels[depth]!;
  for (const id of orderedIds(r, depth, parent)) {
    const node: Row = new Map([['totals', r.values(r.tree.index(depth, parent, id), 0)]]);
    if (depth + 1 < r.req.levels.length)
      node.set(`level${depth + 2}`, levelTree(r, depth + 1, r.tree.child(depth, parent, id)));
    out.set(seg.labels[id]!, node);
  }
  return out;
}

const dateRangeReport: Handler = (ctx) => {
  const r = runReport(ctx, 'dateRange');
  if (!r.req.dateSplit) {
    const result: Row = new Map([['totals', r.values(0, 0)]]);
    if (r.req.levels.length > 0) result.set('level1', levelTree(r, 0, 0));
    return orderedJson({ result });
  }
  const result: Row = new Map();
  const level = r.req.levels[0];
  const ids = level ? orderedIds(r, 0, 0) : [];
  r.periods.forEach((p, k) => {
    const row = level
      ? new Map(ids.map((id) => [level.seg.labels[id]!, r.values(r.tree.index(0, 0, id), k)]))
      : r.values(0, k);
    result.set(formatDay(p.start), row);
  });
  return orderedJson({ result });
};

const currentReport: Handler = (ctx) => {
  const r = runReport(ctx, 'current');
  const result: Row =
    r.req.levels.length > 0 ? new Map([['level1', levelTree(r, 0, 0)]]) : new Map([['totals', r.values(0, 0)]]);
  return orderedJson({ result });
};

export const genericReportHandlers: Record<string, Handler> = { dateRangeReport, currentReport };
