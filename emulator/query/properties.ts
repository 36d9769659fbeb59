/**
 * Reading client properties by name: which properties a product has, their kind, and their (latest) values.
 * Filters, segments, client lists and event lines all read through here.
 */
import { BUILT_IN_PROPERTIES, HIERARCHY_LEVELS, LEVEL_PROPERTIES, type PropertyDef } from '../data/catalogue.ts';
import { booleanColumn } from '../data/columns.ts';
import { formatDay } from '../data/dates.ts';
import { type Column, type LicenseStatus, type ProductData, stringAt } from '../data/model.ts';

export type ScalarKind = 'string' | 'number' | 'date' | 'boolean';

const LICENSE_FLAGS = ['activated', 'allowed', 'blocked', 'expired'] as const;
const BUILT_IN = new Map(BUILT_IN_PROPERTIES.map((p) => [p.name, p]));

/** The `productProperties` catalogue of a product: built-ins plus its configured custom properties. */
export function catalogueOf(pd: ProductData): PropertyDef[] {
  const custom = Object.entries(pd.product.customProperties).map(([name, friendlyName]) => ({
    name,
    friendlyName,
    category: 'Custom',
    dataType: 'string' as const,
    filterType: 'standard' as const,
  }));
  return [...BUILT_IN_PROPERTIES, ...custom];
}

export function isSpecial(name: string): boolean {
  return BUILT_IN.get(name)?.dataType === 'special';
}

/** Kind of a scalar property (built-in, custom or hierarchical level), or undefined when it is not one. */
export function scalarKind(pd: ProductData, name: string): ScalarKind | undefined {
  const def = BUILT_IN.get(name);
  if (def) return def.dataType === 'special' ? undefined : def.dataType;
  if (LEVEL_PROPERTIES.includes(name)) return 'string';
  if (name in pd.product.customProperties) return 'string';
  return undefined;
}

export function isHierarchical(name: string): name is keyof typeof HIERARCHY_LEVELS {
  return name in HIERARCHY_LEVELS;
}

/** The column holding a scalar property's latest values; license flags are read from the registry now. */
export function columnOf(pd: ProductData, name: string): Column | undefined {
  if (name.startsWith('licenseStatus.')) {
    const flag = name.slice('licenseStatus.'.length) as keyof LicenseStatus;
    if (!LICENSE_FLAGS.includes(flag)) return undefined;
    const col = booleanColumn(pd.n);
    const recs = pd.registry.records;
    for (let i = 0; i < pd.n; i++) {
      const k = pd.licenseKeyIndex[i]!;
      if (k >= 0) col.values[i] = recs[k]!.licenseStatus[flag] ? 1 : 0;
    }
    return col;
  }
  return pd.columns.get(name);
}

export type ScalarValue = string | number | boolean | null;

/** Reader for one column: client number → native JSON value (dates as `YYYY-MM-DD`), null for no value. */
export function readerOf(col: Column): (i: number) => ScalarValue {
  switch (col.kind) {
    case 'string':
      return (i) => stringAt(col, i);
    case 'number':
      return (i) => {
        const v = col.values[i]!;
        return Number.isNaN(v) ? null : v;
      };
    case 'date':
      return (i) => {
        const d = col.days[i]!;
        return d < 0 ? null : formatDay(d);
      };
    case 'boolean':
      return (i) => {
        const v = col.values[i]!;
        return v === 2 ? null : v === 1;
      };
  }
}
