/**
 * Which alert stages a license key is in on a recipient's local calendar day: pure, no clock, no zone. Days are
 * counted between calendar dates (UTC day numbers of `YYYY-MM-DD`), never as 24-hour offsets, so a DST change or a
 * leap day cannot shift a stage: a key expiring 2026-12-01 is "1 day" on 2026-11-30 wherever the recipient is.
 *
 * A key is in at most one expiry stage, the most urgent one it has reached: a run that missed the 14-day stage and
 * finds the key at 5 days sends the 7-day stage only, never the skipped ones as a burst. Condition stages
 * (over quota, blocked or expired but still in use) come on top. The ledger key of an alert holds the expiry date,
 * so a renewed key (expiry moved) starts its stages again.
 */
import { dayNumber, type IsoDate } from '../../core/calendar.ts';
import type { RegistryKey } from '../shared/registry-key.ts';

export interface StageRules {
  /** Most distant first (the config sorts them). */
  daysBefore: number[];
  onExpiryDay: boolean;
  /** Most distant first. */
  daysAfter: number[];
  /** A blocked key is in use when a client reported it within this many days. */
  blockedSeenWithinDays: number;
}

/** `before-7`, `expiry-day`, `after-30`, or a condition. */
export type Stage = `before-${number}` | 'expiry-day' | `after-${number}` | ConditionStage;
export type ConditionStage = 'blocked-in-use' | 'expired-in-use' | 'over-quota';

/**
 * The last after-expiry stage stays current this many days, so a week of missed runs still sends it; past that an
 * expired key alerts again only while it is still in use (`expired-in-use`).
 */
export const LAST_STAGE_GRACE_DAYS = 7;

/** Days from `today` to `expiryDate` (negative once expired; 0 on the expiry day). */
export const daysUntil = (expiryDate: IsoDate, today: IsoDate): number => dayNumber(expiryDate) - dayNumber(today);

/** The expiry stage a key with `daysLeft` is in, or null (not yet in the first stage, or long expired). */
export function expiryStage(daysLeft: number, rules: Pick<StageRules, 'daysBefore' | 'onExpiryDay' | 'daysAfter'>) {
  if (daysLeft === 0 && rules.onExpiryDay) return 'expiry-day' as const;
  if (daysLeft >= 0) {
    // The nearest stage not after today: at 5 days left with stages 14 and 7, the 7-day stage.
    const reached = rules.daysBefore.filter((d) => d >= daysLeft);
    return reached.length > 0 ? (`before-${Math.min(...reached)}` as const) : null;
  }
  const since = -daysLeft;
  const reached = rules.daysAfter.filter((d) => d <= since);
  if (reached.length === 0) return null;
  const stage = Math.max(...reached);
  if (stage === Math.max(...rules.daysAfter) && since >= stage + LAST_STAGE_GRACE_DAYS) return null;
  return `after-${stage}` as const;
}

/** Every stage the key is in on `today` (the recipient's local date); `serviceToday` dates the usage (UTC). */
export function stagesOf(key: RegistryKey, today: IsoDate, serviceToday: IsoDate, rules: StageRules): Stage[] {
  const stages: Stage[] = [];
  const blockedInUse =
    key.status.blocked &&
    key.lastSeenDate !== null &&
    daysUntil(serviceToday, key.lastSeenDate) < rules.blockedSeenWithinDays;
  if (blockedInUse) stages.push('blocked-in-use');
  if (key.expiryDate !== null && !key.status.blocked) {
    const stage = expiryStage(daysUntil(key.expiryDate, today), rules);
    if (stage) stages.push(stage);
    else if (isExpiredInUse(key, today)) stages.push('expired-in-use');
  }
  if (key.overQuotaCount > 0) stages.push('over-quota');
  return stages;
}

/** Expired (by the recipient's date) and a client reported the key after its expiry date. */
export function isExpiredInUse(key: RegistryKey, today: IsoDate): boolean {
  return (
    key.expiryDate !== null &&
    daysUntil(key.expiryDate, today) < 0 &&
    key.lastSeenDate !== null &&
    key.lastSeenDate > key.expiryDate
  );
}

/**
 * Urgency: lower first. Money leaking now, then the expiry stages by their distance from the expiry day (the day
 * itself, then 1 day before, 1 day after, …), then over quota.
 */
export function urgencyOf(stage: Stage): number {
  if (stage === 'blocked-in-use') return 0;
  if (stage === 'expired-in-use') return 1;
  if (stage === 'expiry-day') return 2;
  if (stage === 'over-quota') return 1_000_000;
  const [side, days] = stage.split('-') as [string, string];
  return 2 + Number(days) * 2 + (side === 'after' ? 1 : 0);
}

/** Heading of a stage in the email. */
export function stageTitle(stage: Stage): string {
  if (stage === 'blocked-in-use') return 'Blocked but still in use';
  if (stage === 'expired-in-use') return 'Expired but still in use';
  if (stage === 'over-quota') return 'Over quota';
  if (stage === 'expiry-day') return 'Expires today';
  const [side, days] = stage.split('-') as [string, string];
  const n = `${days} day${days === '1' ? '' : 's'}`;
  return side === 'before' ? `Expires within ${n}` : `Expired at least ${n} ago`;
}

/**
 * The order a key goes through its stages, for every count listing (`--json` counts, the dry run's table, the run's
 * lines): the expiry stages from the farthest before to the last after (`before-60` … `expiry-day` … `after-30`),
 * then `expired-in-use`, `blocked-in-use` and `over-quota`. Lower first.
 */
export function lifecycleRank(stage: Stage): number {
  if (stage === 'expiry-day') return 0;
  if (stage === 'expired-in-use') return 100_000;
  if (stage === 'blocked-in-use') return 100_001;
  if (stage === 'over-quota') return 100_002;
  const [side, days] = stage.split('-') as [string, string];
  return side === 'before' ? -Number(days) : Number(days);
}

export const byLifecycle = (a: Stage, b: Stage): number => lifecycleRank(a) - lifecycleRank(b);
