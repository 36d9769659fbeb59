import type { Caller, SchemaMap } from './caller.ts';

export const fileSchemas = {} satisfies SchemaMap;

// biome-ignore lint/suspicious/noEmptyInterface: filled in by the family's operations.
export interface FileMethods {}

export const fileMethods = (_call: Caller): FileMethods => ({});
