/**
 * One alert: a key in a stage, for one recipient. Only what the email, the CSV and the ledger need is kept (not the
 * whole registry record); during a run the alerts wait on disk, one `AlertRow` a line.
 */

import { licenseAlertLedgerKey } from '../../core/delivery/ledger-keys.ts';
import type { RegistryKey } from '../shared/registry-key.ts';
import type { Label } from './labels.ts';
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

/** One (product, license key): what usage is fetched for and what "keys" count (a key may be in two stages). */
export const keyIdOf = (productId: string, licenseKey: string): string => `${productId}\u0000${licenseKey}`;

/** An alert with its usage and labels, as the email shows it. */
export interface ShownAlert extends Alert {
  usage: KeyUsage;
  labels: Label[];
}

/**
 * An alert as one line of a recipient's spool (alert-spool.ts), its fields in a fixed order; the ledger key is not
 * stored but built again from them (`fromAlertRow`).
 */
export type AlertRow = [
  productId: string,
  licenseKey: string,
  licenseType: string,
  expiryDate: string | null,
  clientCount: number,
  overQuotaCount: number,
  lastSeenDate: string | null,
  stage: Stage,
  daysLeft: number | null,
  expiredInUse: 0 | 1,
];

export const toAlertRow = (a: Omit<Alert, 'ledgerKey'>): AlertRow => [
  a.productId,
  a.key.licenseKey,
  a.key.licenseType,
  a.key.expiryDate,
  a.key.clientCount,
  a.key.overQuotaCount,
  a.key.lastSeenDate,
  a.stage,
  a.daysLeft,
  a.expiredInUse ? 1 : 0,
];

/** The alert of `row` for `recipient`. */
export function fromAlertRow(row: AlertRow, recipient: LicenseRecipient): Alert {
  const [productId, licenseKey, licenseType, expiryDate, clientCount, overQuotaCount, lastSeenDate, stage] = row;
  return {
    productId,
    key: { licenseKey, licenseType, expiryDate, clientCount, overQuotaCount, lastSeenDate },
    stage,
    daysLeft: row[8],
    expiredInUse: row[9] === 1,
    ledgerKey: licenseAlertLedgerKey({ productId, licenseKey, stage, expiryDate, address: recipient.address }),
  };
}
