/** Event tracking management (docs/interface.md "Event list"): `listEvents`. */
import * as z from 'zod';
import type { Caller, CallOptions, SchemaMap } from './caller.ts';
import { DateString } from './common.ts';

export const ListEventsResponse = z.looseObject({
  result: z.array(
    z.looseObject({
      /** `null` = uncategorised events. */
      category: z.string().nullable(),
      categoryEventNames: z.array(
        z.looseObject({ eventName: z.string(), basic: z.boolean(), advanced: z.boolean(), dateFirstSeen: DateString }),
      ),
    }),
  ),
});
export type ListEventsResponse = z.output<typeof ListEventsResponse>;

export const eventManagementSchemas = { listEvents: ListEventsResponse } satisfies SchemaMap;

export interface EventManagementMethods {
  /** Every event the application ever reported, with its collection status (basic / advanced). */
  listEvents(productId: string, opts?: CallOptions): Promise<ListEventsResponse>;
}

export const eventManagementMethods = (call: Caller): EventManagementMethods => ({
  listEvents: (productId, opts) => call.json('listEvents', productId, undefined, opts),
});
