/**
 * Fetches everything one digest needs: all report calls of the run over the caller's session (call this inside
 * `client.withSession`), concurrently up to a cap. A failed call is recorded, never thrown, so the run still has
 * every other response for the archive and the guard can name what failed.
 */
import { mapWithConcurrency, type ReportingClient, ReportingServiceError } from '../client/index.ts';
import { DIGEST_SECTIONS, type DigestSection } from '../config/schema.ts';
import type { IsoWeek } from '../core/calendar.ts';
import { assembleProducts } from './assemble.ts';
import type { CallFailure, CallRecord, DigestData } from './data.ts';
import { planDigestCalls } from './plan.ts';

export interface CollectOptions {
  daysUntilDeclaredLost: number;
  /** Report calls in flight at once (config `service.concurrency`). */
  concurrency: number;
  sections: readonly DigestSection[];
  signal?: AbortSignal;
}

/** The one client method a run uses: calls by operation id keep the plan plain data and the archive verbatim. */
export type DigestClient = Pick<ReportingClient, 'call'>;

export async function collectDigestData(
  client: DigestClient,
  productIds: readonly string[],
  week: IsoWeek,
  opts: CollectOptions,
): Promise<DigestData> {
  const planned = planDigestCalls(productIds, week, opts);
  const calls = await mapWithConcurrency(planned, opts.concurrency, async (call): Promise<CallRecord> => {
    try {
      const args = { productId: call.productId, body: call.request, ...(opts.signal ? { signal: opts.signal } : {}) };
      return { ...call, response: await client.call(call.operationId, args) };
    } catch (e) {
      return { ...call, error: failureOf(e) };
    }
  });
  return {
    week,
    sections: DIGEST_SECTIONS.filter((s) => opts.sections.includes(s)),
    products: assembleProducts(productIds, week, calls),
    calls,
  };
}

function failureOf(e: unknown): CallFailure {
  if (e instanceof ReportingServiceError)
    return { name: e.name, message: e.message, ...(e.status === undefined ? {} : { status: e.status }) };
  if (e instanceof Error) return { name: e.name, message: e.message };
  return { name: 'Error', message: String(e) };
}
