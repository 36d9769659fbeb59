/**
 * The figures of the weekly license registry report, accumulated key by key as the registry streams in (nothing per
 * key is kept: memory holds counters, and at most MAX_TYPES license types), summed over products, and laid out as
 * rows with their week-over-week change. Definitions (docs/licenses.md "Weekly license registry report"):
 *
 * - expired: the `expired` flag, or an expiry date before the report's date;
 * - expiring within N days: not expired, expiry date at most N days after the report's date (30 ⊂ 60 ⊂ 90);
 * - over quota: `overQuotaCount > 0`;
 * - revenue leak: an expired key last seen after its expiry date, or a blocked key last seen within
 *   `licenses.inUse.blockedSeenWithinDays` days (a key that is both counts once in the total);
 * - active trial: a key of a trial type (`licenses.trialTypes`) that is not expired; converted in the week: a trial
 *   last week, of another type now; lost: an active trial last week, an expired trial now (trial-changes.ts).
 */
import { addDays } from '../../core/calendar.ts';
import type { RegistryKey } from '../shared/registry-key.ts';

/** License types listed one by one; any further types are summed under OTHER_TYPES. */
export const MAX_TYPES = 40;
export const OTHER_TYPES = '(other types)';

export interface RegistryFigures {
  keys: number;
  /** Most keys first (ties by name), at most MAX_TYPES + 1 entries. */
  byType: { type: string; keys: number }[];
  byStatus: { activated: number; allowed: number; blocked: number; expired: number };
  expiring: { within30: number; within60: number; within90: number };
  overQuota: number;
  revenueLeaks: { total: number; expiredInUse: number; blockedInUse: number };
  /** `converted` and `lost` are null without a previous week's snapshot to compare with. */
  trials: { active: number; converted: number | null; lost: number | null };
}

export interface FigureRules {
  /** The report's date (YYYY-MM-DD): expiry and "in use" are counted from it. */
  today: string;
  trialTypes: readonly string[];
  blockedSeenWithinDays: number;
}

/** Whether a key is expired on `today` (flag or date). */
export const isExpired = (key: Pick<RegistryKey, 'status' | 'expiryDate'>, today: string): boolean =>
  key.status.expired || (key.expiryDate !== null && key.expiryDate < today);

export class FigureAccumulator {
  readonly #rules: FigureRules;
  readonly #trials: Set<string>;
  readonly #in: { d30: string; d60: string; d90: string; seenSince: string };
  readonly #types = new Map<string, number>();
  #f = emptyFigures();

