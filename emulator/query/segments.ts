/**
 * Segment objects (docs/interface.md "Segments and levels"), parsed once per request into a per-value table: every
 * property is viewed as "value codes" (a dictionary code per client), and each code knows the segment ids it belongs
 * to. `of(i)` is then two array reads, whatever the segment kinds, so reports can call it inside their pass over a
 * million clients.
 */
import { HIERARCHY_LEVELS } from '../data/catalogue.ts';
import { NULL_SENTINEL, type ProductData } from '../data/model.ts';
import {
  asObject,
  at,
  fail,
  type Json,
  optBool,
  optInt,
  optString,
  regexValue,
  reqNumber,
  stringArray,
} from '../http/validate.ts';
import { type Coded, codedColumn, codedLicenseStatus } from './coded-values.ts';
import { columnOf, isHierarchical, isSpecial, type ScalarKind, scalarKind } from './properties.ts';

export interface Segmentation {
  /** Labels by segment id. Every id exists right after parsing (labels.length never changes), but a split value
   * only counts as present once `of(i)` returned it for some client. Segments with the same label share one id. */
  readonly labels: string[];
  /** Segment ids client i belongs to (0, 1 or several — segments may overlap). The returned array may be reused:
   * copy if kept. Also records the client's value as present. */
  of(i: number): readonly number[];
  /**
   * Ids to present, in order. `order()`: explicit segments in request order and split values alphabetically.
   * `order(metric, dir)`: by metric (default desc), ties in request order. `order(undefined, dir)`: by label
   * (the `sort: "alpha"` case). Each split spec's `limit` applies after sorting. Explicit segments are always
   * listed (zero counts); split segments only if present — by default present anywhere `of()` saw them, or as the
   * optional `present` says (e.g. present under one parent node of a nested report).
   */
  order(metric?: (id: number) => number, direction?: 'asc' | 'desc', present?: (id: number) => boolean): number[];
}

type SegmentKind = ScalarKind | 'licenseStatus';

/** Validates a segmentation property (400 on `path`, the property's own path) and returns its kind. */
export function assertSegmentableProperty(pd: ProductData, property: unknown, path: string): SegmentKind {
  if (property === undefined || property === null) fail(path, 'required');
  if (typeof property !== 'string') fail(path, 'must be a string');
  if (property === 'licenseStatus') return 'licenseStatus';
  if (isHierarchical(property)) {
    const levels = HIERARCHY_LEVELS[property].map((l) => `${property}.${l}`);
    fail(path, `segment ${property} by one of its levels: ${levels.join(', ')}`);
  }
  if (isSpecial(property)) fail(path, `${property} cannot be used for segmentation`);
  const kind = scalarKind(pd, property);
  if (!kind || !columnOf(pd, property)) fail(path, `unknown property ${property}`);
  return kind;
}

/** One request-order entry: an explicit segment, or a split spec's candidate ids (in label order) and its limit. */
type Spec = { split: false; id: number } | { split: true; ids: number[]; limit: number | undefined };

const EMPTY: readonly number[] = Object.freeze([]);
const LICENSE_FLAGS = ['activated', 'allowed', 'blocked', 'expired'] as const;

