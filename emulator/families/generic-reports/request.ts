/**
 * Request bodies of the generic reports `dateRangeReport` and `currentReport` (docs/interface.md "Generic reports"),
 * validated.
 */
import type { DateSplit, Day } from '../../data/dates.ts';
import type { ProductData, StringColumn } from '../../data/model.ts';
import type { HandlerContext } from '../../http/handler.ts';
import {
  asObject,
  at,
  dateRange,
  fail,
  type Json,
  optEnum,
  optInt,
  reqArray,
  reqDate,
  reqEnum,
  reqInt,
} from '../../http/validate.ts';
import { type LostRule, STATUSES, type Status } from '../../query/counting.ts';
import { type ClientPredicate, parseGlobalFilters } from '../../query/filters.ts';
import { parseGroupBy } from '../../query/group-by.ts';
import { assertSegmentableProperty, parseSegmentation, type Segmentation } from '../../query/segments.ts';

export interface Level {
  seg: Segmentation;
  sort: 'alpha' | Status | undefined;
  sortDirection: 'asc' | 'desc' | undefined;
}

export interface ReportRequest {
  startDay: Day;
  stopDay: Day;
  /** Requested statuses, in the canonical order new, active, lost. */
  statuses: Status[];
  dateSplit: DateSplit | undefined;
  /** The groupBy column, undefined for clientId. */
  groupBy: StringColumn | undefined;
  lost: LostRule | undefined;
  filter: ClientPredicate;
  levels: Level[];
  percentOfActive: boolean;
}

const MAX_LEVELS = 3;

export function parseReportRequest(ctx: HandlerContext, op: 'dateRange' | 'current'): ReportRequest {
  const { body, pd } = ctx;
  let startDay: Day;
  let stopDay: Day;
  let dateSplit: DateSplit | undefined;
  if (op === 'dateRange') {
    ({ startDay, stopDay } = dateRange(body));
    dateSplit = optEnum(body, 'dateSplit', ['day', 'week', 'month'] as const);
  } else {
    startDay = reqDate(body, 'startDate');
    stopDay = ctx.today;
    if (startDay > stopDay) fail('startDate', 'must not be after today');
  }
  const statuses = parseStatuses(body);
  const groupBy = parseGroupBy(pd, body);
  const levels = parseLevels(pd, body, dateSplit !== undefined);
  const sorted = levels.some((l) => l.sort === 'lost');
  const lost = statuses.includes('lost') || sorted ? parseLostRule(body) : checkUnusedLostRule(body);
  const filter = parseGlobalFilters(pd, body);
  const percentOfActive = optEnum(body, 'resultMode', ['absolute', 'percentOfActive'] as const) === 'percentOfActive';
  return { startDay, stopDay, statuses, dateSplit, groupBy, lost, filter, levels, percentOfActive };
}

function parseStatuses(body: Json): Status[] {
  const list = reqArray(body, 'clientStatus', '', { min: 1, max: 3 });
  const seen = new Set<Status>();
  list.forEach((v, k) => {
    const path = at('clientStatus', k);
    if (typeof v !== 'string' || !STATUSES.includes(v as Status)) fail(path, `must be one of ${STATUSES.join(', ')}`);
    if (seen.has(v as Status)) fail(path, `duplicate value ${v}`);
    seen.add(v as Status);
  });
  return STATUSES.filter((s) => seen.has(s));
}

const LOSS_DATES = ['dateLastSeen', 'dateDeclaredLost'] as const;

function parseLostRule(body: Json): LostRule {
  if (body.daysUntilDeclaredLost === undefined || body.daysUntilDeclaredLost === null)
    fail('daysUntilDeclaredLost', 'required for lost counts (clientStatus or sort)');
  if (body.dateReportedLost === undefined || body.dateReportedLost === null)
    fail('dateReportedLost', 'required for lost counts (clientStatus or sort)');
  return {
    daysUntilDeclaredLost: reqInt(body, 'daysUntilDeclaredLost', '', { min: 1 }),
    dateReportedLost: reqEnum(body, 'dateReportedLost', LOSS_DATES),
  };
}

/**
 * Without lost counts the rule is not needed, but what is sent of it is still checked: a bad value is a 400 either
 * way, and the members count as read (not reported as ignored fields, http/ignored-fields.ts).
 */
function checkUnusedLostRule(body: Json): undefined {
  optInt(body, 'daysUntilDeclaredLost', '', { min: 1 });
  optEnum(body, 'dateReportedLost', LOSS_DATES);
  return undefined;
}

function parseLevels(pd: ProductData, body: Json, split: boolean): Level[] {
  if (body.levels === undefined || body.levels === null) return [];
  const levels = asObject(body.levels, 'levels');
  for (const key of Object.keys(levels))
    if (!/^level[1-9]$/.test(key) || Number(key.slice(5)) > MAX_LEVELS)
      fail(at('levels', key), `unknown level (level1 to level${MAX_LEVELS})`);
  const out: Level[] = [];
  for (let d = 1; d <= MAX_LEVELS; d++) {
    const key = `level${d}`;
    const path = at('levels', key);
    if (levels[key] === undefined || levels[key] === null) continue;
    if (out.length !== d - 1) fail(path, `needs level${d - 1}`);
    if (split && d > 1) fail(path, 'only level1 is allowed with dateSplit');
    const o = asObject(levels[key], path);
    assertSegmentableProperty(pd, o.property, at(path, 'property'));
    out.push({
      seg: parseSegmentation(pd, o.property as string, o.segments, at(path, 'segments')),
      sort: optEnum(o, 'sort', ['alpha', ...STATUSES] as const, path),
      sortDirection: optEnum(o, 'sortDirection', ['asc', 'desc'] as const, path),
    });
  }
  return out;
}
