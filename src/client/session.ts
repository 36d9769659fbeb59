/**
 * The session: request-csrf → signIn, kept in the service-scoped cookie jar. Sign-ins are single-flight, so when a
 * session expires under many concurrent calls, exactly one of them signs in again and the others reuse it. It knows
 * when the service last saw it (`idleMs`), so a holder that keeps it between jobs can end it before the service's
 * idle timeout does (src/app/warm-client.ts).
 */
import { OPERATION_BY_ID } from '../api/operations.ts';
import { AuthenticationError, type ReportingServiceError, SessionLimitError } from './errors.ts';
import type { Credentials, ResolvedOptions } from './options.ts';
import { readJson } from './shape.ts';
import type { SessionHooks, Transport } from './transport.ts';

const op = (id: string) => OPERATION_BY_ID.get(id)!;

export class SessionManager implements SessionHooks {
  private generation = 0;
  private active = false;
  private pending: Promise<unknown> | undefined;
  private lastSignIn: unknown;
  /** When the service last renewed the session: the send time of the latest request it accepted. */
  private lastUsedAt: number | undefined;
  private readonly transport: Transport;
  private readonly opts: ResolvedOptions;

  constructor(transport: Transport, opts: ResolvedOptions) {
    this.transport = transport;
    this.opts = opts;
    transport.session = this;
  }

  get signedIn(): boolean {
    return this.active;
  }

  /** Milliseconds since the service last renewed the session (undefined when not signed in). */
  get idleMs(): number | undefined {
    return this.active && this.lastUsedAt !== undefined ? this.opts.now() - this.lastUsedAt : undefined;
  }

  used(sentAtMs: number): void {
    if (this.active) this.lastUsedAt = Math.max(this.lastUsedAt ?? sentAtMs, sentAtMs);
  }

  /** The raw sign-in response of the current session (validated by the client). */
  get signInResponse(): unknown {
    return this.lastSignIn;
  }

  async ensure(): Promise<number> {
    if (!this.active) await this.signIn();
    return this.generation;
  }

  async refresh(generation: number): Promise<void> {
    if (this.generation === generation) {
      this.active = false;
      await this.signIn();
    } else if (this.pending) await this.pending;
  }

  /** Signs in (once, even when called concurrently); resolves with the sign-in response body. */
  signIn(): Promise<unknown> {
    this.pending ??= this.doSignIn().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private async credentials(): Promise<Credentials> {
    const c = this.opts.credentials;
    return typeof c === 'function' ? await c() : c;
  }

  private async doSignIn(): Promise<unknown> {
    const creds = await this.credentials();
    await this.transport.request({ op: op('requestCsrf') });
    // The service starts the session's idle timer when the sign-in arrives, no earlier than this.
    const sentAt = this.opts.now();
    let res: Response;
    try {
      res = await this.transport.request({
        op: op('signIn'),
        body: { userName: creds.userName, password: creds.password },
      });
    } catch (e) {
      if (!(e instanceof SessionLimitError) || this.opts.onSessionLimit !== 'logoutOtherSessions') throw e;
      res = await this.retryAfterFreeingSessions(e, creds);
    }
    this.lastSignIn = await readJson('signIn', res, Date.now() + this.opts.deadlineMs);
    this.generation++;
    this.active = true;
    this.lastUsedAt = sentAt;
    return this.lastSignIn;
  }

  /**
   * `onSessionLimit: 'logoutOtherSessions'`: sessions can only be freed from a still-valid session (`logout`);
   * the jar may still hold one from before. Without one, the limit error stands.
   */
  private async retryAfterFreeingSessions(limit: ReportingServiceError, creds: Credentials): Promise<Response> {
    if (!(await this.transport.jar.value('Session-Token'))) throw limit;
    this.opts.logger?.warn('session limit reached; ending all sessions of the user', { operationId: 'signIn' });
    try {
      await this.transport.request({ op: op('logout'), body: { allSessions: true }, sessionless: true });
    } catch {
      throw limit;
    }
    await this.transport.request({ op: op('requestCsrf') });
    return this.transport.request({ op: op('signIn'), body: { userName: creds.userName, password: creds.password } });
  }

  /**
   * Ends the session (or all sessions of the user); a no-op when not signed in. Never retried (docs/interface.md
   * "Safe-to-repeat requests").
   */
  async logout(allSessions = false): Promise<void> {
    if (!this.active) return;
    this.active = false;
    // Sessionless: logging out must not sign in first if the session has already expired.
    try {
      await this.transport.request({
        op: op('logout'),
        body: allSessions ? { allSessions: true } : {},
        sessionless: true,
      });
    } catch (e) {
      // 401 Unauthorized: the service has already ended the session (idle expiry, another client's allSessions),
      // which is all logout wants. (`Cookie Missing` is transient and may leave the session alive: reported.)
      if (!(e instanceof AuthenticationError && e.serviceError === 'Unauthorized')) throw e;
    }
  }
}
