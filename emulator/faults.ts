/**
 * Fault injection for reliability tests (`--faults FILE` or `emulator.faults.set(profile)`). Each rule matches
 * operation ids and/or a path pattern; every random decision comes from one seeded stream, so a profile replays the
 * same faults for the same request sequence.
 */
import { readFileSync } from 'node:fs';
import { Rng } from './data/rng.ts';
import type { DownloadFault } from './files/storage-server.ts';

export interface FaultRule {
  /** Operation ids this rule applies to; absent = all operations. */
  operations?: string[];
  /** Regular expression tested against the request path (or the storage file key for download faults). */
  path?: string;
  /** Added latency before the answer, with optional uniform jitter. */
  latencyMs?: number;
  jitterMs?: number;
  /** Share of requests answered with a 5xx (default status 503); `nonJsonBody` mimics an intermediary's page. */
  serverErrorRate?: number;
  serverErrorStatus?: number;
  nonJsonBody?: boolean;
  /** Share of requests answered 429 with `Retry-After: retryAfterSeconds` (default 1). */
  rateLimitRate?: number;
  retryAfterSeconds?: number;
  /** Share of authenticated requests answered 401 `Cookie Missing`. */
  cookieMissingRate?: number;
  /** End a session after it has made this many authenticated requests. */
  sessionExpiresAfterRequests?: number;
  /** Download faults on the storage listener. */
  truncateDownloadRate?: number;
  /** Share of downloads that send their headers and about half of the body, then nothing, keeping the connection. */
  stallDownloadRate?: number;
  downloadBytesPerSecond?: number;
  expiredDownloadRate?: number;
  /** Share of downloads whose every byte arrives, one of them altered (the middle one): a corrupt file, not a cut one. */
  corruptDownloadRate?: number;
  /** Open daily files report `isAvailable: false` while this is true. */
  openFilesUnavailable?: boolean;
  /**
   * Sessions of the profile's user held elsewhere (another tool, a browser), from the rule's first matching request
   * on (after `after`): they count towards the per-user limit, so a sign-in beyond it is answered 409
   * `Session Limit`, until a logout with `allSessions` ends them. Taken once per rule, by the first matching request
   * (which counts as one of `times`), before that request is handled: a sign-in that takes them is already refused.
   * The value replaces what is held elsewhere (0 gives them up); a value at or above the limit refuses every
   * sign-in. They do not idle out (the other tool keeps using them), and they outlive the profile (`faults.clear()`
   * does not end them).
   */
  heldSessions?: number;
  /**
   * A JSON answer of the matched operations that no longer matches the documented shape, to show that a contract
   * check (`pulse doctor --contract`) names the change: the member at `drop` is removed, the one at `rename` moved to
   * the name `to`, the one at `retype` given another JSON type (a number becomes a string, anything else a number).
   * A path is dotted member names, `*` standing for every item of an array or every member of an object
   * (`account.email`, `result.*.bin`); a path that finds nothing leaves the answer as it is.
   */
  alterShape?: ShapeAlteration;
  /** Stop applying the rule after it has fired this many times (bursts). */
  times?: number;
  /** Let this many matching requests pass untouched first (a fault in the middle of a run). */
  after?: number;
}

export type ShapeAlteration = { drop: string } | { rename: string; to: string } | { retype: string };

export interface FaultProfile {
  seed?: number;
  rules: FaultRule[];
}

export class FaultProfileError extends Error {
  override name = 'FaultProfileError';
}

const NUMERIC_KEYS = [
  'latencyMs',
  'jitterMs',
  'serverErrorStatus',
  'retryAfterSeconds',
  'sessionExpiresAfterRequests',
  'downloadBytesPerSecond',
  'times',
  'after',
] as const;
/** Whole counts ≥ 0: anything else (negative, fractional, not a number) is `must be an integer ≥ 0`. */
const INTEGER_KEYS = ['heldSessions'] as const;
const RATE_KEYS = [
  'serverErrorRate',
  'rateLimitRate',
  'cookieMissingRate',
  'truncateDownloadRate',
  'stallDownloadRate',
  'expiredDownloadRate',
  'corruptDownloadRate',
] as const;
const KNOWN = new Set<string>([
  ...NUMERIC_KEYS,
  ...INTEGER_KEYS,
  ...RATE_KEYS,
  'operations',
  'path',
  'nonJsonBody',
  'openFilesUnavailable',
  'alterShape',
]);

