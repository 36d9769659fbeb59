/**
 * Clients seen with each alerted key in the last usage window and the one before (the trend), from the generic
 * date-range report dateRangeReport: `clientStatus: ['active']` (a client with a session in the range), filtered to the
 * batch's keys (`globalFilters.licenseKey`, stringArray) and split by key (`levels.level1` on `licenseKey`, a split
 * stringArray segment of the same keys). So one call per window answers for up to USAGE_BATCH keys; a key the answer
 * leaves out had no active client. `clientCount` and `lastSeenDate` come from the registry record itself.
 */
import type { ReportingClient } from '../../client/index.ts';
import { addDays, type IsoDate } from '../../core/calendar.ts';

export const USAGE_BATCH = 500;

export interface KeyUsage {
  /** Clients seen with the key in the last `windowDays` days (up to the service's today). */
  lastWindow: number;
  /** Clients seen with it in the `windowDays` days before that. */
  previousWindow: number;
}

export interface UsageWindows {
  last: { startDate: IsoDate; stopDate: IsoDate };
  previous: { startDate: IsoDate; stopDate: IsoDate };
}

/** The two windows ending on the service's day `today` (UTC). */
export function usageWindows(today: IsoDate, windowDays: number): UsageWindows {
  return {
    last: { startDate: addDays(today, 1 - windowDays), stopDate: today },
    previous: { startDate: addDays(today, 1 - 2 * windowDays), stopDate: addDays(today, -windowDays) },
  };
}

type UsageClient = Pick<ReportingClient, 'dateRangeReport'>;

/** Usage of `licenseKeys` (one product), two calls per USAGE_BATCH keys. */
export async function fetchUsage(
  client: UsageClient,
  productId: string,
  licenseKeys: string[],
  windows: UsageWindows,
): Promise<Map<string, KeyUsage>> {
  const usage = new Map<string, KeyUsage>();
  for (let i = 0; i < licenseKeys.length; i += USAGE_BATCH) {
    const batch = licenseKeys.slice(i, i + USAGE_BATCH);
    const [last, previous] = await Promise.all([
      activeByKey(client, productId, batch, windows.last),
      activeByKey(client, productId, batch, windows.previous),
    ]);
    for (const key of batch) usage.set(key, { lastWindow: last.get(key) ?? 0, previousWindow: previous.get(key) ?? 0 });
  }
  return usage;
}

async function activeByKey(
  client: UsageClient,
  productId: string,
  keys: string[],
  range: { startDate: IsoDate; stopDate: IsoDate },
): Promise<Map<string, number>> {
  const res = await client.dateRangeReport(productId, {
    ...range,
    clientStatus: ['active'],
    globalFilters: { licenseKey: { type: 'stringArray', value: keys } },
    levels: { level1: { property: 'licenseKey', segments: [{ type: 'stringArray', value: keys, split: true }] } },
  });
  const counts = new Map<string, number>();
  for (const [label, node] of Object.entries(res.result.level1 ?? {})) counts.set(label, node.totals.active ?? 0);
  return counts;
}
