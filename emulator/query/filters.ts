/**
 * `globalFilters` (docs/interface.md "Filters"): parsed once per request into one predicate over client numbers.
 * Members AND together; the emulator matches each client's latest known value.
 */
import { surgeExtra } from '../data/activity.ts';
import { HIERARCHY_LEVELS } from '../data/catalogue.ts';
import type { Day } from '../data/dates.ts';
import type { ProductData } from '../data/model.ts';
import { NULL_SENTINEL } from '../data/model.ts';
import {
  asObject,
  at,
  dateValue,
  fail,
  isObject,
  type Json,
  optBool,
  regexValue,
  reqArray,
  reqInt,
  stringArray,
} from '../http/validate.ts';
import { combiEntryMatcher, matchEvents } from './event-selectors.ts';
import { columnOf, isSpecial, scalarKind } from './properties.ts';

export type ClientPredicate = (i: number) => boolean;
const ALL: ClientPredicate = () => true;

/** Parses `o.globalFilters` (absent or `{}` = everyone). */
export function parseGlobalFilters(pd: ProductData, o: Json, key = 'globalFilters'): ClientPredicate {
  const v = o[key];
  if (v === undefined || v === null) return ALL;
  const filters = asObject(v, key);
  const preds = Object.entries(filters).map(([name, f]) => parseFilter(pd, name, f, at(key, name)));
  if (preds.length === 0) return ALL;
  if (preds.length === 1) return preds[0]!;
  return (i) => {
    for (const p of preds) if (!p(i)) return false;
    return true;
  };
}

function parseFilter(pd: ProductData, name: string, f: unknown, path: string): ClientPredicate {
  if (isSpecial(name)) return parseSpecial(pd, name, f, path);
  const kind = scalarKind(pd, name);
  if (!kind) fail(path, `unknown property ${name}`);
  const o = asObject(f, path);
  requireKind(o, path, KINDS_OF[kind], name);
  const col = columnOf(pd, name);
  if (!col) return () => false;
  switch (col.kind) {
    case 'string': {
      const test = stringKindMatcher(o, path);
      const ok = new Uint8Array(col.dict.length + 1);
      ok[0] = test(null) ? 1 : 0;
      col.dict.forEach((s, k) => {
        ok[k + 1] = test(s) ? 1 : 0;
      });
      const codes = col.codes;
      return (i) => ok[codes[i]!] === 1;
    }
    case 'number': {
      const test = numberKindMatcher(o, path);
      const values = col.values;
      return (i) => {
        const v = values[i]!;
        return test(Number.isNaN(v) ? null : v);
      };
    }
    case 'date': {
      const test = dateKindMatcher(o, path);
      const days = col.days;
      return (i) => {
        const d = days[i]!;
        return test(d < 0 ? null : d);
      };
    }
    case 'boolean': {
      const test = booleanKindMatcher(o, path);
      const values = col.values;
      return (i) => {
        const v = values[i]!;
        return test(v === 2 ? null : v === 1);
      };
    }
  }
}

/** Filter kinds allowed per property type (docs/interface.md "Filters"). */
export const KINDS_OF = {
  string: ['string', 'stringArray', 'regex'],
  number: ['number', 'numberRange'],
  date: ['date', 'dateRange'],
  boolean: ['boolean'],
} as const;

export function requireKind(o: Json, path: string, kinds: readonly string[], name: string): void {
  if (typeof o.type !== 'string' || !kinds.includes(o.type))
    fail(at(path, 'type'), `must be one of ${kinds.join(', ')} for ${name}`);
}

