/**
 * License key registry: `searchLicenseKeys`, `updateLicenseKeys`, `insertLicenseKeys`. The whole registry contract is
 * an open question (docs/interface.md "License key registry"), so the record is typed loosely (known members optional,
 * others kept) and the update result is `unknown` with a typed view.
 */
import * as z from 'zod';
import type { Caller, CallOptions, SchemaMap } from './caller.ts';
import { Count, DateString } from './common.ts';
import type {
  LicenseDateFilter,
  LicenseKeySearchRequest,
  LicenseKeyUpdate,
  LicenseKeyUpdateRequest,
  LicenseNumberFilter,
  LicenseStringFilter,
} from './request-bodies.ts';

export type {
  LicenseDateFilter,
  LicenseKeySearchRequest,
  LicenseKeyUpdate,
  LicenseKeyUpdateRequest,
  LicenseNumberFilter,
  LicenseStringFilter,
};

const LicenseKeyRecord = z.looseObject({
  licenseKey: z.string().optional(),
  licenseType: z.string().optional(),
  licenseStatus: z
    .looseObject({
      activated: z.boolean().optional(),
      allowed: z.boolean().optional(),
      blocked: z.boolean().optional(),
      expired: z.boolean().optional(),
    })
    .optional(),
  expiryDate: DateString.nullable().optional(),
  addedDate: DateString.optional(),
  autoCollected: z.boolean().optional(),
  quota: Count.nullable().optional(),
  clientCount: Count.optional(),
  /** `clientCount − quota`: negative = headroom. */
  overQuotaCount: z.number().int().optional(),
  lastSeenDate: DateString.nullable().optional(),
});
export type LicenseKeyRecord = z.output<typeof LicenseKeyRecord>;

const LicenseKeySearchResponse = z.looseObject({
  result: z.array(LicenseKeyRecord),
  /** Matches before paging. */
  matchingKeysCount: Count.optional(),
});
export type LicenseKeySearchResponse = z.output<typeof LicenseKeySearchResponse>;

const LicenseKeyUpdateResponse = z.looseObject({ result: z.unknown() });

/**
 * The documented `updateLicenseKeys`/`insertLicenseKeys` result; items that failed are listed, the rest of the batch
 * went through.
 */
const LicenseKeyUpdateResult = z.looseObject({
  inserted: Count,
  updated: Count,
  failed: z.array(z.looseObject({ licenseKey: z.string().nullable(), message: z.string() })),
});
export type LicenseKeyUpdateResult = z.output<typeof LicenseKeyUpdateResult>;

export type LicenseKeyUpdateResponse = z.output<typeof LicenseKeyUpdateResponse> & {
  /** `result` read as the documented shape, or undefined when the service answered something else. */
  view: LicenseKeyUpdateResult | undefined;
};

/**
 * The typed view of an update `result` (an open question, docs/interface.md "License key registry"): undefined when it
 * does not have the documented shape.
 */
export function licenseKeyUpdateView(result: unknown): LicenseKeyUpdateResult | undefined {
  const parsed = LicenseKeyUpdateResult.safeParse(result);
  return parsed.success ? parsed.data : undefined;
}

export const licenseKeySchemas = {
  searchLicenseKeys: LicenseKeySearchResponse,
  updateLicenseKeys: LicenseKeyUpdateResponse,
  insertLicenseKeys: LicenseKeyUpdateResponse,
} satisfies SchemaMap;

export interface LicenseKeyMethods {
  /** One page of the keys matching `filters`, ordered by `licenseKey`. */
  searchLicenseKeys(
    productId: string,
    body?: LicenseKeySearchRequest,
    opts?: CallOptions,
  ): Promise<LicenseKeySearchResponse>;
  /**
   * Every page of `searchLicenseKeys` from `paging.startAt` on, until `matchingKeysCount` keys (or an empty page) have
   * been seen.
   */
  searchLicenseKeysPages(
    productId: string,
    body?: LicenseKeySearchRequest,
    opts?: CallOptions,
  ): AsyncGenerator<LicenseKeySearchResponse, void, undefined>;
  /** PATCH upsert of keys; not repeated automatically. */
  updateLicenseKeys(
    productId: string,
    body: LicenseKeyUpdateRequest,
    opts?: CallOptions,
  ): Promise<LicenseKeyUpdateResponse>;
  /** POST upsert of keys (same as `updateLicenseKeys`); not repeated automatically. */
  insertLicenseKeys(
    productId: string,
    body: LicenseKeyUpdateRequest,
    opts?: CallOptions,
  ): Promise<LicenseKeyUpdateResponse>;
}

export const licenseKeyMethods = (call: Caller): LicenseKeyMethods => {
  const search = (productId: string, body: LicenseKeySearchRequest = {}, opts?: CallOptions) =>
    call.json<LicenseKeySearchResponse>('searchLicenseKeys', productId, body, opts);
  const upsert =
    (id: 'updateLicenseKeys' | 'insertLicenseKeys') =>
    async (productId: string, body: LicenseKeyUpdateRequest, opts?: CallOptions) => {
      const res = await call.json<z.output<typeof LicenseKeyUpdateResponse>>(id, productId, body, opts);
      return { ...res, view: licenseKeyUpdateView(res.result) };
    };
  return {
    searchLicenseKeys: search,
    async *searchLicenseKeysPages(productId, body = {}, opts) {
      let startAt = body.paging?.startAt ?? 0;
      for (;;) {
        const page = await search(productId, { ...body, paging: { ...body.paging, startAt } }, opts);
        yield page;
        startAt += page.result.length;
        // An empty page ends the walk too, so a service that omits the count cannot loop forever.
        if (page.result.length === 0 || (page.matchingKeysCount !== undefined && startAt >= page.matchingKeysCount))
          return;
      }
    },
    updateLicenseKeys: upsert('updateLicenseKeys'),
    insertLicenseKeys: upsert('insertLicenseKeys'),
  };
};
