import type { Caller, SchemaMap } from './caller.ts';

export const churnSchemas = {} satisfies SchemaMap;

// biome-ignore lint/suspicious/noEmptyInterface: filled in by the family's operations.
export interface ChurnMethods {}

export const churnMethods = (_call: Caller): ChurnMethods => ({});
