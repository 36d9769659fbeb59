/**
 * Any segmentable property seen as "value codes": one small integer per client plus the value text per code, so
 * segment membership can be decided once per distinct value instead of once per client.
 */
import { formatDay } from '../data/dates.ts';
import { type Column, type LicenseStatus, NULL_SENTINEL, type ProductData } from '../data/model.ts';

/** A property seen as value codes: `codes[i]` per client, `text[c]` the value as label, `nullCode` = no value. */
export interface Coded {
  codes: ArrayLike<number>;
  text: string[];
  nullCode: number;
  /** Numeric value per code (number properties), used for number kinds and numeric label order. */
  num?: Float64Array;
  /** Value per code of boolean properties. */
  bool?: (boolean | null)[];
  /** License status per code (licenseStatus: code = registry record + 1). */
  status?: (LicenseStatus | null)[];
}

const codedCache = new WeakMap<Column, Coded>();

export function codedColumn(col: Column): Coded {
  const hit = codedCache.get(col);
  if (hit) return hit;
  const coded = buildCoded(col);
  // License flag columns are rebuilt by columnOf on every call (the registry can change); caching them is harmless.
  codedCache.set(col, coded);
  return coded;
}

function buildCoded(col: Column): Coded {
  switch (col.kind) {
    case 'string':
      return { codes: col.codes, text: [NULL_SENTINEL, ...col.dict], nullCode: 0 };
    case 'boolean':
      return { codes: col.values, text: ['false', 'true', NULL_SENTINEL], nullCode: 2, bool: [false, true, null] };
    case 'date': {
      let lo = Number.POSITIVE_INFINITY;
      let hi = Number.NEGATIVE_INFINITY;
      for (const d of col.days) {
        if (d >= 0 && d < lo) lo = d;
        if (d >= 0 && d > hi) hi = d;
      }
      const span = hi >= lo ? hi - lo + 1 : 0;
      const codes = new Uint32Array(col.days.length);
      col.days.forEach((d, i) => {
        codes[i] = d < 0 ? 0 : d - lo + 1;
      });
      const text = [NULL_SENTINEL, ...Array.from({ length: span }, (_, k) => formatDay(lo + k))];
      return { codes, text, nullCode: 0 };
    }
    case 'number': {
      const distinct = [...new Set(col.values)].filter((v) => !Number.isNaN(v)).sort((a, b) => a - b);
      const codeOf = new Map(distinct.map((v, k) => [v, k + 1]));
      const codes = new Uint32Array(col.values.length);
      col.values.forEach((v, i) => {
        codes[i] = codeOf.get(v) ?? 0;
      });
      const num = Float64Array.from([Number.NaN, ...distinct]);
      return { codes, text: [NULL_SENTINEL, ...distinct.map(String)], nullCode: 0, num };
    }
  }
}

export function codedLicenseStatus(pd: ProductData): Coded {
  const codes = new Uint32Array(pd.n);
  for (let i = 0; i < pd.n; i++) codes[i] = pd.licenseKeyIndex[i]! + 1;
  const status = [null, ...pd.registry.records.map((r) => r.licenseStatus)];
  return { codes, text: status.map(() => ''), nullCode: 0, status };
}
