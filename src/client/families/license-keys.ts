import type { Caller, SchemaMap } from './caller.ts';

export const licenseKeySchemas = {} satisfies SchemaMap;

// biome-ignore lint/suspicious/noEmptyInterface: filled in by the family's operations.
export interface LicenseKeyMethods {}

export const licenseKeyMethods = (_call: Caller): LicenseKeyMethods => ({});
