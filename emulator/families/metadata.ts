/** Metadata family: `productProperties`, `propertyValues` (docs/interface.md "Product properties"). */
import { FULL_LISTS, HIERARCHY_LEVELS, OS_CATALOGUE, propertyFlags } from '../data/catalogue.ts';
import { NULL_SENTINEL, type ProductData, type StringColumn } from '../data/model.ts';
import { compareCodePoints } from '../data/strings.ts';
import type { Handler } from '../http/handler.ts';
import { asObject, at, fail, optBool, optString, regexValue, reqEnum, reqString } from '../http/validate.ts';
import { catalogueOf, columnOf, isHierarchical } from '../query/properties.ts';

/** At most this many values per `propertyValues` response. */
export const PROPERTY_VALUES_PAGE_SIZE = 1000;

const productProperties: Handler = (ctx) => {
  const byCategory = new Map<string, object[]>();
  for (const p of catalogueOf(ctx.pd)) {
    const list = byCategory.get(p.category) ?? [];
    byCategory.set(p.category, list);
    const { name, friendlyName, filterType, dataType } = p;
    list.push({ name, friendlyName, filterType, dataType, ...propertyFlags(p) });
  }
  return { result: [...byCategory].map(([category, properties]) => ({ category, properties })) };
};

/**
 * The column `propertyValues` lists: a `supportsMeta` property, or a hierarchical level given by granularity or dotted
 * name.
 */
function resolveListedProperty(pd: ProductData, property: string, granularity: string | undefined): string {
  const dot = property.indexOf('.');
  const parent = dot < 0 ? property : property.slice(0, dot);
  if (isHierarchical(parent)) {
    const levels = HIERARCHY_LEVELS[parent];
    if (dot >= 0) {
      if (!levels.includes(property.slice(dot + 1))) fail('property', `unknown property ${property}`);
      if (granularity !== undefined) fail('granularity', `not allowed with the level name ${property}`);
      return property;
    }
    if (granularity === undefined) fail('granularity', `required for ${parent} (one of ${levels.join(', ')})`);
    if (!levels.includes(granularity)) fail('granularity', `must be one of ${levels.join(', ')} for ${parent}`);
    return `${parent}.${granularity}`;
  }
  const def = catalogueOf(pd).find((p) => p.name === property);
  if (!def) fail('property', `unknown property ${property}`);
  if (!propertyFlags(def).supportsMeta) fail('property', `${property} does not support value listing`);
  if (granularity !== undefined) fail('granularity', 'only allowed for os, geography and gpu');
  return property;
}

/** UTF-16 order equals code-point order unless surrogates meet U+E000–U+FFFF; only then the slow comparator. */
const NEEDS_CODE_POINT_ORDER = /[\uD800-\uFFFF]/;

function sortByCodePoint(values: string[]): string[] {
  return values.some((v) => NEEDS_CODE_POINT_ORDER.test(v)) ? values.sort(compareCodePoints) : values.sort();
}

/**
 * Distinct values occurring in a column, in code-point order. Cached per column: a million-client column is sorted
 * once, not once per page. The dict length guards against columns that grow after the cache was filled.
 */
const seenCache = new WeakMap<StringColumn, { dictLength: number; values: string[] }>();

function seenValues(pd: ProductData, col: StringColumn): string[] {
  const hit = seenCache.get(col);
  if (hit && hit.dictLength === col.dict.length) return hit.values;
  // A dict may hold values no client carries (e.g. registry keys), so only codes that occur count.
  const used = new Uint8Array(col.dict.length + 1);
  const codes = col.codes;
  for (let i = 0; i < pd.n; i++) used[codes[i]!] = 1;
  const values = sortByCodePoint(col.dict.filter((v, k) => used[k + 1] === 1 && v !== NULL_SENTINEL));
  seenCache.set(col, { dictLength: col.dict.length, values });
  return values;
}

function valuesOf(pd: ProductData, name: string, fullList: boolean): string[] {
  const col = columnOf(pd, name);
  const seen = col?.kind === 'string' ? seenValues(pd, col) : [];
  const full = fullList ? FULL_LISTS[name] : undefined;
  if (!full) return seen;
  return sortByCodePoint([...new Set([...full, ...seen])].filter((v) => v !== NULL_SENTINEL));
}

const OS_SHORT_NAMES = new Map(OS_CATALOGUE.map((o) => [o.version, o.shortName]));

/** First index whose value sorts after `after`. */
function indexAfter(values: readonly string[], after: string): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareCodePoints(values[mid]!, after) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const propertyValues: Handler = (ctx) => {
  const body = ctx.body;
  const property = reqString(body, 'property');
  const name = resolveListedProperty(ctx.pd, property, optString(body, 'granularity'));
  let keep: (v: string) => boolean = () => true;
  if (body.filter !== undefined && body.filter !== null) {
    if (name.startsWith('geography.')) fail('filter', 'not allowed for geography');
    const f = asObject(body.filter, 'filter');
    const type = reqEnum(f, 'type', ['string', 'regex'] as const, 'filter');
    const value = reqString(f, 'value', 'filter');
    if (type === 'regex') {
      const re = regexValue(value, at('filter', 'value'));
      keep = (v) => re.test(v);
    } else keep = (v) => v === value;
  }
  const startAfter = optString(body, 'startAfter');
  const values = valuesOf(ctx.pd, name, optBool(body, 'getFullList') ?? false);
  const result: { value: string; shortName?: string }[] = [];
  let k = startAfter === undefined ? 0 : indexAfter(values, startAfter);
  for (; k < values.length && result.length < PROPERTY_VALUES_PAGE_SIZE; k++) {
    const value = values[k]!;
    if (!keep(value)) continue;
    const shortName = name === 'os.version' ? OS_SHORT_NAMES.get(value) : undefined;
    result.push(shortName === undefined ? { value } : { value, shortName });
  }
  while (k < values.length && !keep(values[k]!)) k++;
  return { result, reachedEnd: k >= values.length };
};

export const metadataHandlers: Record<string, Handler> = { productProperties, propertyValues };
