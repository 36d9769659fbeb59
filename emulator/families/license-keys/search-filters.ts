/**
 * `filters` of `searchLicenseKeys` (docs/interface.md "License key registry"): one predicate over record indexes.
 * Kinds and their shapes follow docs/interface.md "Filters", as query/filters.ts reads them for clients; here the
 * values come from the registry records instead of columns.
 */
import { findKey, recordOf } from '../../data/license-bulk.ts';
import { type LicenseRegistry, NULL_SENTINEL } from '../../data/model.ts';
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

export interface KeyFilters {
  matches: RecordPredicate;
  /** Set when a `licenseKey` string or stringArray filter names the keys: the only ids that can match, found in
   * the index (registry sync looks up 1000 keys at a time in a registry of millions). */
  candidates?: number[];
}

const KINDS = {
  licenseKey: ['string', 'stringArray', 'regex'],
  licenseType: ['string', 'stringArray', 'regex'],
  addedDate: ['date', 'dateRange'],
  expiryDate: ['date', 'dateRange'],
  autoCollected: ['boolean'],
  overQuotaCount: ['number', 'numberRange'],
} as const;

/** Parses `body.filters` (absent or `{}` = every key, no predicate); members AND together. */
export function parseKeyFilters(reg: LicenseRegistry, body: Json): KeyFilters | undefined {
  const v = body.filters;
  if (v === undefined || v === null) return undefined;
  const filters = asObject(v, 'filters');
  const preds = Object.entries(filters).map(([name, f]) => parseFilter(reg, name, f, at('filters', name)));
  if (preds.length === 0) return undefined;
  const matches: RecordPredicate = (k) => {
    for (const p of preds) if (!p(k)) return false;
    return true;
  };
  const named = namedKeys(filters.licenseKey);
  if (!named) return { matches };
  const ids = new Set<number>();
  for (const key of named) {
    const k = key === NULL_SENTINEL ? undefined : findKey(reg, key); // keys always have a value: "<NULL>" is none
    if (k !== undefined) ids.add(k);
  }
  return { matches, candidates: [...ids] };
}

/** The values of a licenseKey filter of kind string or stringArray (already validated by parseFilter). */
function namedKeys(f: unknown): string[] | undefined {
  if (!isObject(f)) return undefined;
  if (f.type === 'string') return [f.value as string];
  if (f.type === 'stringArray') return f.value as string[];
  return undefined;
}

function parseFilter(reg: LicenseRegistry, name: string, f: unknown, path: string): RecordPredicate {
  const rec = (k: number) => recordOf(reg, k);
  if (name === 'licenseStatus') return flagObjects(f, path, LICENSE_FLAGS, (k, flag) => rec(k).licenseStatus[flag]);
  if (!(name in KINDS)) fail(path, `unknown filter ${name}`);
  // autoCollected is documented as a bare boolean; the boolean filter kind object is accepted as well.
  if (name === 'autoCollected' && typeof f === 'boolean') return (k) => rec(k).autoCollected === f;
  if (name === 'autoCollected' && !isObject(f)) fail(path, 'must be a boolean or a boolean filter');
  const o = asObject(f, path);
  requireKind(o, path, KINDS[name as keyof typeof KINDS], name);
  switch (name) {
    case 'licenseKey':
    case 'licenseType': {
      // Keys and types always have a value, so "<NULL>" matches nothing here.
      const test = stringKindMatcher(o, path);
      return name === 'licenseKey' ? (k) => test(rec(k).licenseKey) : (k) => test(rec(k).licenseType);
    }
    case 'addedDate':
    case 'expiryDate': {
      const test = dateKindMatcher(o, path);
      return name === 'addedDate' ? (k) => test(rec(k).addedDate) : (k) => test(rec(k).expiryDate);
    }
    case 'overQuotaCount': {
      const test = numberKindMatcher(o, path);
      return (k) => test(overQuotaOf(reg, k));
    }
    default: {
      const test = booleanKindMatcher(o, path);
      return (k) => test(rec(k).autoCollected);
    }
  }
}