  constructor(rules: FigureRules) {
    this.#rules = rules;
    this.#trials = new Set(rules.trialTypes);
    const { today } = rules;
    this.#in = {
      d30: addDays(today, 30),
      d60: addDays(today, 60),
      d90: addDays(today, 90),
      seenSince: addDays(today, -rules.blockedSeenWithinDays),
    };
  }

  isTrial(type: string): boolean {
    return this.#trials.has(type);
  }

  add(key: RegistryKey): void {
    const f = this.#f;
    f.keys++;
    const type = this.#types.has(key.licenseType) || this.#types.size < MAX_TYPES ? key.licenseType : OTHER_TYPES;
    this.#types.set(type, (this.#types.get(type) ?? 0) + 1);
    for (const flag of ['activated', 'allowed', 'blocked', 'expired'] as const)
      if (key.status[flag]) f.byStatus[flag]++;
    const expired = isExpired(key, this.#rules.today);
    if (!expired && key.expiryDate !== null) {
      if (key.expiryDate <= this.#in.d30) f.expiring.within30++;
      if (key.expiryDate <= this.#in.d60) f.expiring.within60++;
      if (key.expiryDate <= this.#in.d90) f.expiring.within90++;
    }
    if (key.overQuotaCount > 0) f.overQuota++;
    const seen = key.lastSeenDate;
    const expiredInUse = expired && seen !== null && key.expiryDate !== null && seen > key.expiryDate;
    const blockedInUse = key.status.blocked && seen !== null && seen >= this.#in.seenSince;
    if (expiredInUse) f.revenueLeaks.expiredInUse++;
    if (blockedInUse) f.revenueLeaks.blockedInUse++;
    if (expiredInUse || blockedInUse) f.revenueLeaks.total++;
    if (!expired && this.isTrial(key.licenseType)) f.trials.active++;
  }

  /** A trial change found by comparing with last week's snapshot. */
  trialChange(change: 'converted' | 'lost'): void {
    const t = this.#f.trials;
    t[change] = (t[change] ?? 0) + 1;
  }

  /** The figures so far; `compared`: a previous snapshot was read, so no change found means 0, not unknown. */
  figures(compared: boolean): RegistryFigures {
    const byType = [...this.#types].map(([type, keys]) => ({ type, keys })).sort(byKeysThenName);
    const t = this.#f.trials;
    return {
      ...structuredClone(this.#f),
      byType,
      trials: {
        active: t.active,
        converted: compared ? (t.converted ?? 0) : null,
        lost: compared ? (t.lost ?? 0) : null,
      },
    };
  }
}

const byKeysThenName = (a: { type: string; keys: number }, b: { type: string; keys: number }) =>
  b.keys - a.keys || (a.type < b.type ? -1 : a.type > b.type ? 1 : 0);

export function emptyFigures(): RegistryFigures {
  return {
    keys: 0,
    byType: [],
    byStatus: { activated: 0, allowed: 0, blocked: 0, expired: 0 },
    expiring: { within30: 0, within60: 0, within90: 0 },
    overQuota: 0,
    revenueLeaks: { total: 0, expiredInUse: 0, blockedInUse: 0 },
    trials: { active: 0, converted: null, lost: null },
  };
}

/** The figures of several products added up (a trial count is unknown in the total if unknown for any product). */
export function sumFigures(all: readonly RegistryFigures[]): RegistryFigures {
  const total = emptyFigures();
  const types = new Map<string, number>();
  const add = (a: number | null, b: number | null) => (a === null || b === null ? null : a + b);
  total.trials.converted = 0;
  total.trials.lost = 0;
  for (const f of all) {
    total.keys += f.keys;
    for (const t of f.byType) types.set(t.type, (types.get(t.type) ?? 0) + t.keys);
    for (const k of Object.keys(total.byStatus) as (keyof RegistryFigures['byStatus'])[])
      total.byStatus[k] += f.byStatus[k];
    for (const k of Object.keys(total.expiring) as (keyof RegistryFigures['expiring'])[])
      total.expiring[k] += f.expiring[k];
    total.overQuota += f.overQuota;
    for (const k of Object.keys(total.revenueLeaks) as (keyof RegistryFigures['revenueLeaks'])[])
      total.revenueLeaks[k] += f.revenueLeaks[k];
    total.trials.active += f.trials.active;
    total.trials.converted = add(total.trials.converted, f.trials.converted);
    total.trials.lost = add(total.trials.lost, f.trials.lost);
  }
  if (all.length === 0) total.trials = { active: 0, converted: null, lost: null };
  total.byType = [...types].map(([type, keys]) => ({ type, keys })).sort(byKeysThenName);
  return total;
}

/** One line of the report: a figure, its value, and last week's (null: no previous snapshot, or not known then). */
export interface FigureRow {
  /** Stable id (`keys`, `status.blocked`, `type:trial`) that matches a row to last week's. */
  id: string;
  label: string;
  group: 'registry' | 'status' | 'expiring' | 'action' | 'trials' | 'type';
  value: number | null;
  previous: number | null;
}

/** The figures as rows, each with last week's value when `previous` is given. */
export function figureRows(f: RegistryFigures, previous?: RegistryFigures): FigureRow[] {
  const prev = previous ? new Map(rowsOf(previous).map((r) => [r.id, r.value])) : undefined;
  const rows = rowsOf(f);
  // A type that disappeared this week still shows, at 0, so its change is visible.
  if (previous) {
    for (const t of previous.byType)
      if (!f.byType.some((c) => c.type === t.type)) rows.push({ ...typeRow(t.type, 0), previous: null });
  }
  return rows.map((r) => ({ ...r, previous: prev ? (prev.get(r.id) ?? (r.group === 'type' ? 0 : null)) : null }));
}

function rowsOf(f: RegistryFigures): FigureRow[] {
  const row = (id: string, label: string, group: FigureRow['group'], value: number | null): FigureRow => ({
    id,
    label,
    group,
    value,
    previous: null,
  });
  return [
    row('keys', 'Keys in the registry', 'registry', f.keys),
    row('expiring.within30', 'Expiring within 30 days', 'expiring', f.expiring.within30),
    row('expiring.within60', 'Expiring within 60 days', 'expiring', f.expiring.within60),
    row('expiring.within90', 'Expiring within 90 days', 'expiring', f.expiring.within90),
    row('overQuota', 'Over quota', 'action', f.overQuota),
    row('revenueLeaks.total', 'Revenue leaks (expired or blocked, still in use)', 'action', f.revenueLeaks.total),
    row('revenueLeaks.expiredInUse', 'Expired, still in use', 'action', f.revenueLeaks.expiredInUse),
    row('revenueLeaks.blockedInUse', 'Blocked, still in use', 'action', f.revenueLeaks.blockedInUse),
    row('trials.active', 'Active trials', 'trials', f.trials.active),
    row('trials.converted', 'Trials converted this week', 'trials', f.trials.converted),
    row('trials.lost', 'Trials lost this week (expired)', 'trials', f.trials.lost),
    row('status.activated', 'Activated', 'status', f.byStatus.activated),
    row('status.allowed', 'Allowed', 'status', f.byStatus.allowed),
    row('status.blocked', 'Blocked', 'status', f.byStatus.blocked),
    row('status.expired', 'Expired (flag)', 'status', f.byStatus.expired),
    ...f.byType.map((t) => typeRow(t.type, t.keys)),
  ];
}

const typeRow = (type: string, keys: number): FigureRow => ({
  id: `type:${type}`,
  label: type,
  group: 'type',
  value: keys,
  previous: null,
});
