import type { Caller, SchemaMap } from './caller.ts';

export const metadataSchemas = {} satisfies SchemaMap;

// biome-ignore lint/suspicious/noEmptyInterface: filled in by the family's operations.
export interface MetadataMethods {}

export const metadataMethods = (_call: Caller): MetadataMethods => ({});
