/**
 * `lifetimeHistogram` and `churnLifetimeHistogram` (docs/interface.md "Event tracking reports"): per selector, how many
 * units used it and how their lifetime counts spread over the bins of four metrics. The two differ only in their
 * population.
 */
import type { Day } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';
import type { Handler } from '../../http/handler.ts';
import { dateRange } from '../../http/validate.ts';
import { parseSelectors, type ResolvedSelector } from '../../query/event-selectors.ts';
import { parseGlobalFilters } from '../../query/filters.ts';
import { parseGroupBy } from '../../query/group-by.ts';
import { type BinSets, binIndex, HISTOGRAM_METRICS, type HistogramMetric, parseBinSets } from './bins.ts';
import { COUNTS, DAYS, lifetimePass, MONTHS, WEEKS } from './lifetime-pass.ts';
import { activePopulation, lostPopulation, parseLossRules } from './population.ts';
import { clientUnits, groupUnits, type Units } from './units.ts';

const eventValue = (sel: ResolvedSelector, value: number) => ({ ...sel.key, value });

function histogram(pd: ProductData, sets: BinSets, selectors: ResolvedSelector[], units: Units, end: Day) {
  const K = selectors.length;
  const used = new Float64Array(K);
  const never = new Float64Array(K);
  // Per metric: bins × selectors counts.
  const hist = HISTOGRAM_METRICS.map((m) => new Float64Array(sets[m].uppers.length * K));
  const offsets = [DAYS, WEEKS, MONTHS];
  const series = selectors.map((s) => s.events);

  lifetimePass(pd, units, { end, series, periods: true }, (_seg, data, off) => {
    for (let k = 0; k < K; k++) {
      const count = data[off + COUNTS + k]!;
      if (count < 1) {
        never[k]!++;
        continue;
      }
      used[k]!++;
      const first = binIndex(sets.eventCount, count);
      if (first >= 0) hist[0]![first * K + k]!++;
      // A unit with occurrences has at least one active day, week and month, so the divisors are never 0.
      for (let m = 1; m < 4; m++) {
        const b = binIndex(sets[HISTOGRAM_METRICS[m]!], count / data[off + offsets[m - 1]!]!);
        if (b >= 0) hist[m]![b * K + k]!++;
      }
    }
  });

  const result = {} as Record<HistogramMetric, { bin: string; values: unknown[] }[]>;
  HISTOGRAM_METRICS.forEach((metric, m) => {
    result[metric] = sets[metric].labels.map((bin, b) => ({
      bin,
      values: selectors.map((sel, k) => eventValue(sel, hist[m]![b * K + k]!)),
    }));
  });
  return {
    summary: {
      usedAtLeastOnce: selectors.map((sel, k) => eventValue(sel, used[k]!)),
      neverUsed: selectors.map((sel, k) => eventValue(sel, never[k]!)),
    },
    result,
  };
}

export const lifetimeHistogram: Handler = ({ pd, body }) => {
  const { startDay, stopDay } = dateRange(body);
  const match = parseGlobalFilters(pd, body);
  const groupBy = parseGroupBy(pd, body);
  const selectors = parseSelectors(pd, body, 'events');
  const sets = parseBinSets(body);
  const population = activePopulation(pd, match, startDay, stopDay);
  return histogram(pd, sets, selectors, groupUnits(pd, groupBy, population, match), stopDay);
};

export const churnLifetimeHistogram: Handler = ({ pd, body, today }) => {
  const { startDay, stopDay } = dateRange(body);
  const rules = parseLossRules(body);
  const match = parseGlobalFilters(pd, body);
  const selectors = parseSelectors(pd, body, 'events');
  const sets = parseBinSets(body);
  const population = lostPopulation(pd, match, rules, startDay, stopDay, today);
  // A lost client's lifetime runs from install to last seen, which lies before `today`.
  return histogram(pd, sets, selectors, clientUnits(population), today);
};
