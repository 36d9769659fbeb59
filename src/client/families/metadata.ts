/** Metadata family (docs/interface.md "Product properties"): `productProperties`, `propertyValues`. */
import * as z from 'zod';
import type { Caller, CallOptions, SchemaMap } from './caller.ts';
import type { PropertyValuesRequest } from './request-bodies.ts';

export type { PropertyValuesRequest };

const PropertyDescription = z.looseObject({
  /** Key used in globalFilters, levels, segmentBy and property lists. */
  name: z.string(),
  friendlyName: z.string(),
  // Value sets are guesses (docs/interface.md "Product properties"): plain strings, not unions.
  filterType: z.string(),
  dataType: z.string(),
  supportsRegex: z.boolean(),
  supportsMeta: z.boolean(),
  supportsNull: z.boolean(),
});
export type PropertyDescription = z.output<typeof PropertyDescription>;

export const ProductPropertiesResponse = z.looseObject({
  result: z.array(z.looseObject({ category: z.string(), properties: z.array(PropertyDescription) })),
});
export type ProductPropertiesResponse = z.output<typeof ProductPropertiesResponse>;

export const PropertyValuesResponse = z.looseObject({
  result: z.array(z.looseObject({ value: z.string(), shortName: z.string().optional() })),
  // Paging marker is a guess (docs/interface.md "Paging"): when absent, page until a page comes back empty.
  reachedEnd: z.boolean().optional(),
});
export type PropertyValuesResponse = z.output<typeof PropertyValuesResponse>;

export const metadataSchemas = {
  productProperties: ProductPropertiesResponse,
  propertyValues: PropertyValuesResponse,
} satisfies SchemaMap;

export interface MetadataMethods {
  /**
   * Properties usable in filters and segments: of `productId` when given (`…/productProperties/{product_id}`),
   * else of the user's current product.
   */
  productProperties(opts?: CallOptions & { productId?: string }): Promise<ProductPropertiesResponse>;
  /** One page of the values of a property (ascending; continue with `startAfter`). */
  propertyValues(productId: string, body: PropertyValuesRequest, opts?: CallOptions): Promise<PropertyValuesResponse>;
}

export const metadataMethods = (call: Caller): MetadataMethods => ({
  productProperties: (opts) => {
    const { productId, ...rest } = opts ?? {};
    return call.json('productProperties', productId, undefined, rest);
  },
  propertyValues: (productId, body, opts) => call.json('propertyValues', productId, body, opts),
});