/** Validates a profile, naming the bad field (`rules[2].serverErrorRate: …`). */
export function parseFaultProfile(value: unknown): FaultProfile {
  const bad = (path: string, problem: string): never => {
    throw new FaultProfileError(`${path}: ${problem}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return bad('profile', 'must be an object');
  const v = value as Record<string, unknown>;
  if (v.seed !== undefined && !Number.isInteger(v.seed)) bad('seed', 'must be an integer');
  if (!Array.isArray(v.rules)) return bad('rules', 'must be an array');
  for (const [i, r] of v.rules.entries()) {
    const p = `rules[${i}]`;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) bad(p, 'must be an object');
    const rule = r as Record<string, unknown>;
    for (const k of Object.keys(rule)) if (!KNOWN.has(k)) bad(`${p}.${k}`, 'unknown field');
    for (const k of NUMERIC_KEYS)
      if (rule[k] !== undefined && (typeof rule[k] !== 'number' || (rule[k] as number) < 0))
        bad(`${p}.${k}`, 'must be a number ≥ 0');
    for (const k of INTEGER_KEYS)
      if (rule[k] !== undefined && !(Number.isInteger(rule[k]) && (rule[k] as number) >= 0))
        bad(`${p}.${k}`, 'must be an integer ≥ 0');
    for (const k of RATE_KEYS) {
      const x = rule[k];
      if (x !== undefined && (typeof x !== 'number' || x < 0 || x > 1))
        bad(`${p}.${k}`, 'must be a number from 0 to 1');
    }
    if (
      rule.operations !== undefined &&
      !(Array.isArray(rule.operations) && rule.operations.every((o) => typeof o === 'string'))
    )
      bad(`${p}.operations`, 'must be an array of operation ids');
    if (rule.alterShape !== undefined) checkAlteration(`${p}.alterShape`, rule.alterShape, bad);
    if (rule.path !== undefined) {
      if (typeof rule.path !== 'string') bad(`${p}.path`, 'must be a string');
      try {
        new RegExp(rule.path as string);
      } catch {
        bad(`${p}.path`, 'invalid regular expression');
      }
    }
  }
  return v as unknown as FaultProfile;
}

function checkAlteration(at: string, value: unknown, bad: (path: string, problem: string) => never): void {
  const shapes = 'must be {"drop": PATH}, {"rename": PATH, "to": NAME} or {"retype": PATH}';
  if (typeof value !== 'object' || value === null || Array.isArray(value)) bad(at, shapes);
  const a = value as Record<string, unknown>;
  const keys = Object.keys(a).sort().join(',');
  if (keys !== 'drop' && keys !== 'rename,to' && keys !== 'retype') bad(at, shapes);
  for (const [k, v] of Object.entries(a))
    if (typeof v !== 'string' || v === '' || (k === 'to' && v.includes('.'))) bad(`${at}.${k}`, 'must be a name path');
}

/** A copy of `body` with one alteration applied at every place its path finds (faults.ts `alterShape`). */
export function alterShape(body: unknown, alteration: ShapeAlteration): unknown {
  const copy = structuredClone(body);
  const path = 'drop' in alteration ? alteration.drop : 'rename' in alteration ? alteration.rename : alteration.retype;
  const names = path.split('.');
  const visit = (node: unknown, depth: number): void => {
    if (typeof node !== 'object' || node === null) return;
    const o = node as Record<string, unknown>;
    const name = names[depth]!;
    const keys = name === '*' ? Object.keys(o) : Object.hasOwn(o, name) ? [name] : [];
    for (const key of keys) {
      if (depth < names.length - 1) visit(o[key], depth + 1);
      else if ('drop' in alteration) delete o[key];
      else if ('rename' in alteration) {
        o[alteration.to] = o[key];
        delete o[key];
      } else o[key] = typeof o[key] === 'number' ? String(o[key]) : 0;
    }
  };
  visit(copy, 0);
  return copy;
}

export function loadFaultProfile(file: string): FaultProfile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new FaultProfileError(`faults: cannot read ${file}: ${(e as Error).message}`);
  }
  try {
    return parseFaultProfile(JSON.parse(text));
  } catch (e) {
    if (e instanceof FaultProfileError) throw e;
    throw new FaultProfileError(`faults: ${file} is not valid JSON`);
  }
}

/** What the server should do to one request. */
export interface RequestFaults {
  delayMs: number;
  serverError?: { status: number; nonJson: boolean };
  retryAfterSeconds?: number;
  cookieMissing: boolean;
  sessionExpiresAfterRequests?: number;
  /**
   * A rule's `heldSessions` taken on this request: the server holds this many sessions of its user elsewhere
   * (`SessionStore.holdElsewhere`) before handling it. When several rules take theirs on the same request, the last
   * one in the profile wins (each replaces the count).
   */
  heldSessions?: number;
}

interface ActiveRule {
  rule: FaultRule;
  path?: RegExp;
  fired: number;
  /** Requests matched so far (for `after`). */
  seen: number;
  /** The rule's `heldSessions` have been taken (once per rule). */
  held: boolean;
}

export class FaultInjector {
  private rules: ActiveRule[] = [];
  private rng = new Rng(1);

  constructor(profile?: FaultProfile) {
    if (profile) this.set(profile);
  }

  set(profile: FaultProfile): void {
    const p = parseFaultProfile(profile);
    this.rng = new Rng(p.seed ?? 1);
    this.rules = p.rules.map((rule) => ({
      rule,
      ...(rule.path ? { path: new RegExp(rule.path) } : {}),
      fired: 0,
      seen: 0,
      held: false,
    }));
  }

  clear(): void {
    this.rules = [];
  }

  /** A profile is set: answers may deliberately differ from the documented ones. */
  get active(): boolean {
    return this.rules.length > 0;
  }

  /**
   * The JSON answer of a request with the profile's `alterShape` rules applied. Called after forRequest for the same
   * request, which has already counted it towards `after`. An answer a handler serialized itself (to keep its member
   * order) is parsed and serialized again: altered, integer-like member names may come in ascending order.
   */
  alterAnswer(operationId: string, path: string, body: unknown): unknown {
    if (typeof body === 'string') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return body;
      }
      const altered = this.alterAnswer(operationId, path, parsed);
      return altered === parsed ? body : JSON.stringify(altered);
    }
    let out = body;
    for (const r of this.rules) {
      const { rule } = r;
      if (!rule.alterShape || (rule.times !== undefined && r.fired >= rule.times)) continue;
      if ((rule.operations && !rule.operations.includes(operationId)) || (r.path && !r.path.test(path))) continue;
      if (r.seen <= (rule.after ?? 0)) continue;
      out = alterShape(out, rule.alterShape);
      r.fired++;
    }
    return out;
  }

  private matching(operationId: string | undefined, path: string): ActiveRule[] {
    return this.rules.filter(
      (r) =>
        (r.rule.times === undefined || r.fired < r.rule.times) &&
        (!r.rule.operations || (operationId !== undefined && r.rule.operations.includes(operationId))) &&
        (!r.path || r.path.test(path)) &&
        ++r.seen > (r.rule.after ?? 0),
    );
  }

  private roll(rate: number | undefined): boolean {
    return rate !== undefined && rate > 0 && this.rng.next() < rate;
  }

  forRequest(operationId: string, path: string): RequestFaults {
    const out: RequestFaults = { delayMs: 0, cookieMissing: false };
    for (const r of this.matching(operationId, path)) {
      const { rule } = r;
      let fired = false;
      if (rule.latencyMs || rule.jitterMs) {
        out.delayMs += (rule.latencyMs ?? 0) + (rule.jitterMs ? this.rng.next() * rule.jitterMs : 0);
        fired = true;
      }
      if (!out.serverError && this.roll(rule.serverErrorRate)) {
        out.serverError = { status: rule.serverErrorStatus ?? 503, nonJson: rule.nonJsonBody === true };
        fired = true;
      }
      if (out.retryAfterSeconds === undefined && this.roll(rule.rateLimitRate)) {
        out.retryAfterSeconds = rule.retryAfterSeconds ?? 1;
        fired = true;
      }
      if (!out.cookieMissing && this.roll(rule.cookieMissingRate)) {
        out.cookieMissing = true;
        fired = true;
      }
      if (rule.sessionExpiresAfterRequests !== undefined)
        out.sessionExpiresAfterRequests = rule.sessionExpiresAfterRequests;
      if (rule.heldSessions !== undefined && !r.held) {
        r.held = true;
        out.heldSessions = rule.heldSessions;
        fired = true;
      }
      if (fired) r.fired++;
    }
    return out;
  }

  forDownload(key: string): DownloadFault | undefined {
    let fault: DownloadFault | undefined;
    for (const r of this.matching(undefined, key)) {
      const { rule } = r;
      const f: DownloadFault = {};
      if (this.roll(rule.truncateDownloadRate)) f.truncate = true;
      if (this.roll(rule.stallDownloadRate)) f.stall = true;
      if (this.roll(rule.expiredDownloadRate)) f.expired = true;
      if (this.roll(rule.corruptDownloadRate)) f.corrupt = true;
      if (rule.downloadBytesPerSecond) f.bytesPerSecond = rule.downloadBytesPerSecond;
      if (Object.keys(f).length > 0) {
        r.fired++;
        fault = { ...fault, ...f };
      }
    }
    return fault;
  }

  openFilesUnavailable(path: string): boolean {
    return this.matching(undefined, path).some((r) => r.rule.openFilesUnavailable === true);
  }
}
