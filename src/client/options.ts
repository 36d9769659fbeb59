/**
 * Client options (in the spirit of openai-node's): validated once at construction with zod, so a bad option fails
 * immediately with its path instead of on the first call.
 */
import * as z from 'zod';
import { ClientConfigError } from './errors.ts';

/**
 * Structured logger (Powertools-style): a message plus flat data; the caller's logger decides the format. The client
 * defines it because it is a library of its own (README.md); Pulse's logger port is this same shape.
 */
export interface Logger {
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

export interface Credentials {
  userName: string;
  password: string;
}
/** Called at every sign-in, so a secret can be fetched (and rotated) without recreating the client. */
export type CredentialsProvider = () => Credentials | Promise<Credentials>;

export type FetchLike = (input: Request | URL | string, init?: RequestInit) => Promise<Response>;

export interface ClientOptions {
  /** Service base URL, e.g. `https://api.example.com` (paths start with `/v3`). */
  baseUrl: string;
  /** The dashboard origin the service allows; sent as `Origin` on every request. */
  origin: string;
  /** Vendor prefix of header and cookie names. @default 'Svc' */
  headerPrefix?: string;
  credentials: Credentials | CredentialsProvider;
  /** Per-attempt time limit in ms. @default 30000 */
  timeoutMs?: number;
  /**
   * Downloads from signed storage URLs: the longest storage may send nothing while body bytes are awaited (time the
   * reader takes between reads does not count); then the download fails with a TimeoutError. The wait for the
   * response headers is limited by `timeoutMs`. @default 30000
   */
  downloadIdleTimeoutMs?: number;
  /** Time limit of one call including all retries, in ms. @default 120000 */
  deadlineMs?: number;
  /** Retries after the first attempt (429, 5xx, network errors). @default 4 */
  maxRetries?: number;
  /** First backoff delay; doubles per retry, with full jitter. @default 300 */
  retryBaseDelayMs?: number;
  /** Cap of one backoff delay. @default 10000 */
  retryMaxDelayMs?: number;
  /** How long to wait before repeating a request answered `Cookie Missing`. @default 1000 */
  cookieMissingDelayMs?: number;
  /** Send the `<prefix>-Csrf` header with the CSRF cookie's value. @default true */
  sendCsrfHeader?: boolean;
  /** On 409 Session Limit: fail (default), or end all sessions of the user from a still-valid one and retry once. */
  onSessionLimit?: 'fail' | 'logoutOtherSessions';
  /** Sent as `<prefix>-Client` / `<prefix>-Client-Version`. */
  clientName?: string;
  clientVersion?: string;
  /**
   * Carries every call to the service. Not downloads from signed storage URLs: they read into the caller's buffers
   * over a connection of their own (download.ts, http-get.ts).
   */
  fetch?: FetchLike;
  logger?: Logger;
  /** Source of jitter in [0, 1); injectable for tests. */
  random?: () => number;
  /** The clock of the session's last use (`sessionIdleMs`), in ms; injectable for tests. @default Date.now */
  now?: () => number;
}

const positiveMs = z.number().int().positive().max(2_147_483_647);
// A user name or password inside a URL would travel into fetch's error messages (and from there into logs).
const httpUrl = z
  .url({ protocol: /^https?$/ })
  .refine((u) => !/^[a-z]+:\/\/[^/?#]*@/i.test(u), 'must not contain a user name or password');

const schema = z.object({
  baseUrl: httpUrl,
  origin: httpUrl,
  headerPrefix: z.string().regex(/^[A-Za-z][A-Za-z0-9]{0,31}$/, 'letters and digits, starting with a letter'),
  credentials: z.union([
    z.object({ userName: z.string().min(1), password: z.string().min(1) }),
    z.custom<CredentialsProvider>((v) => typeof v === 'function', 'a function'),
  ]),
  timeoutMs: positiveMs,
  downloadIdleTimeoutMs: positiveMs,
  deadlineMs: positiveMs,
  maxRetries: z.number().int().min(0).max(20),
  retryBaseDelayMs: z.number().int().min(0),
  retryMaxDelayMs: z.number().int().min(0),
  cookieMissingDelayMs: z.number().int().min(0),
  sendCsrfHeader: z.boolean(),
  onSessionLimit: z.enum(['fail', 'logoutOtherSessions']),
  clientName: z.string().min(1),
  clientVersion: z.string().min(1),
});

export type ResolvedOptions = Required<Omit<ClientOptions, 'fetch' | 'logger' | 'random' | 'now'>> & {
  fetch: FetchLike;
  logger: Logger | undefined;
  random: () => number;
  now: () => number;
  /** `new URL(baseUrl).origin`: the only origin that ever receives the service's cookies. */
  serviceOrigin: string;
};

export const CLIENT_VERSION = '0.1.0';

export function resolveClientOptions(o: ClientOptions): ResolvedOptions {
  const withDefaults = {
    headerPrefix: 'Svc',
    timeoutMs: 30_000,
    downloadIdleTimeoutMs: 30_000,
    deadlineMs: 120_000,
    maxRetries: 4,
    retryBaseDelayMs: 300,
    retryMaxDelayMs: 10_000,
    cookieMissingDelayMs: 1000,
    sendCsrfHeader: true,
    onSessionLimit: 'fail' as const,
    clientName: 'pulse',
    clientVersion: CLIENT_VERSION,
    ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)),
  };
  const parsed = schema.safeParse(withDefaults);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    // Never echo option values: the credentials are among them.
    throw new ClientConfigError(`${issue.path.join('.') || 'options'}: ${issue.message}`);
  }
  const baseUrl = parsed.data.baseUrl.replace(/\/+$/, '');
  const origin = new URL(parsed.data.origin).origin;
  return {
    ...(parsed.data as Omit<ResolvedOptions, 'fetch' | 'logger' | 'random' | 'now' | 'serviceOrigin'>),
    baseUrl,
    origin,
    fetch: o.fetch ?? ((input, init) => fetch(input, init)),
    logger: o.logger,
    random: o.random ?? Math.random,
    now: o.now ?? Date.now,
    serviceOrigin: new URL(baseUrl).origin,
  };
}
