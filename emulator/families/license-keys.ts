/**
 * License key registry family (docs/interface.md "License key registry"): `searchLicenseKeys`, and the upsert that
 * `updateLicenseKeys` (PATCH) and `insertLicenseKeys` (POST) share. Changes land in `pd.registry`, which the reports'
 * licenseStatus filters read too, and are persisted to `--data-dir` when one is configured.
 */
import { recordOf, registrySize } from '../data/license-bulk.ts';
import { compareCodePoints } from '../data/strings.ts';
import type { Handler } from '../http/handler.ts';
import { onlyKnownFields } from '../http/known-fields.ts';
import { asObject, optInt, reqArray } from '../http/validate.ts';
import { keyOrder, wireRecord } from './license-keys/records.ts';
import { parseKeyFilters } from './license-keys/search-filters.ts';
import { upsertKeys } from './license-keys/upsert.ts';

const searchLicenseKeys: Handler = (ctx) => {
  const reg = ctx.pd.registry;
  const filters = parseKeyFilters(reg, ctx.body);
  const paging = ctx.body.paging === undefined || ctx.body.paging === null ? {} : asObject(ctx.body.paging, 'paging');
  const startAt = optInt(paging, 'startAt', 'paging', { min: 0 }) ?? 0;
  const limit = optInt(paging, 'limit', 'paging', { min: 1, max: 1000 }) ?? 100;
  const page = (ids: ArrayLike<number>) =>
    Array.from({ length: Math.max(0, Math.min(limit, ids.length - startAt)) }, (_, j) =>
      wireRecord(reg, ids[startAt + j]!),
    );
  // Every key: the cached key order answers a page in O(limit).
  if (!filters) return { result: page(keyOrder(reg)), matchingKeysCount: registrySize(reg) };
  // Keys named by the licenseKey filter: only those, from the index, in key order.
  if (filters.candidates) {
    const ids = filters.candidates.filter(filters.matches);
    ids.sort((a, b) => compareCodePoints(recordOf(reg, a).licenseKey, recordOf(reg, b).licenseKey));
    return { result: page(ids), matchingKeysCount: ids.length };
  }
  // Other filters: one pass in key order, counting every match and keeping the ones inside the page.
  const result: ReturnType<typeof wireRecord>[] = [];
  let matchingKeysCount = 0;
  for (const k of keyOrder(reg)) {
    if (!filters.matches(k)) continue;
    if (matchingKeysCount >= startAt && result.length < limit) result.push(wireRecord(reg, k));
    matchingKeysCount++;
  }
  return { result, matchingKeysCount };
};

const upsertLicenseKeys: Handler = (ctx) => {
  // A misspelt top-level member fails the whole write (there is no item to list it under).
  onlyKnownFields(ctx.body, '', ['keyUpdates']);
  const items = reqArray(ctx.body, 'keyUpdates', '', { min: 1, max: 1000 });
  const result = upsertKeys(ctx.pd.registry, items, ctx.today);
  if (result.inserted + result.updated > 0) ctx.state.persistRegistry(ctx.pd);
  return { result };
};

export const licenseKeyHandlers: Record<string, Handler> = {
  searchLicenseKeys,
  updateLicenseKeys: upsertLicenseKeys,
  insertLicenseKeys: upsertLicenseKeys,
};
