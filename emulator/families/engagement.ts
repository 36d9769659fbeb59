/** User engagement histogram family: `usageDistribution` (docs/interface.md "Usage distribution"). */
import { forEachActiveDay, runtimeOn, sessionsOn } from '../data/activity.ts';
import type { Day } from '../data/dates.ts';
import type { Handler } from '../http/handler.ts';
import { dateRange } from '../http/validate.ts';
import {
  activeDayBins,
  binCounts,
  orderedJson,
  USAGE_RUNTIME_BINS as R,
  USAGE_SESSION_BINS as S,
} from '../query/bins.ts';
import { parseGlobalFilters } from '../query/filters.ts';

/**
 * Population: clients active in the range that match the filters. Every block of the answer is a marginal, a row
 * or a column of three pairwise cross-tabs (days × sessions, days × runtime, sessions × runtime), so one pass over
 * the clients fills everything and each nested histogram adds up to its outer `users` by construction.
 */
const usageDistribution: Handler = ({ pd, body }) => {
  const { startDay, stopDay } = dateRange(body);
  const matches = parseGlobalFilters(pd, body);
  const D = activeDayBins(stopDay - startDay + 1);
  const nD = D.labels.length;
  const nS = S.labels.length;
  const nR = R.labels.length;
  const dayUsers = new Int32Array(nD);
  const sessionUsers = new Int32Array(nS);
  const runtimeUsers = new Int32Array(nR);
  const dayBySessions = new Int32Array(nD * nS);
  const dayByRuntime = new Int32Array(nD * nR);
  const sessionsByRuntime = new Int32Array(nS * nR);

  // One callback per request (not per client) sums the current client's usage in the range.
  let client = 0;
  let days = 0;
  let sessions = 0;
  let runtime = 0;
  const addDay = (day: Day): void => {
    const s = sessionsOn(pd, client, day);
    days++;
    sessions += s;
    runtime += runtimeOn(pd, client, day, s);
  };
  const { installDay, lastSeenDay } = pd;
  for (let i = 0; i < pd.n; i++) {
    if (lastSeenDay[i]! < startDay || installDay[i]! > stopDay || !matches(i)) continue;
    client = i;
    days = 0;
    sessions = 0;
    runtime = 0;
    forEachActiveDay(pd, i, startDay, stopDay, addDay);
    if (days === 0) continue;
    const d = D.indexOf(days);
    const s = S.indexOf(sessions);
    const r = R.indexOf(runtime);
    dayUsers[d]!++;
    sessionUsers[s]!++;
    runtimeUsers[r]!++;
    dayBySessions[d * nS + s]!++;
    dayByRuntime[d * nR + r]!++;
    sessionsByRuntime[s * nR + r]!++;
  }

  const activeDays = new Map(
    D.labels.map((label, d) => [
      label,
      {
        users: dayUsers[d],
        sessions: binCounts(S, dayBySessions, d * nS),
        runtime: binCounts(R, dayByRuntime, d * nR),
      },
    ]),
  );
  const sessionsBlock = new Map(
    S.labels.map((label, s) => [
      label,
      {
        users: sessionUsers[s],
        activeDays: binCounts(D, dayBySessions, s, nS),
        runtime: binCounts(R, sessionsByRuntime, s * nR),
      },
    ]),
  );
  const runtimeBlock = new Map(
    R.labels.map((label, r) => [
      label,
      {
        users: runtimeUsers[r],
        activeDays: binCounts(D, dayByRuntime, r, nR),
        sessions: binCounts(S, sessionsByRuntime, r, nR),
      },
    ]),
  );
  return orderedJson({ result: { activeDays, sessions: sessionsBlock, runtime: runtimeBlock } });
};

export const engagementHandlers: Record<string, Handler> = { usageDistribution };
