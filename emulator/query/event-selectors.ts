/**
 * Event selectors (docs/interface.md "Event selectors"): the single form `{category, name}` and the combination form
 * `{combiLabel?, combiArray: [...]}`. A selector resolves to the indexes of the product's events it matches.
 */
import type { ProductData, TrackedEvent } from '../data/model.ts';
import { asObject, at, fail, type Json, optEnum, regexValue, reqArray } from '../http/validate.ts';

export interface ResolvedSelector {
  /** Fields of the response's EventValue besides `value`. */
  key: { category: string | null; name: string } | { combiLabel: string };
  /** Indexes into pd.events. */
  events: number[];
  single: boolean;
}

function categoryOf(o: Json, path: string): string | null {
  const v = o.category;
  if (v === null || v === undefined) return null;
  if (typeof v !== 'string') fail(at(path, 'category'), 'must be a string or null');
  return v;
}

function nameOf(o: Json, path: string): string {
  const v = o.name;
  if (v === undefined || v === null) fail(at(path, 'name'), 'required');
  if (typeof v !== 'string') fail(at(path, 'name'), 'must be a string');
  return v;
}

/** Matcher for one CombiEntry (`categoryType`/`nameType` default to exact `string`). */
export function combiEntryMatcher(v: unknown, path: string): { test: (e: TrackedEvent) => boolean; label: string } {
  const o = asObject(v, path);
  const category = categoryOf(o, path);
  const name = nameOf(o, path);
  const categoryType = optEnum(o, 'categoryType', ['string', 'regex'] as const, path) ?? 'string';
  const nameType = optEnum(o, 'nameType', ['string', 'regex'] as const, path) ?? 'string';
  if (categoryType === 'regex' && category === null)
    fail(at(path, 'category'), 'must be a string with categoryType regex');
  const catRe = categoryType === 'regex' ? regexValue(category as string, at(path, 'category')) : undefined;
  const nameRe = nameType === 'regex' ? regexValue(name, at(path, 'name')) : undefined;
  return {
    label: `${category ?? ''}/${name}`,
    test: (e) =>
      (catRe ? e.category !== null && catRe.test(e.category) : e.category === category) &&
      (nameRe ? nameRe.test(e.name) : e.name === name),
  };
}

export function matchEvents(pd: ProductData, test: (e: TrackedEvent) => boolean): number[] {
  const out: number[] = [];
  pd.events.forEach((e, k) => {
    if (test(e)) out.push(k);
  });
  return out;
}

/** Resolves one selector of either form. `forms` limits what the operation accepts. */
export function parseSelector(
  pd: ProductData,
  v: unknown,
  path: string,
  forms: 'both' | 'single' = 'both',
): ResolvedSelector {
  const o = asObject(v, path);
  if (o.combiArray !== undefined) {
    if (forms === 'single') fail(path, 'combination selectors are not accepted here; use {category, name}');
    const entries = reqArray(o, 'combiArray', path, { min: 1, max: 100 }).map((e, k) =>
      combiEntryMatcher(e, at(at(path, 'combiArray'), k)),
    );
    const label = o.combiLabel;
    if (label !== undefined && label !== null && typeof label !== 'string')
      fail(at(path, 'combiLabel'), 'must be a string');
    const events = matchEvents(pd, (e) => entries.some((m) => m.test(e)));
    return {
      key: { combiLabel: typeof label === 'string' ? label : entries.map((m) => m.label).join(', ') },
      events,
      single: false,
    };
  }
  const category = categoryOf(o, path);
  const name = nameOf(o, path);
  return {
    key: { category, name },
    events: matchEvents(pd, (e) => e.category === category && e.name === name),
    single: true,
  };
}

export function parseSelectors(
  pd: ProductData,
  o: Json,
  key: string,
  parent = '',
  forms: 'both' | 'single' = 'both',
): ResolvedSelector[] {
  return reqArray(o, key, parent, { min: 1, max: 100 }).map((v, k) =>
    parseSelector(pd, v, at(at(parent, key), k), forms),
  );
}
