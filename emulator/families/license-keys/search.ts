/**
 * The records a search [21] visits, in key order. A `licenseKey` filter of the string or stringArray kind names its
 * keys, so they are looked up in the registry's index (and sorted) instead of testing every record: the license
 * sync looks up 1000 keys per call, and a scan per call would make a sync cost registry × batches. Every other
 * filter is still applied to the candidates by `matches`, so the answer is the scan's.
 */
import type { LicenseRegistry } from '../../data/model.ts';
import { compareCodePoints } from '../../data/strings.ts';
import type { Json } from '../../http/validate.ts';
import { keyOrder } from './records.ts';
import type { RecordPredicate } from './search-filters.ts';

export function searchOrder(reg: LicenseRegistry, body: Json, matches: RecordPredicate): Iterable<number> {
  const named = namedKeys(body);
  if (named === undefined) return filtered(keyOrder(reg), matches);
  const found: number[] = [];
  for (const key of new Set(named)) {
    const k = reg.index.get(key);
    if (k !== undefined && matches(k)) found.push(k);
  }
  const recs = reg.records;
  return found.sort((a, b) => compareCodePoints(recs[a]!.licenseKey, recs[b]!.licenseKey));
}

/** The keys a (validated) `licenseKey` string or stringArray filter names, or undefined for any other search. */
function namedKeys(body: Json): string[] | undefined {
  const f = (body.filters as Json | undefined)?.licenseKey as Json | undefined;
  if (f?.type === 'string' && typeof f.value === 'string') return [f.value];
  if (f?.type === 'stringArray' && Array.isArray(f.value)) return f.value as string[];
  return undefined;
}

function* filtered(order: Int32Array, matches: RecordPredicate): Generator<number> {
  for (const k of order) if (matches(k)) yield k;
}
