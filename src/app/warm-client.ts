/**
 * The Reporting Service session a Lambda container keeps between invocations, so the archive copiers sign in once per
 * container instead of once per batch (a run of 476 files was 119 sign-ins), and the sessions they hold are bounded
 * by the copy queue's maxConcurrency (lib/stacks/session-budget.ts).
 *
 * Lambda freezes an idle container and may thaw it minutes later or never: nothing runs in between, so no keep-alive
 * is sent (the service's `beatInterval` is ignored on purpose) and a container that is never thawed leaves its session
 * to the service's idle timeout. A thawed container uses its session again only while the service certainly still
 * holds it; otherwise it signs it out (in case it is still alive, to free its place under the per-user limit) and
 * signs in anew.
 */
import type { ReportingClient } from '../client/index.ts';
import type { Logger } from '../ports/logger.ts';

/**
 * The service ends a session 30 minutes after its last request (a decision, and the emulator's default:
 * docs/interface.md "Sessions").
 */
export const SERVICE_IDLE_TIMEOUT_MS = 30 * 60_000;

/**
 * A kept session is used again only if the service saw it less than half its idle timeout ago: the timeout is
 * Pulse's decision, not the real service's known value (still open: docs/interface.md "Sessions"), so there is room
 * for it to be shorter; and a session idle that long belongs to a container the queue had no work for, a new one
 * costs one sign-in.
 */
export const MAX_REUSE_IDLE_MS = SERVICE_IDLE_TIMEOUT_MS / 2;

export interface WarmSessionOptions {
  /** @default MAX_REUSE_IDLE_MS */
  maxIdleMs?: number;
  logger?: Logger | undefined;
  /** The sign-out of the session this one replaces, finished before this one signs in. */
  retiring?: Promise<void> | undefined;
}

/** One client whose session outlives the call that signed it in. */
export class WarmSession {
  readonly client: ReportingClient;
  private readonly maxIdleMs: number;
  private readonly logger: Logger | undefined;
  private retiring: Promise<void> | undefined;

  constructor(client: ReportingClient, opts: WarmSessionOptions = {}) {
    this.client = client;
    this.maxIdleMs = opts.maxIdleMs ?? MAX_REUSE_IDLE_MS;
    this.logger = opts.logger;
    this.retiring = opts.retiring;
  }

  /**
   * Runs `fn` over the kept session, signing in first when there is none or it has been idle too long; the session is
   * kept afterwards, also when `fn` throws. A refused sign-in (e.g. `SessionLimitError`) is thrown before `fn` runs.
   */
  async use<T>(fn: (client: ReportingClient) => Promise<T>): Promise<T> {
    if (this.retiring) await this.retiring;
    this.retiring = undefined;
    const idleMs = this.client.sessionIdleMs;
    if (idleMs !== undefined && idleMs >= this.maxIdleMs) {
      this.logger?.info('reporting service session idle too long; signing in anew', { idleMs });
      await this.close();
    }
    await this.client.signIn();
    return fn(this.client);
  }

  /** Signs the session out; a failure is logged, never thrown (the service ends it at its idle timeout anyway). */
  async close(): Promise<void> {
    await this.client
      .logout()
      .catch((e: unknown) => this.logger?.warn('logout failed', { operationId: 'logout', error: (e as Error).name }));
  }
}

/** The container's session: module scope, so it lives as long as the Lambda container. */
let kept: { key: string; session: WarmSession } | undefined;

/**
 * The container's WarmSession for the service `key` describes (its config): created on the first invocation, the same
 * on every warm one. A different key (only where one process talks to several services, as tests do) replaces it,
 * signing the previous session out.
 */
export function containerSession(key: string, create: () => ReportingClient, logger?: Logger): WarmSession {
  if (kept?.key === key) return kept.session;
  const retiring = kept?.session.close();
  kept = { key, session: new WarmSession(create(), { logger, retiring }) };
  return kept.session;
}
