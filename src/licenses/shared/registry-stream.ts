/**
 * The whole license key registry of a product, page by page, as the license jobs read it: searchLicenseKeys at
 * the maximum page size, up to `concurrency` pages in flight, handed on in key order. Memory holds at most
 * `concurrency` pages (1,000 keys each) whatever the registry's size: the consumer's pace pulls the next pages.
 *
 * The first page tells how many keys match; the rest are asked for at their offsets at once (bounded). Keys inserted
 * while the registry is read shift later pages: a key seen twice at a page boundary is handed on once (results are
 * in key order, so anything not after the last key handed on is a repeat). A record the jobs cannot read is reported
 * through `onProblem` and left out; the others go on.
 */
import { compareCodePoints } from '../../api/code-point-order.ts';
import type { LicenseKeySearchRequest, ReportingClient } from '../../client/index.ts';
import { type RegistryKey, toRegistryKey } from './registry-key.ts';

export const MAX_PAGE_SIZE = 1000;

export interface RegistryStreamOptions {
  /** Pages in flight at once (the config's `service.concurrency`). */
  concurrency: number;
  filters?: LicenseKeySearchRequest['filters'];
  /** @default 1000, the most the service allows */
  pageSize?: number;
  /** A record left out, with the reason. */
  onProblem?: (problem: string) => void;
}

type SearchClient = Pick<ReportingClient, 'searchLicenseKeys'>;

/** Pages of the registry in key order; stop early by breaking out of the loop. */
export async function* streamRegistry(
  client: SearchClient,
  productId: string,
  opts: RegistryStreamOptions,
): AsyncGenerator<RegistryKey[], void, undefined> {
  const limit = Math.min(opts.pageSize ?? MAX_PAGE_SIZE, MAX_PAGE_SIZE);
  const page = (startAt: number) =>
    client.searchLicenseKeys(productId, {
      ...(opts.filters ? { filters: opts.filters } : {}),
      paging: { startAt, limit },
    });
  let last: string | undefined;
  const fresh = (records: Awaited<ReturnType<typeof page>>['result']): RegistryKey[] => {
    const keys: RegistryKey[] = [];
    for (const record of records) {
      const key = toRegistryKey(record);
      if ('problem' in key) {
        opts.onProblem?.(`product ${productId}: ${key.problem}`);
        continue;
      }
      if (last !== undefined && compareCodePoints(key.licenseKey, last) <= 0) continue; // a repeat (see the top)
      last = key.licenseKey;
      keys.push(key);
    }
    return keys;
  };

  const first = await page(0);
  yield fresh(first.result);
  const total = first.matchingKeysCount;
  if (total === undefined) {
    // No count to plan with: one page after the other until a short one.
    let startAt = first.result.length;
    for (let res = first; res.result.length === limit; startAt += res.result.length) {
      res = await page(startAt);
      yield fresh(res.result);
    }
    return;
  }
  const inFlight: Promise<Awaited<ReturnType<typeof page>>>[] = [];
  let next = first.result.length;
  const refill = () => {
    while (inFlight.length < Math.max(1, opts.concurrency) && next < total) {
      const request = page(next);
      request.catch(() => undefined); // awaited in order below; a consumer that stops early leaves it unobserved
      inFlight.push(request);
      next += limit;
    }
  };
  refill();
  while (inFlight.length > 0) {
    const res = await inFlight.shift()!;
    refill();
    yield fresh(res.result);
  }
}
