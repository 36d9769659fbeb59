import type { Caller, SchemaMap } from './caller.ts';

export const eventReportSchemas = {} satisfies SchemaMap;

// biome-ignore lint/suspicious/noEmptyInterface: filled in by the family's operations.
export interface EventReportMethods {}

export const eventReportMethods = (_call: Caller): EventReportMethods => ({});
