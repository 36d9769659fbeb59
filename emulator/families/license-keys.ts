/**
 * License key registry family (api-shapes §9): [21] searchLicenseKeys, and the upsert that [22] updateLicenseKeys
 * (PATCH) and [23] insertLicenseKeys (POST) share. Changes land in `pd.registry`, which the reports' licenseStatus
 * filters read too, and are persisted to `--data-dir` when one is configured.
 */
import type { Handler } from '../http/handler.ts';
import { asObject, optInt, reqArray } from '../http/validate.ts';
import { wireRecord } from './license-keys/records.ts';
import { searchOrder } from './license-keys/search.ts';
import { parseKeyFilters } from './license-keys/search-filters.ts';
import { upsertKeys } from './license-keys/upsert.ts';

const searchLicenseKeys: Handler = (ctx) => {
  const reg = ctx.pd.registry;
  const matches = parseKeyFilters(reg, ctx.body);
  const paging = ctx.body.paging === undefined || ctx.body.paging === null ? {} : asObject(ctx.body.paging, 'paging');
  const startAt = optInt(paging, 'startAt', 'paging', { min: 0 }) ?? 0;
  const limit = optInt(paging, 'limit', 'paging', { min: 1, max: 1000 }) ?? 100;
  // One pass in key order: count every match, keep the ones inside the page.
  const result: ReturnType<typeof wireRecord>[] = [];
  let matchingKeysCount = 0;
  for (const k of searchOrder(reg, ctx.body, matches)) {
    if (matchingKeysCount >= startAt && result.length < limit) result.push(wireRecord(reg, k));
    matchingKeysCount++;
  }
  return { result, matchingKeysCount };
};

const upsertLicenseKeys: Handler = (ctx) => {
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
