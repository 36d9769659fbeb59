/**
 * What a sync row changes in the registry: nothing (`unchanged`, not sent — so running a file again sends nothing), a
 * new key (`inserted`, sent with every field the row sets) or the fields that differ from the registry's record
 * (`updated`, sent with those fields only: the upsert leaves the others as they are,
 * docs/interface.md "License key registry").
 */
import type { LicenseKeyUpdate } from '../../client/index.ts';
import type { RegistryKey } from '../shared/registry-key.ts';

const FLAGS = ['activated', 'allowed', 'blocked', 'expired'] as const;

export interface RowDiff {
  outcome: 'inserted' | 'updated' | 'unchanged';
  /** `field: old → new` per change (`field: new` for a new key), for people. */
  changes: string[];
  /** The update to send, or undefined when nothing changes. */
  send: LicenseKeyUpdate | undefined;
}

const shown = (v: string | number | boolean | null): string => (v === null ? 'none' : String(v));

export function diffRow(update: LicenseKeyUpdate, existing: RegistryKey | undefined): RowDiff {
  if (!existing) {
    const changes: string[] = [];
    if (update.licenseType !== undefined) changes.push(`licenseType: ${update.licenseType}`);
    for (const flag of FLAGS) {
      const v = update.licenseStatus?.[flag];
      if (v !== undefined) changes.push(`${flag}: ${v}`);
    }
    if (update.expiryDate !== undefined) changes.push(`expiryDate: ${shown(update.expiryDate)}`);
    if (update.quota !== undefined) changes.push(`quota: ${shown(update.quota)}`);
    return { outcome: 'inserted', changes, send: update };
  }
  const send: LicenseKeyUpdate = { licenseKey: update.licenseKey };
  const changes: string[] = [];
  const change = (field: string, from: string | number | boolean | null, to: string | number | boolean | null) =>
    changes.push(`${field}: ${shown(from)} → ${shown(to)}`);
  if (update.licenseType !== undefined && update.licenseType !== existing.licenseType) {
    change('licenseType', existing.licenseType, update.licenseType);
    send.licenseType = update.licenseType;
  }
  for (const flag of FLAGS) {
    const v = update.licenseStatus?.[flag];
    if (v === undefined || v === existing.status[flag]) continue;
    change(flag, existing.status[flag], v);
    send.licenseStatus = { ...send.licenseStatus, [flag]: v };
  }
  if (update.expiryDate !== undefined && update.expiryDate !== existing.expiryDate) {
    change('expiryDate', existing.expiryDate, update.expiryDate);
    send.expiryDate = update.expiryDate;
  }
  if (update.quota !== undefined && update.quota !== existing.quota) {
    change('quota', existing.quota, update.quota);
    send.quota = update.quota;
  }
  return changes.length === 0
    ? { outcome: 'unchanged', changes, send: undefined }
    : { outcome: 'updated', changes, send };
}
