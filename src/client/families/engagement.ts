import type { Caller, SchemaMap } from './caller.ts';

export const engagementSchemas = {} satisfies SchemaMap;

// biome-ignore lint/suspicious/noEmptyInterface: filled in by the family's operations.
export interface EngagementMethods {}

export const engagementMethods = (_call: Caller): EngagementMethods => ({});
