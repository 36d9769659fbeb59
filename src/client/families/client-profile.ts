/**
 * Client profile report (docs/interface.md "Client property list", "Client export CSV"): `clientPropertyList`, one
 * page of up to 200 clients at a time, walked by `clientPropertyListPages`/`allClients`; `exportClientPropertyList`,
 * the same rows as a streamed CSV. A property without a value is the string `"<NULL>"` whatever the property's type
 * (docs/interface.md "Missing values").
 */
import * as z from 'zod';
import { guardStream } from '../download.ts';
import { NetworkError, ResponseShapeError } from '../errors.ts';
import type { Caller, CallOptions, SchemaMap } from './caller.ts';
import { Count, DateString } from './common.ts';
import type { ClientPropertyListRequest, ExportClientPropertyListRequest } from './request-bodies.ts';

export type { ClientPropertyListRequest, ExportClientPropertyListRequest };

/** The value of a property that has none (docs/interface.md "Missing values"). */
export const NULL_VALUE = '<NULL>';
export type NullSentinel = typeof NULL_VALUE;
/** A property value as the service sends it: its native JSON type, or the sentinel. */
export type PropertyValue<T extends string | number | boolean = string | number | boolean> = T | NullSentinel;

/** The value, with the sentinel turned into `null`. */
export function valueOrNull<T extends string | number | boolean>(value: PropertyValue<T>): T | null {
  return value === NULL_VALUE ? null : (value as T);
}

const LifetimeEventUsage = z.looseObject({
  eventCategory: z.string().nullable(),
  eventName: z.string(),
  eventCount: Count,
});
/** `name: null` = the campaign was deleted. */
const Delivery = z.looseObject({ reachoutID: z.number().int(), name: z.string().nullable() });
const Scalar = z.union([z.string(), z.number(), z.boolean()]);
/** Any other member is a property: a scalar (or `"<NULL>"`), or a list property's items. */
const PropertyMember = z.union([Scalar, z.array(z.unknown())]);

const DailyValues = z.object({ date: DateString }).catchall(PropertyMember);
const ClientRecord = z
  .object({
    clientId: z.string(),
    lifetimeEventUsage: z.array(LifetimeEventUsage).optional(),
    'reachOutDeliveries.auto': z.array(Delivery).optional(),
    'reachOutDeliveries.manual': z.array(Delivery).optional(),
    dailyData: z.array(DailyValues).optional(),
  })
  .catchall(PropertyMember);
export type ClientRecord = z.output<typeof ClientRecord>;

const ClientPropertyListResponse = z.looseObject({
  result: z.array(ClientRecord),
  reachedEnd: z.boolean(),
  /** Present only when `reachedEnd` is false. */
  nextClientId: z.string().optional(),
});
export type ClientPropertyListResponse = z.output<typeof ClientPropertyListResponse>;

export interface ClientExport {
  /** The CSV bytes (RFC 4180, CRLF, `<NULL>` cells); a connection lost midway errors the stream, never ends it. */
  stream: ReadableStream<Uint8Array>;
  /** From `Content-Disposition`, else `<product_id>_clients.csv`. */
  fileName: string;
}

export const clientProfileSchemas = {
  clientPropertyList: ClientPropertyListResponse,
  exportClientPropertyList: 'stream',
} satisfies SchemaMap;

export interface ClientProfileMethods {
  /** One page (≤ 200 clients, ascending `clientId`) of the clients matching `globalFilters`. */
  clientPropertyList(
    productId: string,
    body?: ClientPropertyListRequest,
    opts?: CallOptions,
  ): Promise<ClientPropertyListResponse>;
  /** Every page of `clientPropertyList` from `body.startAtClientId` on, following `nextClientId` until `reachedEnd`. */
  clientPropertyListPages(
    productId: string,
    body?: ClientPropertyListRequest,
    opts?: CallOptions,
  ): AsyncGenerator<ClientPropertyListResponse, void, undefined>;
  /** Every matching client, one at a time, across all `clientPropertyList` pages. */
  allClients(
    productId: string,
    body?: ClientPropertyListRequest,
    opts?: CallOptions,
  ): AsyncGenerator<ClientRecord, void, undefined>;
  /** The matching clients as a streamed CSV; not repeated automatically. */
  exportClientPropertyList(
    productId: string,
    body: ExportClientPropertyListRequest,
    opts?: CallOptions,
  ): Promise<ClientExport>;
}

/** `filename="…"` of a Content-Disposition header (the plain form the service sends), never a path. */
function attachmentName(header: string | null): string | undefined {
  const m = header === null ? null : /filename="([^"]+)"/i.exec(header);
  const name = m?.[1]?.replace(/[\\/]/g, '_');
  return name === undefined || name === '.' || name === '..' ? undefined : name;
}

export const clientProfileMethods = (call: Caller): ClientProfileMethods => {
  const page = (productId: string, body: ClientPropertyListRequest = {}, opts?: CallOptions) =>
    call.json<ClientPropertyListResponse>('clientPropertyList', productId, body, opts);

  async function* pages(productId: string, body: ClientPropertyListRequest = {}, opts?: CallOptions) {
    let startAt = body.startAtClientId ?? null;
    for (;;) {
      const res = await page(productId, { ...body, startAtClientId: startAt }, opts);
      yield res;
      if (res.reachedEnd || res.result.length === 0) return;
      const last = res.result[res.result.length - 1]!.clientId;
      // Pages start inclusively at nextClientId: one not past the last client would repeat clients or never end.
      if (res.nextClientId === undefined || res.nextClientId <= last) {
        throw new ResponseShapeError(
          'nextClientId must follow the last client of a page that has not reached the end',
          {
            operationId: 'clientPropertyList',
            path: 'nextClientId',
          },
        );
      }
      startAt = res.nextClientId;
    }
  }

  return {
    clientPropertyList: page,
    clientPropertyListPages: pages,
    async *allClients(productId, body, opts) {
      for await (const res of pages(productId, body, opts)) yield* res.result;
    },
    async exportClientPropertyList(productId, body, opts) {
      const res = await call.raw('exportClientPropertyList', productId, body, { ...opts, contentType: '*/*' });
      if (!res.body)
        throw new NetworkError('export answered without a body', { operationId: 'exportClientPropertyList' });
      return {
        // The stream is chunked without a length: only the final chunk tells a complete export from a cut one, and
        // fetch errors the body when the connection closes without it.
        stream: guardStream(res.body, {
          signal: opts?.signal,
          error: (problem, cause) =>
            new NetworkError(`export stream failed: ${problem}`, { operationId: 'exportClientPropertyList', cause }),
        }),
        fileName: attachmentName(res.headers.get('content-disposition')) ?? `${productId}_clients.csv`,
      };
    },
  };
};
