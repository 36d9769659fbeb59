import type { Caller, SchemaMap } from './caller.ts';

export const genericReportSchemas = {} satisfies SchemaMap;

// biome-ignore lint/suspicious/noEmptyInterface: filled in by the family's operations.
export interface GenericReportMethods {}

export const genericReportMethods = (_call: Caller): GenericReportMethods => ({});