/** Parses a `segments` array (absent/empty = one segment per distinct value); `path` names the array in errors. */
export function parseSegmentation(pd: ProductData, property: string, segments: unknown, path: string): Segmentation {
  const kind = assertSegmentableProperty(pd, property, path);
  const coded = kind === 'licenseStatus' ? codedLicenseStatus(pd) : codedColumn(columnOf(pd, property)!);
  const nCodes = coded.text.length;
  if (segments !== undefined && segments !== null && !Array.isArray(segments)) fail(path, 'must be an array');
  const list = (segments as unknown[] | null | undefined) ?? [];
  if (list.length === 0 && kind === 'licenseStatus') fail(path, 'required for licenseStatus (no distinct values)');

  const labels: string[] = [];
  const idOf = new Map<string, number>();
  const owner: number[] = []; // spec index that created each id, for per-spec limits
  const one = new Int32Array(nCodes).fill(-1); // the code's only id, -1 none, -2 several (see `many`)
  const many: number[][] = [];
  const specs: Spec[] = [];

  const idFor = (label: string): number => {
    let id = idOf.get(label);
    if (id === undefined) {
      id = labels.length;
      labels.push(label);
      idOf.set(label, id);
      owner.push(specs.length);
    }
    return id;
  };
  const add = (code: number, id: number): void => {
    const s = one[code]!;
    if (s === -1) one[code] = id;
    else if (s === -2) {
      const m = many[code]!;
      if (!m.includes(id)) m.push(id);
    } else if (s !== id) {
      many[code] = [s, id];
      one[code] = -2;
    }
  };
  /** A split spec: one id per matching value (in label order), plus `<NULL>` last when asked for. */
  const split = (matches: (c: number) => boolean, includeNull: boolean, limit: number | undefined): void => {
    const codes: number[] = [];
    for (let c = 0; c < nCodes; c++) if (c !== coded.nullCode && matches(c)) codes.push(c);
    codes.sort((a, b) => compareValues(coded, a, b));
    if (includeNull) codes.push(coded.nullCode);
    const ids = codes.map((c) => {
      const id = idFor(c === coded.nullCode ? NULL_SENTINEL : coded.text[c]!);
      add(c, id);
      return id;
    });
    specs.push({ split: true, ids, limit });
  };
  const explicit = (label: string, matches: (c: number) => boolean, includeNull: boolean): void => {
    const id = idFor(label);
    for (let c = 0; c < nCodes; c++) if (c === coded.nullCode ? includeNull : matches(c)) add(c, id);
    specs.push({ split: false, id });
  };

  if (list.length === 0) split(() => true, false, undefined);
  list.forEach((item, k) => {
    const p = parseSegment(asObject(item, at(path, k)), at(path, k), kind, coded);
    if (p.split) split(p.matches, p.includeNull, p.limit);
    else explicit(p.label, p.matches, p.includeNull);
  });

  const seen = new Uint8Array(nCodes);
  const codes = coded.codes;
  const buf = [0];
  const presentBySight = (): ((id: number) => boolean) => {
    const present = new Uint8Array(labels.length);
    for (let c = 0; c < nCodes; c++) {
      if (seen[c] === 0) continue;
      const s = one[c]!;
      if (s >= 0) present[s] = 1;
      else if (s === -2) for (const id of many[c]!) present[id] = 1;
    }
    return (id) => present[id] === 1;
  };
  const sortKey = sortKeys(coded, labels, specs);

  return {
    labels,
    of(i) {
      const c = codes[i]!;
      seen[c] = 1;
      const s = one[c]!;
      if (s >= 0) {
        buf[0] = s;
        return buf;
      }
      return s === -1 ? EMPTY : many[c]!;
    },
    order(metric, direction, present) {
      const isPresent = present ?? presentBySight();
      const natural: number[] = [];
      const listed = new Uint8Array(labels.length);
      for (const spec of specs) {
        for (const id of spec.split ? spec.ids : [spec.id]) {
          if (listed[id] === 1 || (spec.split && !isPresent(id))) continue;
          listed[id] = 1;
          natural.push(id);
        }
      }
      const rank = new Int32Array(labels.length);
      natural.forEach((id, r) => {
        rank[id] = r;
      });
      let sorted = natural;
      if (metric) {
        const sign = direction === 'asc' ? 1 : -1;
        sorted = [...natural].sort((a, b) => sign * (metric(a) - metric(b)) || rank[a]! - rank[b]!);
      } else if (direction) {
        const sign = direction === 'desc' ? -1 : 1;
        sorted = [...natural].sort((a, b) => sign * sortKey(a, b));
      }
      const taken = new Int32Array(specs.length);
      return sorted.filter((id) => {
        const spec = specs[owner[id]!]!;
        if (!spec.split || spec.limit === undefined) return true;
        return taken[owner[id]!]!++ < spec.limit;
      });
    },
  };
}

