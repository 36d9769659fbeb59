/**
 * `filters` of [21] (api-shapes §9): one predicate over record indexes. Kinds and their shapes follow §1.7, as
 * query/filters.ts reads them for clients; here the values come from the registry records instead of columns.
 */
import type { LicenseRegistry } from '../../data/model.ts';
import { asObject, at, fail, isObject, type Json } from '../../http/validate.ts';
import {
  booleanKindMatcher,
  dateKindMatcher,
  flagObjects,
  numberKindMatcher,
  requireKind,
  stringKindMatcher,
} from '../../query/filters.ts';
import { LICENSE_FLAGS, overQuotaOf } from './records.ts';

export type RecordPredicate = (k: number) => boolean;

const KINDS = {
  licenseKey: ['string', 'stringArray', 'regex'],
  licenseType: ['string', 'stringArray', 'regex'],
  addedDate: ['date', 'dateRange'],
  expiryDate: ['date', 'dateRange'],
  autoCollected: ['boolean'],
  overQuotaCount: ['number', 'numberRange'],
} as const;

/** Parses `body.filters` (absent or `{}` = every key); members AND together. */
export function parseKeyFilters(reg: LicenseRegistry, body: Json): RecordPredicate {
  const v = body.filters;
  if (v === undefined || v === null) return () => true;
  const filters = asObject(v, 'filters');
  const preds = Object.entries(filters).map(([name, f]) => parseFilter(reg, name, f, at('filters', name)));
  return (k) => {
    for (const p of preds) if (!p(k)) return false;
    return true;
  };
}

function parseFilter(reg: LicenseRegistry, name: string, f: unknown, path: string): RecordPredicate {
  const recs = reg.records;
  if (name === 'licenseStatus') return flagObjects(f, path, LICENSE_FLAGS, (k, flag) => recs[k]!.licenseStatus[flag]);
  if (!(name in KINDS)) fail(path, `unknown filter ${name}`);
  // §9 writes autoCollected as a bare boolean; the §1.7 boolean kind object is accepted as well.
  if (name === 'autoCollected' && typeof f === 'boolean') return (k) => recs[k]!.autoCollected === f;
  if (name === 'autoCollected' && !isObject(f)) fail(path, 'must be a boolean or a boolean filter');
  const o = asObject(f, path);
  requireKind(o, path, KINDS[name as keyof typeof KINDS], name);
  switch (name) {
    case 'licenseKey':
    case 'licenseType': {
      // Keys and types always have a value, so "<NULL>" matches nothing here.
      const test = stringKindMatcher(o, path);
      return name === 'licenseKey' ? (k) => test(recs[k]!.licenseKey) : (k) => test(recs[k]!.licenseType);
    }
    case 'addedDate':
    case 'expiryDate': {
      const test = dateKindMatcher(o, path);
      return name === 'addedDate' ? (k) => test(recs[k]!.addedDate) : (k) => test(recs[k]!.expiryDate);
    }
    case 'overQuotaCount': {
      const test = numberKindMatcher(o, path);
      return (k) => test(overQuotaOf(reg, k));
    }
    default: {
      const test = booleanKindMatcher(o, path);
      return (k) => test(recs[k]!.autoCollected);
    }
  }
}