/** string | stringArray | regex → test over a value (null = no value, matched by "<NULL>"). */
export function stringKindMatcher(o: Json, path: string): (s: string | null) => boolean {
  const valuePath = at(path, 'value');
  if (o.type === 'regex') {
    if (typeof o.value !== 'string') fail(valuePath, 'must be a string');
    const re = regexValue(o.value, valuePath);
    return (s) => s !== null && re.test(s);
  }
  if (o.type === 'string' && typeof o.value !== 'string') fail(valuePath, 'must be a string');
  const set = new Set(o.type === 'string' ? [o.value as string] : stringArray(o.value, valuePath));
  const matchNull = set.has(NULL_SENTINEL);
  return (s) => (s === null ? matchNull : set.has(s));
}

/** number | numberRange (inclusive) → test over a value (null never matches). */
export function numberKindMatcher(o: Json, path: string): (x: number | null) => boolean {
  if (o.type === 'number') {
    if (typeof o.value !== 'number' || !Number.isFinite(o.value)) fail(at(path, 'value'), 'must be a number');
    const want = o.value;
    return (x) => x === want;
  }
  const { min, max } = bounds(o, path, (v, p) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(p, 'must be a number');
    return v;
  });
  return (x) => x !== null && x >= min && x <= max;
}

/** date | dateRange (inclusive) → test over a day (null = no value, matched by date "<NULL>"). */
export function dateKindMatcher(o: Json, path: string): (d: Day | null) => boolean {
  if (o.type === 'date') {
    if (o.value === NULL_SENTINEL) return (d) => d === null;
    const want = dateValue(o.value, at(path, 'value'));
    return (d) => d === want;
  }
  const { min, max } = bounds(o, path, (v, p) => dateValue(v, p));
  return (d) => d !== null && d >= min && d <= max;
}

export function booleanKindMatcher(o: Json, path: string): (b: boolean | null) => boolean {
  if (typeof o.value !== 'boolean') fail(at(path, 'value'), 'must be a boolean');
  const want = o.value;
  return (b) => b === want;
}

function bounds(o: Json, path: string, read: (v: unknown, p: string) => number): { min: number; max: number } {
  const hasMin = o.min !== undefined && o.min !== null;
  const hasMax = o.max !== undefined && o.max !== null;
  if (!hasMin && !hasMax) fail(path, 'needs min or max');
  const min = hasMin ? read(o.min, at(path, 'min')) : Number.NEGATIVE_INFINITY;
  const max = hasMax ? read(o.max, at(path, 'max')) : Number.POSITIVE_INFINITY;
  if (min > max) fail(at(path, 'min'), 'must not be greater than max');
  return { min, max };
}

/** Array of objects; any object matching (OR); every flag given in one object must hold (AND). */
export function flagObjects<F extends string>(
  f: unknown,
  path: string,
  flags: readonly F[],
  read: (i: number, flag: F) => boolean | null,
): ClientPredicate {
  const alternatives = reqArrayAt(f, path).map((item, k) => {
    const p = at(path, k);
    const o = asObject(item, p);
    for (const key of Object.keys(o)) if (!flags.includes(key as F)) fail(at(p, key), 'unknown flag');
    return flags.flatMap((flag) => {
      const want = optBool(o, flag, p);
      return want === undefined ? [] : [[flag, want] as const];
    });
  });
  return (i) => alternatives.some((conds) => conds.every(([flag, want]) => read(i, flag) === want));
}

function reqArrayAt(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) fail(path, 'must be an array');
  if (v.length === 0) fail(path, 'must have at least 1 item(s)');
  return v;
}

