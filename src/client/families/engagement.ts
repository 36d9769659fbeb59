/** User engagement histogram (docs/interface.md "Usage distribution"): `usageDistribution`. */
import * as z from 'zod';
import type { Caller, CallOptions, SchemaMap } from './caller.ts';
import { BinCounts, Count } from './common.ts';
import type { UsageDistributionRequest } from './request-bodies.ts';

export type { UsageDistributionRequest };

/** Bins keyed by label (docs/interface.md "Bins"): read them with `binEntries`, never by hard-coded labels. */
const IntBins = z.record(z.string(), Count);

export const UsageDistributionResponse = z.looseObject({
  result: z.looseObject({
    /** Documented (v2): clients per number of active days, each split by sessions and runtime. */
    activeDays: z.record(z.string(), z.looseObject({ users: Count, sessions: IntBins, runtime: IntBins })),
    // The inner shapes of the sessions and runtime blocks are guesses (docs/interface.md "Usage distribution"):
    // members optional.
    sessions: z.record(
      z.string(),
      z.looseObject({ users: z.number().optional(), activeDays: BinCounts.optional(), runtime: BinCounts.optional() }),
    ),
    runtime: z.record(
      z.string(),
      z.looseObject({ users: z.number().optional(), activeDays: BinCounts.optional(), sessions: BinCounts.optional() }),
    ),
  }),
});
export type UsageDistributionResponse = z.output<typeof UsageDistributionResponse>;

export const engagementSchemas = { usageDistribution: UsageDistributionResponse } satisfies SchemaMap;

export interface EngagementMethods {
  /** Cross-tabs of active days, sessions and runtime of the clients active in the range. */
  usageDistribution(
    productId: string,
    body: UsageDistributionRequest,
    opts?: CallOptions,
  ): Promise<UsageDistributionResponse>;
}

export const engagementMethods = (call: Caller): EngagementMethods => ({
  usageDistribution: (productId, body, opts) => call.json('usageDistribution', productId, body, opts),
});
