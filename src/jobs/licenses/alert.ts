/**
 * One alert: a key in a stage, for one recipient. Only what the email, the CSV and the ledger need is kept (not the
 * whole registry record), so the alerts held during a run stay small next to the keys streamed past.
 */
import type { Label } from './labels.ts';
import type { RegistryKey } from './registry-key.ts';
import type { LicenseRecipient } from './routing.ts';
import type { Stage } from './stage.ts';
import type { KeyUsage } from './usage.ts';

export type AlertKey = Pick<
  RegistryKey,
  'licenseKey' | 'licenseType' | 'expiryDate' | 'clientCount' | 'overQuotaCount' | 'lastSeenDate'
>;

export interface Alert {
  productId: string;
  key: AlertKey;
  stage: Stage;
  /** Days to expiry on the recipient's local date (negative once expired); null without an expiry date. */
  daysLeft: number | null;
  /** Expired and reported after its expiry date. */
  expiredInUse: boolean;
  ledgerKey: string;
}

/** An alert with its usage and labels, as the email shows it. */
export interface ShownAlert extends Alert {
  usage: KeyUsage;
  labels: Label[];
}

/** Everything one recipient may be told in this run. */
export interface RecipientAlerts {
  recipient: LicenseRecipient;
  alerts: Alert[];
}

export const slimKey = (k: RegistryKey): AlertKey => ({
  licenseKey: k.licenseKey,
  licenseType: k.licenseType,
  expiryDate: k.expiryDate,
  clientCount: k.clientCount,
  overQuotaCount: k.overQuotaCount,
  lastSeenDate: k.lastSeenDate,
});
