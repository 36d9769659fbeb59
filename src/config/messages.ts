/**
 * What a config that does not load is told, in its writer's terms: where a JSON syntax error is (line and column;
 * `pulse api --body` says it in the same words), a misspelt key with the known key it likely means ("did you mean"),
 * and a missing field called required rather than "received undefined".
 */
import { closestMatch } from 'leven';
import type * as z from 'zod';

/**
 * Where JSON.parse failed on `text`, and why: `at line L, column C (position P): what`. `error` is what JSON.parse
 * threw; its message loses V8's own position and its echo of the input (which may be long, or hold a secret).
 */
export function jsonSyntaxError(text: string, error: unknown): string {
  const pos = syntaxErrorPosition(text);
  const line = text.slice(0, pos).split('\n').length;
  const column = pos - text.lastIndexOf('\n', pos - 1);
  const what = (error as Error).message
    .replace(/ in JSON at position.*$|, ".*$/s, '')
    .replace(/\p{Cc}/gu, (c) => JSON.stringify(c).slice(1, -1));
  return `at line ${line}, column ${column} (position ${pos}): ${what}`;
}

/**
 * Where JSON.parse fails in `text` (which it does). V8 names the position for most errors; for the rest, the
 * shortest prefix that fails for a reason other than ending too early ends at the bad character.
 */
function syntaxErrorPosition(text: string): number {
  const failure = (t: string): number | 'end' | 'here' | undefined => {
    try {
      JSON.parse(t);
      return undefined;
    } catch (e) {
      const m = /at position (\d+)/.exec((e as Error).message);
      if (m) return Number(m[1]) >= t.length ? 'end' : Number(m[1]);
      return /Unexpected end/.test((e as Error).message) ? 'end' : 'here';
    }
  };
  const whole = failure(text);
  if (typeof whole === 'number') return whole;
  if (whole !== 'here') return text.length;
  let lo = 1;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    const f = failure(text.slice(0, mid));
    if (f === 'here' || typeof f === 'number') hi = mid;
    else lo = mid + 1;
  }
  return lo - 1;
}

/** One schema issue of `input` (checked against `schema`), in the words of the config's writer. */
export function issueMessage(issue: z.core.$ZodIssue, input: unknown, schema: z.ZodType): string {
  if (issue.code === 'unrecognized_keys') {
    const known = keysAt(schema, issue.path, input);
    const keys = issue.keys.map((key) => {
      const like = closestMatch(key, known, { maxDistance: Math.max(2, Math.floor(key.length / 3)) });
      return like === undefined
        ? JSON.stringify(key)
        : `${JSON.stringify(key)} (did you mean ${JSON.stringify(like)}?)`;
    });
    return `Unrecognized key${keys.length > 1 ? 's' : ''}: ${keys.join(', ')}`;
  }
  if (isMissing(input, issue.path)) {
    if (issue.code === 'invalid_type') return `required (${issue.expected})`;
    if (issue.code === 'invalid_union' && 'options' in issue)
      return `required (one of ${(issue.options as unknown[]).map((o) => JSON.stringify(o)).join(', ')})`;
  }
  return issue.message.replace(/^Invalid input: /, '');
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) value = isObject(value) ? value[key as string] : undefined;
  return value;
}

/** The field at `path` is absent from an object that is there (not present with a wrong value). */
function isMissing(input: unknown, path: readonly PropertyKey[]): boolean {
  const parent = valueAt(input, path.slice(0, -1));
  return path.length > 0 && isObject(parent) && !Object.hasOwn(parent, path.at(-1) as string);
}

const isObject = (v: unknown): v is Record<PropertyKey, unknown> => typeof v === 'object' && v !== null;

type Def = {
  type: string;
  shape?: Record<string, z.ZodType>;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  getter?: () => z.ZodType;
};
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/**
 * The keys the schema knows for the object at `path`, walking zod's own definitions down the path (through
 * wrappers, arrays, records and unions) beside `here`, the value at that level: of a discriminated union, only the
 * option the value names (all of them when it names none).
 */
function keysAt(schema: z.ZodType, path: readonly PropertyKey[], here: unknown): string[] {
  const def = unwrap(schema);
  if (def.type === 'union') {
    const options = def.options ?? [];
    const d = def.discriminator;
    const named =
      d === undefined ? [] : options.filter((o) => literalValues(unwrap(o).shape?.[d]).includes(valueAt(here, [d])));
    return [...new Set((named.length > 0 ? named : options).flatMap((o) => keysAt(o, path, here)))];
  }
  const [key, ...rest] = path;
  if (key === undefined) return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
  const next =
    def.type === 'object'
      ? def.shape?.[key as string]
      : def.type === 'array'
        ? def.element
        : def.type === 'record'
          ? def.valueType
          : undefined;
  return next === undefined ? [] : keysAt(next, rest, valueAt(here, [key]));
}

function unwrap(schema: z.ZodType): Def {
  let def = defOf(schema);
  for (;;) {
    const inner = def.type === 'pipe' ? def.in : def.type === 'lazy' ? def.getter?.() : def.innerType;
    if (inner === undefined) return def;
    def = defOf(inner);
  }
}

function literalValues(schema: z.ZodType | undefined): unknown[] {
  return schema === undefined ? [] : ((unwrap(schema) as { values?: unknown[] }).values ?? []);
}
