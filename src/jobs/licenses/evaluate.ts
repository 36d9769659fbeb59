/**
 * Evaluates each key as the registry streams past: its recipients (routing), and for each recipient whose turn it
 * is, the stages the key is in on that recipient's local date. Keys without an alert are dropped at once; the
 * alerts are kept per recipient.
 */
import type { LicensesConfig } from '../../config/schema.ts';
import { localDateTime } from '../digest/week.ts';
import { type Alert, type RecipientAlerts, slimKey } from './alert.ts';
import { licenseAlertLedgerKey } from './ledger-key.ts';
import type { RegistryKey } from './registry-key.ts';
import { type LicenseRecipient, routerFor } from './routing.ts';
import { daysUntil, isExpiredInUse, type StageRules, stagesOf } from './stage.ts';

export interface Evaluator {
  /** Adds the alerts of one key. */
  add(productId: string, key: RegistryKey): void;
  /** Per recipient (by address), in the order first met. */
  readonly byRecipient: Map<string, RecipientAlerts>;
}

export function evaluator(
  config: LicensesConfig,
  now: Date,
  /** Whether this recipient is told in this run (scheduled runs: once its send time has passed). */
  isTurn: (recipient: LicenseRecipient) => boolean,
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
  const byRecipient = new Map<string, RecipientAlerts>();
  return {
    byRecipient,
    add(productId, key) {
      for (const recipient of route(productId, key)) {
        if (!turns.has(recipient)) turns.set(recipient, isTurn(recipient));
        if (!turns.get(recipient)) continue;
        const today = localDate(recipient.timeZone);
        const stages = stagesOf(key, today, serviceToday, rules);
        if (stages.length === 0) continue;
        const address = recipient.address.toLowerCase();
        const entry = byRecipient.get(address) ?? { recipient, alerts: [] };
        byRecipient.set(address, entry);
        const slim = slimKey(key);
        for (const stage of stages) {
          const alert: Alert = {
            productId,
            key: slim,
            stage,
            daysLeft: key.expiryDate === null ? null : daysUntil(key.expiryDate, today),
            expiredInUse: isExpiredInUse(key, today),
            ledgerKey: licenseAlertLedgerKey({
              productId,
              licenseKey: key.licenseKey,
              stage,
              expiryDate: key.expiryDate,
              address,
            }),
          };
          entry.alerts.push(alert);
        }
      }
    },
  };
}
