/** Public entry of the Reporting Service client. */
export { OPERATIONS, type OperationId } from '../api/operations.ts';
export { RESPONSE_SCHEMAS, ReportingClient } from './client.ts';
export { mapWithConcurrency } from './concurrency.ts';
export * from './errors.ts';
export { binEntries, binLowerBound } from './families/common.ts';
export type { ClientOptions, Credentials, CredentialsProvider, FetchLike, Logger } from './options.ts';