function parseSpecial(pd: ProductData, name: string, f: unknown, path: string): ClientPredicate {
  switch (name) {
    case 'licenseStatus': {
      const recs = pd.registry.records;
      return flagObjects(f, path, ['activated', 'allowed', 'blocked', 'expired'] as const, (i, flag) => {
        const k = pd.licenseKeyIndex[i]!;
        return k < 0 ? null : recs[k]!.licenseStatus[flag];
      });
    }
    case 'os':
    case 'geography':
    case 'gpu': {
      const o = asObject(f, path);
      if (o.type !== undefined && o.type !== 'stringArray') fail(at(path, 'type'), 'must be stringArray');
      const levels = HIERARCHY_LEVELS[name];
      for (const key of Object.keys(o))
        if (key !== 'type' && !levels.includes(key)) fail(at(path, key), 'unknown level');
      const tests = levels.flatMap((level) => {
        if (o[level] === undefined) return [];
        const lp = at(path, level);
        const values = stringArray(asObject(o[level], lp).value, at(lp, 'value'));
        const col = columnOf(pd, `${name}.${level}`);
        if (col?.kind !== 'string') return [];
        const set = new Set(values);
        const ok = new Uint8Array(col.dict.length + 1);
        ok[0] = set.has(NULL_SENTINEL) ? 1 : 0;
        col.dict.forEach((s, k) => {
          ok[k + 1] = set.has(s) ? 1 : 0;
        });
        return [(i: number) => ok[col.codes[i]!] === 1];
      });
      if (tests.length === 0) fail(path, `needs at least one of ${levels.join(', ')}`);
      return (i) => tests.some((t) => t(i));
    }
    case 'optOut':
    case 'backOff': {
      const shift = name === 'optOut' ? 0 : 2;
      return flagObjects(f, path, ['current', 'historical'] as const, (i, flag) => {
        const bits = pd.privacy[i]! >>> shift;
        return flag === 'current' ? (bits & 1) === 1 : (bits & 2) === 2;
      });
    }
    case 'lifetimeEventUsage': {
      const entries = reqArrayAt(f, path).map((item, k) => {
        const p = at(path, k);
        const o = asObject(item, p);
        const matchers = reqArray(o, 'combiArray', p, { min: 1 }).map((e, j) =>
          combiEntryMatcher(e, at(at(p, 'combiArray'), j)),
        );
        const events = matchEvents(pd, (e) => matchers.some((m) => m.test(e)));
        const max = reqInt(o, 'max', p, { min: 0 });
        const min = o.min === undefined ? 0 : reqInt(o, 'min', p, { min: 0, max });
        // The planted surge adds to one event's count (activity.ts surgeExtra).
        const surges = pd.surge !== undefined && events.includes(pd.surge.event);
        return { events, min, max, surges };
      });
      const ne = pd.events.length;
      return (i) =>
        entries.every(({ events, min, max, surges }) => {
          let perDay = 0;
          for (const e of events) perDay += pd.eventPerDay[i * ne + e]!;
          let count = perDay * pd.lifetimeActiveDays[i]!;
          if (surges && count > 0) count += surgeExtra(pd, i, pd.firstDay, pd.today);
          return count >= min && count <= max;
        });
    }
    case 'reachOutDeliveries': {
      const alternatives = reqArrayAt(f, path).map((item, k) => {
        const p = at(path, k);
        const o = asObject(item, p);
        const conds: ((i: number) => boolean)[] = [];
        for (const kind of Object.keys(o)) {
          if (kind !== 'auto' && kind !== 'manual') fail(at(p, kind), 'unknown member');
          const kp = at(p, kind);
          const lists = asObject(o[kind], kp);
          for (const list of Object.keys(lists)) {
            if (list !== 'delivered' && !(list === 'undelivered' && kind === 'auto'))
              fail(at(kp, list), 'unknown member');
            const ids = new Set(stringArray(lists[list], at(kp, list)));
            const idx = pd.campaigns.flatMap((c, ci) => (c.kind === kind && ids.has(String(c.reachoutID)) ? [ci] : []));
            const got = (i: number) => pd.deliveries[i]!.some((ci) => idx.includes(ci));
            conds.push(list === 'delivered' ? got : (i) => !got(i));
          }
        }
        return conds;
      });
      return (i) => alternatives.some((conds) => conds.every((c) => c(i)));
    }
  }
  if (!isObject(f)) fail(path, 'unsupported filter');
  return fail(path, `unknown property ${name}`);
}
