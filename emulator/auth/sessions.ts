/**
 * Sessions and CSRF tokens (docs/interface.md "Sessions"): pre-login CSRF values valid for an hour, sessions that
 * expire after an idle period, and a per-user cap. Tokens are random 32-byte values; nothing here is logged.
 */
import { randomBytes } from 'node:crypto';
import { sessionLimit } from '../http/errors.ts';

export interface Session {
  token: string;
  userName: string;
  lastUsedMs: number;
  /** Authenticated requests made with this session (fault profiles can expire a session after N). */
  requests: number;
}

const CSRF_VALID_MS = 60 * 60 * 1000;

export class SessionStore {
  private readonly csrf = new Map<string, number>();
  private readonly sessions = new Map<string, Session>();
  /** Per user: sessions held elsewhere (fault rule `heldSessions`); they count towards the cap, never idle out. */
  private readonly heldElsewhere = new Map<string, number>();
  private readonly now: () => number;
  private readonly idleMs: number;
  private readonly maxPerUser: number;
  /** Sessions created since start (what tests and benches count sign-ins by). */
  signIns = 0;
  /** The most live sessions one user held at once since start (sessions held elsewhere not counted). */
  peakSessionsPerUser = 0;

  constructor(opts: { now: () => number; idleMs: number; maxPerUser: number }) {
    this.now = opts.now;
    this.idleMs = opts.idleMs;
    this.maxPerUser = opts.maxPerUser;
  }

  static token(): string {
    return randomBytes(32).toString('base64url');
  }

  issueCsrf(): string {
    const t = SessionStore.token();
    const now = this.now();
    this.csrf.set(t, now);
    // Keep the table bounded: drop values that can no longer be used.
    if (this.csrf.size > 10_000) for (const [k, at] of this.csrf) if (now - at > CSRF_VALID_MS) this.csrf.delete(k);
    return t;
  }

  /** True when `requestCsrf` issued this value within the last hour. */
  csrfUsable(value: string | undefined): boolean {
    if (!value) return false;
    const at = this.csrf.get(value);
    return at !== undefined && this.now() - at <= CSRF_VALID_MS;
  }

  /**
   * Signs in: enforces the per-user cap on the live sessions plus those held elsewhere, not counting `replacing` (a
   * live session of the caller), which ends only when the sign-in succeeds: a refused caller keeps its session, from
   * which it can still end the others (`logout` with allSessions).
   */
  create(userName: string, replacing?: string): Session {
    const live = this.liveSessionsOf(userName).filter((s) => s.token !== replacing).length;
    if (live + this.heldElsewhereBy(userName) >= this.maxPerUser) throw sessionLimit(this.maxPerUser);
    if (replacing) this.end(replacing);
    const s: Session = { token: SessionStore.token(), userName, lastUsedMs: this.now(), requests: 0 };
    this.sessions.set(s.token, s);
    this.signIns++;
    this.peakSessionsPerUser = Math.max(this.peakSessionsPerUser, live + 1);
    return s;
  }

  /** The live session for a token, renewed; undefined when unknown, ended or idle too long. */
  touch(token: string | undefined): Session | undefined {
    const s = this.peek(token);
    if (!s) return undefined;
    s.lastUsedMs = this.now();
    s.requests++;
    return s;
  }

  peek(token: string | undefined): Session | undefined {
    if (!token) return undefined;
    const s = this.sessions.get(token);
    if (!s) return undefined;
    if (this.now() - s.lastUsedMs > this.idleMs) {
      this.sessions.delete(token);
      return undefined;
    }
    return s;
  }

  end(token: string): void {
    this.sessions.delete(token);
  }

  /** Logout with `allSessions`: ends every session of the user, also those held elsewhere. */
  endAll(userName: string): void {
    for (const [t, s] of this.sessions) if (s.userName === userName) this.sessions.delete(t);
    this.heldElsewhere.delete(userName);
  }

  /**
   * `n` sessions of the user are now held elsewhere (another tool, a browser; fault rule `heldSessions`): the count
   * replaces the previous one (0 gives them up). They count towards the cap until `endAll`; they never idle out
   * and are not in `peakSessionsPerUser`. A count at or above the cap refuses every sign-in.
   */
  holdElsewhere(userName: string, n: number): void {
    if (n > 0) this.heldElsewhere.set(userName, n);
    else this.heldElsewhere.delete(userName);
  }

  /** Sessions of the user held elsewhere (see `holdElsewhere`). */
  heldElsewhereBy(userName: string): number {
    return this.heldElsewhere.get(userName) ?? 0;
  }

  liveSessionsOf(userName: string): Session[] {
    const out: Session[] = [];
    for (const s of [...this.sessions.values()]) if (s.userName === userName && this.peek(s.token)) out.push(s);
    return out;
  }
}
