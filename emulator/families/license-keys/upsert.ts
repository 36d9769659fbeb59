/**
 * The upsert of `updateLicenseKeys`/`insertLicenseKeys` (docs/interface.md "License key registry"). Each item is
 * validated completely before it touches the registry, so a failing item (a bad value, or a member the interface does
 * not define) changes nothing; its 400-style message goes to `failed` and the batch goes on.
 */
import type { Day } from '../../data/dates.ts';
import { findKey, storedRecord } from '../../data/license-bulk.ts';
import type { LicenseRegistry, LicenseStatus } from '../../data/model.ts';
import { ApiError } from '../../http/errors.ts';
import { onlyKnownFields } from '../../http/known-fields.ts';
import { asObject, at, dateValue, isObject, optBool, reqInt, reqString } from '../../http/validate.ts';
import { LICENSE_FLAGS } from './records.ts';

interface KeyUpdate {
  licenseKey: string;
  licenseType?: string;
  licenseStatus?: Partial<LicenseStatus>;
  expiryDate?: Day | null;
  quota?: number | null;
}

export interface UpsertResult {
  inserted: number;
  updated: number;
  failed: { licenseKey: string | null; message: string }[];
}

/** The members an item may set. */
const WRITABLE = ['licenseKey', 'licenseType', 'licenseStatus', 'expiryDate', 'quota'] as const;
/** The record's derived and service-set members: a client may send a record back as it read it; they are ignored. */
const READ_ONLY = ['addedDate', 'autoCollected', 'clientCount', 'overQuotaCount', 'lastSeenDate'] as const;

/**
 * Reads one item; read-only members are ignored, unknown ones fail the item (naming the member it may have meant,
 * so a misspelt field is not dropped silently); null counts as absent except where it clears.
 */
function readUpdate(o: unknown, path: string): KeyUpdate {
  const item = asObject(o, path);
  onlyKnownFields(item, path, WRITABLE, READ_ONLY);
  const u: KeyUpdate = { licenseKey: reqString(item, 'licenseKey', path, { min: 1, max: 256 }) };
  if (item.licenseType !== undefined && item.licenseType !== null)
    u.licenseType = reqString(item, 'licenseType', path, { min: 1, max: 256 });
  if (item.licenseStatus !== undefined && item.licenseStatus !== null) {
    const sp = at(path, 'licenseStatus');
    const s = asObject(item.licenseStatus, sp);
    onlyKnownFields(s, sp, LICENSE_FLAGS, [], 'flag');
    const flags: Partial<LicenseStatus> = {};
    for (const flag of LICENSE_FLAGS) {
      const v = optBool(s, flag, sp);
      if (v !== undefined) flags[flag] = v;
    }
    u.licenseStatus = flags;
  }
  if (item.expiryDate !== undefined)
    u.expiryDate = item.expiryDate === null ? null : dateValue(item.expiryDate, at(path, 'expiryDate'));
  if (item.quota !== undefined) u.quota = item.quota === null ? null : reqInt(item, 'quota', path, { min: 0 });
  return u;
}

/** Applies `items` in order; returns the counts. The caller persists the registry when anything changed. */
export function upsertKeys(reg: LicenseRegistry, items: readonly unknown[], today: Day): UpsertResult {
  const result: UpsertResult = { inserted: 0, updated: 0, failed: [] };
  items.forEach((item, j) => {
    let u: KeyUpdate;
    try {
      u = readUpdate(item, at('keyUpdates', j));
    } catch (e) {
      if (!(e instanceof ApiError) || e.status !== 400) throw e;
      const key = isObject(item) && typeof item.licenseKey === 'string' ? item.licenseKey : null;
      result.failed.push({ licenseKey: key, message: e.message });
      return;
    }
    let k = findKey(reg, u.licenseKey);
    if (k === undefined) {
      k = reg.records.length;
      reg.index.set(u.licenseKey, k);
      reg.records.push({
        licenseKey: u.licenseKey,
        licenseType: 'unknown',
        licenseStatus: { activated: false, allowed: false, blocked: false, expired: false },
        expiryDate: null,
        addedDate: today,
        autoCollected: false,
        quota: null,
      });
      result.inserted++;
    } else result.updated++;
    const rec = storedRecord(reg, k);
    reg.changed.add(k);
    if (u.licenseType !== undefined) rec.licenseType = u.licenseType;
    if (u.licenseStatus) Object.assign(rec.licenseStatus, u.licenseStatus);
    if (u.expiryDate !== undefined) rec.expiryDate = u.expiryDate;
    if (u.quota !== undefined) rec.quota = u.quota;
  });
  return result;
}
