/**
 * Which report calls a usage-alert run makes, as plain data: rules that need the same report share one call. Client
 * counts and shares come from `dateRangeReport` split by the rule's period, one call per (product, period, filters,
 * segment property, lost-days) for all of them; tracked events from `basicTimeline`, one call per (product, period)
 * with every rule's event as one selector. A share needs the unsegmented report (its denominator) and the one split
 * by its property. Each call covers the union of the ranges its rules need.
 *
 * Two families cost more than one call. Exceptions come from the exception files: one planned "call" per product
 * for every exception rule, made as one `exceptionsListFiles` and one download (`exceptionsDownloadUrl` and its GET)
 * per file the days need (exception-counts.ts), counted so. Engagement comes from `usageDistribution`, which has no
 * date split: one call per (product, period, filters), each answering every engagement rule of that period.
 */
import type { UsageAlertRule } from '../config/usage-alerts-schema.ts';
import type { IsoDate } from '../core/calendar.ts';
import { type PeriodUnit, periodStop, periodsBetween, shiftPeriod } from './periods.ts';

export interface PlannedCall {
  /** What identifies the call among the run's: rules find their answers by it. */
  key: string;
  productId: string;
  /**
   * `exceptionsListFiles` stands for the listing and the downloads of the product's exception files
   * (fetch-answers.ts); its request is the days to count, `startDate`…`stopDate`.
   */
  operationId: 'dateRangeReport' | 'basicTimeline' | 'usageDistribution' | 'exceptionsListFiles';
  request: Record<string, unknown>;
}

/** Where one rule's figures for one product come from. */
export interface RuleSource {
  ruleId: string;
  productId: string;
  /** The call with the figure (segmented by the rule's segment or share property, when it has one). */
  call: string;
  /** A share's denominator: the unsegmented report with the same filters. */
  totals?: string;
  /** An event rule's selector index in the timeline's `events`. */
  selector?: number;
  /** An engagement rule's calls, one per period (by its start); `call` is then the first of them. */
  periods?: Record<string, string>;
}

/** Every call a rule's figures come from: if one failed, the rule is not judged. */
export const callsOf = (s: RuleSource): string[] =>
  s.periods ? Object.values(s.periods) : s.totals !== undefined ? [s.call, s.totals] : [s.call];

export interface CallPlan {
  calls: PlannedCall[];
  sources: RuleSource[];
}

/** The periods a rule needs to judge `first`…`last`: its condition's history before `first`. */
export function historyPeriods(rule: UsageAlertRule): number {
  const c = rule.condition;
  return c.kind === 'deviation' ? c.baselinePeriods : c.kind === 'change' ? 1 : 0;
}

/** `windows`: per rule, the first and last period judged (both complete). */
export function planUsageCalls(
  rules: readonly UsageAlertRule[],
  windows: ReadonlyMap<string, { first: IsoDate; last: IsoDate }>,
): CallPlan {
  const calls = new Map<string, PlannedCall & { start: IsoDate; stop: IsoDate; events?: unknown[] }>();
  const sources: RuleSource[] = [];
  const want = (
    key: string,
    productId: string,
    operationId: PlannedCall['operationId'],
    request: Record<string, unknown>,
    range: { start: IsoDate; stop: IsoDate },
  ) => {
    const call = calls.get(key);
    if (!call) calls.set(key, { key, productId, operationId, request, ...range });
    else {
      if (range.start < call.start) call.start = range.start;
      if (range.stop > call.stop) call.stop = range.stop;
    }
    return calls.get(key)!;
  };
  for (const rule of rules) {
    const window = windows.get(rule.id);
    if (!window) continue;
    const unit: PeriodUnit = rule.period.unit;
    const range = {
      start: shiftPeriod(window.first, unit, -historyPeriods(rule)),
      stop: periodStop(window.last, unit),
    };
    for (const productId of rule.productIds) {
      const m = rule.metric;
      if (m.kind === 'eventCount') {
        const call = want(`${productId}|timeline|${unit}`, productId, 'basicTimeline', { dateSplit: unit }, range);
        call.events ??= [];
        const selector = timelineSelector(m.event);
        let index = call.events.findIndex((s) => JSON.stringify(s) === JSON.stringify(selector));
        if (index < 0) index = call.events.push(selector) - 1;
        sources.push({ ruleId: rule.id, productId, call: call.key, selector: index });
        continue;
      }
      if (m.kind === 'exceptionCount') {
        const call = want(`${productId}|exceptions`, productId, 'exceptionsListFiles', {}, range);
        sources.push({ ruleId: rule.id, productId, call: call.key });
        continue;
      }
      if (m.kind === 'engagement') {
        const filters = rule.filters ? { globalFilters: rule.filters } : {};
        const periods: Record<string, string> = {};
        for (const period of periodsBetween(range.start, window.last, unit)) {
          const key = `${productId}|usage|${period}|${unit}|${stableJson(rule.filters ?? {})}`;
          want(key, productId, 'usageDistribution', filters, { start: period, stop: periodStop(period, unit) });
          periods[period] = key;
        }
        sources.push({ ruleId: rule.id, productId, call: Object.values(periods)[0]!, periods });
        continue;
      }
      const base = {
        dateSplit: unit,
        clientStatus: ['new', 'active', 'lost'],
        daysUntilDeclaredLost: rule.daysUntilDeclaredLost,
        dateReportedLost: 'dateDeclaredLost',
        ...(rule.filters ? { globalFilters: rule.filters } : {}),
      };
      const family = `${productId}|dateRange|${unit}|${rule.daysUntilDeclaredLost}|${stableJson(rule.filters ?? {})}`;
      // The unsegmented report: a whole product's figure, or a share's denominator (a segmented count needs none).
      const totals = () => want(`${family}|`, productId, 'dateRangeReport', base, range);
      const property = m.kind === 'segmentShare' ? m.property : rule.segment?.property;
      if (property === undefined) {
        sources.push({ ruleId: rule.id, productId, call: totals().key });
        continue;
      }
      const segmented = want(
        `${family}|${property}`,
        productId,
        'dateRangeReport',
        { ...base, levels: { level1: { property, sort: 'active', sortDirection: 'desc' } } },
        range,
      );
      sources.push({
        ruleId: rule.id,
        productId,
        call: segmented.key,
        ...(m.kind === 'segmentShare' ? { totals: totals().key } : {}),
      });
    }
  }
  return {
    calls: [...calls.values()].map(({ start, stop, events, ...call }) => ({
      ...call,
      request: {
        startDate: start,
        stopDate: stop,
        ...call.request,
        ...(events ? { events, dataView: 'usageCounts' } : {}),
      },
    })),
    sources,
  };
}

/** The interface's selector of a rule's event: exact, or a combination whose entries match by regex. */
function timelineSelector(e: { category: string | null; name: string; match: 'string' | 'regex' }): unknown {
  if (e.match === 'string') return { category: e.category, name: e.name };
  return {
    combiLabel: `${e.category ?? ''}/${e.name}`,
    combiArray: [
      { category: e.category, categoryType: e.category === null ? 'string' : 'regex', name: e.name, nameType: 'regex' },
    ],
  };
}

/** JSON with sorted keys: two rules' equal filters share a call whatever order they were written in. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
