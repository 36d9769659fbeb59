/**
 * A license key as the license jobs use it: the registry record of searchLicenseKeys
 * (docs/interface.md "License key registry") with every member present and checked. The client types the record
 * loosely (the registry contract is an open point), so a record the jobs cannot read is refused here with the reason,
 * instead of being guessed at.
 */
import type { LicenseKeyRecord } from '../../client/index.ts';

export interface RegistryKey {
  licenseKey: string;
  licenseType: string;
  status: { activated: boolean; allowed: boolean; blocked: boolean; expired: boolean };
  /** `YYYY-MM-DD`, or null for a key that never expires. */
  expiryDate: string | null;
  addedDate: string | null;
  autoCollected: boolean;
  /** Clients allowed; null = no quota. */
  quota: number | null;
  /** Distinct clients that have reported the key. */
  clientCount: number;
  /** `clientCount − quota`; > 0 means over quota. */
  overQuotaCount: number;
  /** Last day a client reported the key, or null. */
  lastSeenDate: string | null;
}

/** The key, or why the record cannot be used (the caller reports it and goes on). */
export function toRegistryKey(record: LicenseKeyRecord): RegistryKey | { problem: string } {
  const key = record.licenseKey;
  if (typeof key !== 'string' || key.length === 0 || key.length > 256) {
    return { problem: 'a registry record without a valid licenseKey (1–256 characters)' };
  }
  const status = record.licenseStatus ?? {};
  return {
    licenseKey: key,
    licenseType: record.licenseType ?? 'unknown',
    status: {
      activated: status.activated === true,
      allowed: status.allowed === true,
      blocked: status.blocked === true,
      expired: status.expired === true,
    },
    expiryDate: record.expiryDate ?? null,
    addedDate: record.addedDate ?? null,
    autoCollected: record.autoCollected === true,
    quota: record.quota ?? null,
    clientCount: record.clientCount ?? 0,
    overQuotaCount: record.overQuotaCount ?? 0,
    lastSeenDate: record.lastSeenDate ?? null,
  };
}
