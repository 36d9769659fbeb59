import type { Caller, SchemaMap } from './caller.ts';

export const clientProfileSchemas = {} satisfies SchemaMap;

// biome-ignore lint/suspicious/noEmptyInterface: filled in by the family's operations.
export interface ClientProfileMethods {}

export const clientProfileMethods = (_call: Caller): ClientProfileMethods => ({});
