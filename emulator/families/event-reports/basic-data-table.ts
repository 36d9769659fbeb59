/**
 * `basicDataTable` (docs/interface.md "Event tracking reports"): every basic event, grouped by category, with its
 * occurrences in the range and the numeric custom values they carried. No filters: the population is every client
 * active in the range, and the "per" metrics divide by that population's active clients, sessions and runtime hours.
 */
import { surgeExtra, usageBetween } from '../../data/activity.ts';
import type { Handler } from '../../http/handler.ts';
import { dateRange } from '../../http/validate.ts';
import { eventDisplayOrder } from '../event-management.ts';
import { ratio, round2 } from './numbers.ts';

interface Denominators {
  clients: number;
  sessions: number;
  runtimeHours: number;
}

function usageSummary(count: number, users: number, d: Denominators) {
  return {
    cumulativeUsageCount: count,
    uniqueUsers: users,
    usageCountPerUser: ratio(count, d.clients),
    usageCountPerSession: ratio(count, d.sessions),
    usageCountPerRuntimeHour: ratio(count, d.runtimeHours),
  };
}

/** Custom values of occurrences: each occurrence of an event carries the same value (or none). */
function customSummary(parts: { valueCount: number; value: number }[]) {
  const used = parts.filter((p) => p.valueCount > 0);
  const valueCount = used.reduce((a, p) => a + p.valueCount, 0);
  if (valueCount === 0) return { valueCount: 0, sum: 0, average: null, min: null, max: null };
  const sum = used.reduce((a, p) => a + p.valueCount * p.value, 0);
  const values = used.map((p) => p.value);
  return {
    valueCount,
    sum: round2(sum),
    average: round2(sum / valueCount),
    min: Math.min(...values),
    max: Math.max(...values),
  };
}

export const basicDataTable: Handler = ({ pd, body }) => {
  const { startDay, stopDay } = dateRange(body);
  const basic = eventDisplayOrder(pd).filter((k) => pd.events[k]!.basic);
  const categories = [...new Set(basic.map((k) => pd.events[k]!.category))];
  const categoryOf = Int32Array.from(basic, (k) => categories.indexOf(pd.events[k]!.category));

  const B = basic.length;
  const count = new Float64Array(B);
  const users = new Float64Array(B);
  const categoryUsers = new Float64Array(categories.length);
  const lastUser = new Int32Array(categories.length).fill(-1); // last client counted per category
  const d: Denominators = { clients: 0, sessions: 0, runtimeHours: 0 };
  const E = pd.events.length;
  const surging = pd.surge?.event ?? -1;
  let runtimeMinutes = 0;

  for (let i = 0; i < pd.n; i++) {
    const usage = usageBetween(pd, i, startDay, stopDay);
    const days = usage.activeDays;
    if (days === 0) continue;
    d.clients++;
    d.sessions += usage.sessions;
    runtimeMinutes += usage.runtimeMinutes;
    for (let b = 0; b < B; b++) {
      const perDay = pd.eventPerDay[i * E + basic[b]!]!;
      if (perDay === 0) continue;
      count[b]! += perDay * days + (basic[b] === surging ? surgeExtra(pd, i, startDay, stopDay) : 0);
      users[b]!++;
      const c = categoryOf[b]!;
      if (lastUser[c] !== i) {
        lastUser[c] = i;
        categoryUsers[c]!++;
      }
    }
  }
  d.runtimeHours = runtimeMinutes / 60;

  const result = categories.map((category, c) => {
    const members = basic.flatMap((k, b) => (categoryOf[b] === c ? [{ k, b }] : []));
    const custom = (b: number, k: number) => {
      const value = pd.events[k]!.customValue;
      return { valueCount: value === null ? 0 : count[b]!, value: value ?? 0 };
    };
    const total = members.reduce((a, { b }) => a + count[b]!, 0);
    return {
      category,
      categoryUsageSummary: usageSummary(total, categoryUsers[c]!, d),
      categoryCustomValuesSummary: customSummary(members.map(({ k, b }) => custom(b, k))),
      categoryEventsData: Object.fromEntries(
        members.map(({ k, b }) => [
          pd.events[k]!.name,
          { eventUsage: usageSummary(count[b]!, users[b]!, d), eventCustomValues: customSummary([custom(b, k)]) },
        ]),
      ),
    };
  });
  return { result };
};
