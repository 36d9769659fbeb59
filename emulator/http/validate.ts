/**
 * Request-body readers that fail with a 400 naming the field path (`levels.level1.segments[2].value: …`).
 * Every family validates through these, so messages read the same across the whole emulator.
 */
import { type Day, parseDay } from '../data/dates.ts';
import { badRequest } from './errors.ts';

export type Json = Record<string, unknown>;

export const at = (parent: string, key: string | number): string =>
  typeof key === 'number' ? `${parent}[${key}]` : parent === '' ? key : `${parent}.${key}`;

export function fail(path: string, problem: string): never {
  throw badRequest(path || 'body', problem);
}

export function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function asObject(v: unknown, path: string): Json {
  if (!isObject(v)) fail(path, 'must be an object');
  return v;
}

/** The top-level body: must be a JSON object (absent bodies arrive as `{}`). */
export function bodyObject(v: unknown): Json {
  if (!isObject(v)) fail('body', 'must be a JSON object');
  return v;
}

export function reqString(o: Json, key: string, parent = '', opts: { min?: number; max?: number } = {}): string {
  const path = at(parent, key);
  const v = o[key];
  if (v === undefined || v === null) fail(path, 'required');
  if (typeof v !== 'string') fail(path, 'must be a string');
  if (opts.min !== undefined && v.length < opts.min) fail(path, `must be at least ${opts.min} characters`);
  if (opts.max !== undefined && v.length > opts.max) fail(path, `must be at most ${opts.max} characters`);
  return v;
}

export function optString(o: Json, key: string, parent = ''): string | undefined {
  return o[key] === undefined || o[key] === null ? undefined : reqString(o, key, parent);
}

export function reqNumber(o: Json, key: string, parent = '', opts: { min?: number; max?: number } = {}): number {
  const path = at(parent, key);
  const v = o[key];
  if (v === undefined || v === null) fail(path, 'required');
  if (typeof v !== 'number' || !Number.isFinite(v)) fail(path, 'must be a number');
  if (opts.min !== undefined && v < opts.min) fail(path, `must be ≥ ${opts.min}`);
  if (opts.max !== undefined && v > opts.max) fail(path, `must be ≤ ${opts.max}`);
  return v;
}

export function optNumber(o: Json, key: string, parent = '', opts: { min?: number; max?: number } = {}) {
  return o[key] === undefined || o[key] === null ? undefined : reqNumber(o, key, parent, opts);
}

export function reqInt(o: Json, key: string, parent = '', opts: { min?: number; max?: number } = {}): number {
  const v = reqNumber(o, key, parent, opts);
  if (!Number.isInteger(v)) fail(at(parent, key), 'must be an integer');
  return v;
}

export function optInt(o: Json, key: string, parent = '', opts: { min?: number; max?: number } = {}) {
  return o[key] === undefined || o[key] === null ? undefined : reqInt(o, key, parent, opts);
}

export function optBool(o: Json, key: string, parent = ''): boolean | undefined {
  const v = o[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') fail(at(parent, key), 'must be a boolean');
  return v;
}

export function reqEnum<T extends string>(o: Json, key: string, values: readonly T[], parent = ''): T {
  const path = at(parent, key);
  const v = o[key];
  if (v === undefined || v === null) fail(path, 'required');
  if (typeof v !== 'string' || !values.includes(v as T)) fail(path, `must be one of ${values.join(', ')}`);
  return v as T;
}

export function optEnum<T extends string>(o: Json, key: string, values: readonly T[], parent = ''): T | undefined {
  return o[key] === undefined || o[key] === null ? undefined : reqEnum(o, key, values, parent);
}

export function dateValue(v: unknown, path: string): Day {
  if (v === undefined || v === null) fail(path, 'required');
  if (typeof v !== 'string') fail(path, 'must be a date string YYYY-MM-DD');
  const day = parseDay(v);
  if (day === undefined) fail(path, 'invalid date (expected YYYY-MM-DD)');
  return day;
}

export function reqDate(o: Json, key: string, parent = ''): Day {
  return dateValue(o[key], at(parent, key));
}

export function optDate(o: Json, key: string, parent = ''): Day | undefined {
  return o[key] === undefined || o[key] === null ? undefined : reqDate(o, key, parent);
}

/** `startDate`/`stopDate`, both required, start ≤ stop. */
export function dateRange(o: Json, parent = ''): { startDay: Day; stopDay: Day } {
  const startDay = reqDate(o, 'startDate', parent);
  const stopDay = reqDate(o, 'stopDate', parent);
  if (startDay > stopDay) fail(at(parent, 'startDate'), 'must not be after stopDate');
  return { startDay, stopDay };
}

export function reqArray(o: Json, key: string, parent = '', opts: { min?: number; max?: number } = {}): unknown[] {
  const path = at(parent, key);
  const v = o[key];
  if (v === undefined || v === null) fail(path, 'required');
  if (!Array.isArray(v)) fail(path, 'must be an array');
  if (opts.min !== undefined && v.length < opts.min) fail(path, `must have at least ${opts.min} item(s)`);
  if (opts.max !== undefined && v.length > opts.max) fail(path, `must have at most ${opts.max} items`);
  return v;
}

export function optArray(o: Json, key: string, parent = '', opts: { min?: number; max?: number } = {}) {
  return o[key] === undefined || o[key] === null ? undefined : reqArray(o, key, parent, opts);
}

export function stringArray(v: unknown, path: string): string[] {
  if (!Array.isArray(v)) fail(path, 'must be an array of strings');
  v.forEach((item, i) => {
    if (typeof item !== 'string') fail(at(path, i), 'must be a string');
  });
  return v as string[];
}

/** Compiles an ECMAScript regex (case-sensitive, unanchored: docs/interface.md "Filters") or fails naming the path. */
export function regexValue(pattern: string, path: string): RegExp {
  if (pattern.length > 1000) fail(path, 'regex longer than 1000 characters');
  try {
    return new RegExp(pattern, 'u');
  } catch {
    fail(path, 'invalid regular expression');
  }
}
