/**
 * `lifetimeDataTable` and `churnLifetimeDataTable` (docs/interface.md "Event tracking reports"): one row per matched
 * event with its lifetime metrics over the population, optionally per segment; sorted, then paged, then optionally
 * grouped by category. The two differ only in their population (and `churnLifetimeDataTable` has no groupBy).
 */
import type { Day } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';
import type { Handler } from '../../http/handler.ts';
import { dateRange } from '../../http/validate.ts';
import { parseGlobalFilters } from '../../query/filters.ts';
import { parseGroupBy } from '../../query/group-by.ts';
import { COUNTS, DAYS, lifetimePass } from './lifetime-pass.ts';
import { activePopulation, lostPopulation, parseLossRules } from './population.ts';
import { parseTableRequest, type TableRequest } from './table-request.ts';
import { pageRows, shapeRows, type TableTotals } from './table-rows.ts';
import { clientUnits, groupUnits, type Units } from './units.ts';

function tally(pd: ProductData, units: Units, end: Day, req: TableRequest): TableTotals {
  const R = req.rows.length;
  const slots = 1 + (req.segmentation?.labels.length ?? 0);
  const t: TableTotals = {
    rowCount: R,
    active: new Float64Array(slots),
    count: new Float64Array(slots * R),
    users: new Float64Array(slots * R),
    usedDays: new Float64Array(slots * R),
  };
  const series = req.rows.map((e) => [e]);
  lifetimePass(pd, units, { end, series, periods: false, segmentation: req.segmentation }, (seg, data, off) => {
    const slot = seg + 1;
    t.active[slot]!++;
    const days = data[off + DAYS]!;
    for (let r = 0; r < R; r++) {
      const c = data[off + COUNTS + r]!;
      if (c === 0) continue;
      const x = slot * R + r;
      t.count[x]! += c;
      t.users[x]!++;
      t.usedDays[x]! += days;
    }
  });
  return t;
}

function table(pd: ProductData, req: TableRequest, units: Units, end: Day) {
  const totals = tally(pd, units, end, req);
  const page = pageRows(pd, req, totals);
  return {
    returnedEventsCount: page.length,
    matchingEventsCount: req.rows.length,
    result: shapeRows(pd, req, totals, page),
  };
}

export const lifetimeDataTable: Handler = ({ pd, body }) => {
  const { startDay, stopDay } = dateRange(body);
  const match = parseGlobalFilters(pd, body);
  const groupBy = parseGroupBy(pd, body);
  const req = parseTableRequest(pd, body);
  const population = activePopulation(pd, match, startDay, stopDay);
  return table(pd, req, groupUnits(pd, groupBy, population, match), stopDay);
};

export const churnLifetimeDataTable: Handler = ({ pd, body, today }) => {
  const { startDay, stopDay } = dateRange(body);
  const rules = parseLossRules(body);
  const match = parseGlobalFilters(pd, body);
  const req = parseTableRequest(pd, body);
  const population = lostPopulation(pd, match, rules, startDay, stopDay, today);
  // A lost client's lifetime runs from install to last seen, which lies before `today`.
  return table(pd, req, clientUnits(population), today);
};
