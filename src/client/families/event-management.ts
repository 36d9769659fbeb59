import type { Caller, SchemaMap } from './caller.ts';

export const eventManagementSchemas = {} satisfies SchemaMap;

// biome-ignore lint/suspicious/noEmptyInterface: filled in by the family's operations.
export interface EventManagementMethods {}

export const eventManagementMethods = (_call: Caller): EventManagementMethods => ({});