/** Label order: numbers numerically, everything else by code unit, `<NULL>` after all values. */
function compareValues(coded: Coded, a: number, b: number): number {
  if (a === coded.nullCode || b === coded.nullCode)
    return (a === coded.nullCode ? 1 : 0) - (b === coded.nullCode ? 1 : 0);
  if (coded.num) return coded.num[a]! - coded.num[b]!;
  const x = coded.text[a]!;
  const y = coded.text[b]!;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Comparator over ids for `sort: "alpha"`: split values of number properties numerically, labels otherwise. */
function sortKeys(coded: Coded, labels: string[], specs: Spec[]): (a: number, b: number) => number {
  const numeric = new Float64Array(labels.length).fill(Number.NaN);
  if (coded.num) {
    const num = coded.num;
    const byText = new Map(coded.text.map((t, c) => [t, num[c]!]));
    for (const spec of specs)
      if (spec.split) for (const id of spec.ids) numeric[id] = byText.get(labels[id]!) ?? Number.NaN;
  }
  return (a, b) => {
    const na = labels[a] === NULL_SENTINEL;
    const nb = labels[b] === NULL_SENTINEL;
    if (na || nb) return (na ? 1 : 0) - (nb ? 1 : 0);
    const x = numeric[a]!;
    const y = numeric[b]!;
    if (!Number.isNaN(x) && !Number.isNaN(y)) return x - y;
    const s = labels[a]!;
    const t = labels[b]!;
    return s < t ? -1 : s > t ? 1 : 0;
  };
}

/** One parsed Segment object: which value codes it selects, and whether it splits them into one segment each. */
type Parsed =
  | { split: true; matches: (c: number) => boolean; includeNull: boolean; limit: number | undefined }
  | { split: false; label: string; matches: (c: number) => boolean; includeNull: boolean };

const KINDS_FOR: Record<SegmentKind, readonly string[]> = {
  string: ['string', 'stringArray', 'regex'],
  date: ['string', 'stringArray', 'regex'],
  number: ['number', 'numberRange'],
  boolean: ['boolean'],
  licenseStatus: ['licenseStatus'],
};

function parseSegment(o: Json, path: string, kind: SegmentKind, coded: Coded): Parsed {
  const type = o.type;
  const allowed = KINDS_FOR[kind];
  if (typeof type !== 'string' || !allowed.includes(type))
    fail(at(path, 'type'), `must be one of ${allowed.join(', ')}`);
  const splittable = type === 'stringArray' || type === 'regex';
  const isSplit = optBool(o, 'split', path) ?? false;
  if (isSplit && !splittable) fail(at(path, 'split'), 'only allowed for stringArray and regex segments');
  const limit = optInt(o, 'limit', path, { min: 1 });
  if (limit !== undefined && !isSplit) fail(at(path, 'limit'), 'only allowed with split');
  let includeNull = optBool(o, 'includeNull', path) ?? false;
  const segmentLabel = optString(o, 'segmentLabel', path);
  const labelled = (fallback?: string): string => {
    if (segmentLabel !== undefined) return segmentLabel;
    if (fallback !== undefined) return fallback;
    return fail(at(path, 'segmentLabel'), splittable ? 'required when split is false' : 'required');
  };
  const vp = at(path, 'value');
  const { text } = coded;

  switch (type) {
    case 'string':
    case 'stringArray': {
      const values = type === 'string' ? [stringOf(o.value, vp)] : stringArray(o.value, vp);
      if (values.length === 0) fail(vp, 'must have at least 1 item(s)');
      // The filter sentinel also works in segments: "<NULL>" as a value selects clients without a value.
      if (values.includes(NULL_SENTINEL)) includeNull = true;
      const set = new Set(values);
      const matches = (c: number) => set.has(text[c]!);
      if (isSplit) return { split: true, matches, includeNull, limit };
      return { split: false, label: labelled(type === 'string' ? values[0] : undefined), matches, includeNull };
    }
    case 'regex': {
      const re = regexValue(stringOf(o.value, vp), vp);
      const matches = (c: number) => re.test(text[c]!);
      if (isSplit) return { split: true, matches, includeNull, limit };
      return { split: false, label: labelled(), matches, includeNull };
    }
    case 'number': {
      const x = reqNumber(o, 'value', path);
      const num = coded.num!;
      return { split: false, label: labelled(String(x)), matches: (c) => num[c] === x, includeNull };
    }
    case 'numberRange': {
      const min = o.min === undefined || o.min === null ? Number.NEGATIVE_INFINITY : reqNumber(o, 'min', path);
      const max = o.max === undefined || o.max === null ? Number.POSITIVE_INFINITY : reqNumber(o, 'max', path);
      if (min === Number.NEGATIVE_INFINITY && max === Number.POSITIVE_INFINITY) fail(path, 'needs min or max');
      if (min > max) fail(at(path, 'min'), 'must not be greater than max');
      const num = coded.num!;
      return { split: false, label: labelled(), matches: (c) => num[c]! >= min && num[c]! <= max, includeNull };
    }
    case 'boolean': {
      if (typeof o.value !== 'boolean') fail(vp, o.value === undefined ? 'required' : 'must be a boolean');
      const want = o.value;
      return { split: false, label: labelled(String(want)), matches: (c) => coded.bool![c] === want, includeNull };
    }
    default:
      return { split: false, label: labelled(), matches: licenseMatcher(o.value, vp, coded), includeNull };
  }
}

function stringOf(v: unknown, path: string): string {
  if (v === undefined || v === null) fail(path, 'required');
  if (typeof v !== 'string') fail(path, 'must be a string');
  return v;
}

/** `[ {activated?, allowed?, blocked?, expired?} ]`: any object matches (OR), all flags in one object hold (AND). */
function licenseMatcher(v: unknown, path: string, coded: Coded): (c: number) => boolean {
  if (!Array.isArray(v)) fail(path, v === undefined ? 'required' : 'must be an array');
  if (v.length === 0) fail(path, 'must have at least 1 item(s)');
  const alternatives = v.map((item, k) => {
    const p = at(path, k);
    const o = asObject(item, p);
    for (const key of Object.keys(o))
      if (!LICENSE_FLAGS.includes(key as (typeof LICENSE_FLAGS)[number])) fail(at(p, key), 'unknown flag');
    return LICENSE_FLAGS.flatMap((flag) => {
      const want = optBool(o, flag, p);
      return want === undefined ? [] : [[flag, want] as const];
    });
  });
  const status = coded.status!;
  return (c) => {
    const s = status[c];
    return s != null && alternatives.some((conds) => conds.every(([flag, want]) => s[flag] === want));
  };
}
