/**
 * Structured logger port (Powertools-style): a message plus flat data; adapters decide the format. It is the
 * Reporting Service client's logger shape, so one logger serves the client and the jobs.
 */
export type { Logger } from '../client/options.ts';
