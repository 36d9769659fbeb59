/**
 * The ledger keys of the license jobs: one per license alert and one per license report delivery (below).
 *
 * The ledger key of one license alert: (product, key, stage, expiry date, recipient). The license key is free text
 * (`#`, spaces, any unicode), so it is percent-encoded, which keeps `#` as the only separator; a key whose encoding
 * would be long is replaced by its SHA-256, so the whole ledger key stays far below DynamoDB's 2,048-byte limit.
 */
import { createHash } from 'node:crypto';
import type { Stage } from './stage.ts';

const MAX_ENCODED = 400;

export function encodeLicenseKey(licenseKey: string): string {
  const encoded = encodeURIComponent(licenseKey);
  if (encoded.length <= MAX_ENCODED) return encoded;
  return `sha256-${createHash('sha256').update(licenseKey, 'utf8').digest('hex')}`;
}

export const LICENSE_ALERT_PREFIX = 'license-alert#';

export const licenseAlertLedgerKey = (a: {
  productId: string;
  licenseKey: string;
  stage: Stage;
  expiryDate: string | null;
  address: string;
}): string =>
  `${LICENSE_ALERT_PREFIX}${a.productId}#${encodeLicenseKey(a.licenseKey)}#${a.stage}#${a.expiryDate ?? 'none'}#${a.address.toLowerCase()}`;

/** The ledger key of one delivery of the weekly license report: (ISO week, recipient). */
export const licenseReportLedgerKey = (isoWeek: string, address: string) =>
  `license-report#${isoWeek}#${address.toLowerCase()}`;

/** The parts of a licenseReportLedgerKey (the mail events name a delivery by its key); undefined for any other. */
export function parseLicenseReportLedgerKey(key: string): { isoWeek: string; address: string } | undefined {
  const m = /^license-report#(\d{4}-W\d{2})#(.+)$/.exec(key);
  return m ? { isoWeek: m[1]!, address: m[2]! } : undefined;
}
