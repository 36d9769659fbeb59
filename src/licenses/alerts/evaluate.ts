/**
 * Evaluates each key as the registry streams past: its recipients (routing), and for each recipient whose turn it
 * is, the stages the key is in on that recipient's local date. Keys without an alert are dropped at once; each alert
 * goes to `onAlert` (the run's spool), so nothing here grows with the registry.
 */
import type { LicensesConfig } from '../../config/schema.ts';
import { localDateTime } from '../../core/calendar.ts';
import type { RegistryKey } from '../shared/registry-key.ts';
import type { Alert } from './alert.ts';
import { type LicenseRecipient, routerFor } from './routing.ts';
import { daysUntil, isExpiredInUse, type StageRules, stagesOf } from './stage.ts';

export interface Evaluator {
  /** Hands on the alerts of one key. */
  add(productId: string, key: RegistryKey): void;
}

/** An alert for a recipient, without its ledger key (built from the fields where it is claimed). */
export type OnAlert = (recipient: LicenseRecipient, alert: Omit<Alert, 'ledgerKey'>) => void;

export function evaluator(
  config: LicensesConfig,
  now: Date,
  /** Whether this recipient is told in this run (scheduled runs: once its send time has passed). */
  isTurn: (recipient: LicenseRecipient) => boolean,
  onAlert: OnAlert,
): Evaluator {
  const route = routerFor(config);
  const rules: StageRules = { ...config.stages, blockedSeenWithinDays: config.inUse.blockedSeenWithinDays };
  const serviceToday = now.toISOString().slice(0, 10);
  const localDates = new Map<string, string>();
  const localDate = (timeZone: string) => {
    const known = localDates.get(timeZone);
    if (known !== undefined) return known;
    const date = localDateTime(now, timeZone).date;
    localDates.set(timeZone, date);
    return date;
  };
  const turns = new Map<LicenseRecipient, boolean>();
  return {
    add(productId, key) {
      for (const recipient of route(productId, key)) {
        if (!turns.has(recipient)) turns.set(recipient, isTurn(recipient));
        if (!turns.get(recipient)) continue;
        const today = localDate(recipient.timeZone);
        const stages = stagesOf(key, today, serviceToday, rules);
        if (stages.length === 0) continue;
        const daysLeft = key.expiryDate === null ? null : daysUntil(key.expiryDate, today);
        const expiredInUse = isExpiredInUse(key, today);
        for (const stage of stages) onAlert(recipient, { productId, key, stage, daysLeft, expiredInUse });
      }
    },
  };
}
