/**
 * Config fuzzing (issue 14): mutations of the bundled example (values replaced by wrong types, huge, negative and
 * fractional numbers, odd strings; fields removed; unknown fields added) either parse or throw a ConfigError whose
 * every line names a field path; never another exception. loadConfig on mutated files (also broken JSON text) writes
 * nothing.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/load.ts';

const EXAMPLE = new URL('../../examples/pulse.config.json', import.meta.url).pathname;
const EXAMPLE_TEXT = readFileSync(EXAMPLE, 'utf8');
type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const example = (): Json => JSON.parse(EXAMPLE_TEXT) as Json;

/** Every path in the example (objects' keys and arrays' indexes), the root excluded. */
function pathsOf(v: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  const entries: [string | number, Json][] = Array.isArray(v)
    ? v.map((x, i) => [i, x])
    : v !== null && typeof v === 'object'
      ? Object.entries(v)
      : [];
  for (const [k, x] of entries) {
    out.push([...prefix, k]);
    pathsOf(x, [...prefix, k], out);
  }
  return out;
}
const PATHS = pathsOf(example());

const oddString = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    '../../etc/passwd',
    '/abs/path',
    'a\u0000b',
    '\u202Eevil',
    'ｅxample.com',
    '<script>alert(1)</script>',
    '=HYPERLINK("x")',
    'x'.repeat(100_000),
    '__proto__',
    'constructor',
    'NaN',
    '-1',
    '1e309',
    'http://',
    'javascript:alert(1)',
    '127.0.0.1',
    'Mars/Base',
    '25:00',
  ),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const oddNumber = fc.oneof(
  fc.constantFrom(0, -0, -1, 0.5, 1e308, -1e308, 2 ** 53 + 1, Number.MAX_SAFE_INTEGER, 1e-300),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);
const oddValue: fc.Arbitrary<Json> = fc.oneof(
  oddString,
  oddNumber,
  fc.constantFrom(null, true, false, [], {}, [null], { '': 1 }),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
);

type Mutation =
  | { kind: 'replace'; path: (string | number)[]; value: Json }
  | { kind: 'delete'; path: (string | number)[] }
  | { kind: 'extra'; path: (string | number)[]; key: string; value: Json };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('replace' as const), path: fc.constantFrom(...PATHS), value: oddValue }),
  fc.record({ kind: fc.constant('delete' as const), path: fc.constantFrom(...PATHS) }),
  fc.record({
    kind: fc.constant('extra' as const),
    path: fc.constantFrom([] as (string | number)[], ...PATHS),
    key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'password', 'toString', ''), fc.string({ maxLength: 8 })),
    value: oddValue,
  }),
);

function apply(root: Json, m: Mutation): Json {
  const parentPath = m.kind === 'extra' ? m.path : m.path.slice(0, -1);
  let parent: Json = root;
  for (const k of parentPath) {
    if (parent === null || typeof parent !== 'object') return root;
    parent = (parent as Record<string | number, Json>)[k] ?? null;
  }
  if (parent === null || typeof parent !== 'object') return root;
  const obj = parent as Record<string | number, Json>;
  if (m.kind === 'extra') {
    if (Array.isArray(obj)) obj.push(m.value);
    // defineProperty: `__proto__` as an own key, as JSON.parse makes it.
    else Object.defineProperty(obj, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
  } else {
    const key = m.path.at(-1)!;
    if (m.kind === 'delete') {
      if (Array.isArray(obj)) obj.splice(key as number, 1);
      else delete obj[key];
    } else obj[key] = m.value;
  }
  return root;
}

/** A line `  <path>: <message>`: `(root)`, or a path made of identifiers, `[n]` and `["key"]`. */
const PATH_LINE =
  /^ {2}(\(root\)|(?:[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])(?:\.[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*): \S/;

function expectNamedOrAccepted(run: () => unknown): 'accepted' | 'refused' {
  try {
    run();
    return 'accepted';
  } catch (e) {
    expect(e, String((e as Error)?.stack)).toBeInstanceOf(ConfigError);
    const [head, ...lines] = (e as Error).message.split('\n');
    expect(head).toMatch(/: invalid configuration$/);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(PATH_LINE);
    return 'refused';
  }
}

describe('parseConfig under mutation', () => {
  it('accepts or throws a ConfigError naming a field path, never anything else', () => {
    const seen = { accepted: 0, refused: 0 };
    fc.assert(
      fc.property(fc.array(mutation, { minLength: 1, maxLength: 3 }), (ms) => {
        const cfg = ms.reduce(apply, example());
        seen[expectNamedOrAccepted(() => parseConfig(cfg))]++;
      }),
      { numRuns: 300, seed: 14 },
    );
    // The mutations do reach the validation (most are refused), and the harness does not refuse everything.
    expect(seen.refused).toBeGreaterThan(100);
  });

  it('a refusal names the mutated field (single replacements with a wrong type)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...PATHS), fc.constantFrom<Json>(null, [], { x: 1 }), (path, value) => {
        const original = path.reduce<Json>((v, k) => (v as Record<string | number, Json>)[k] as Json, example());
        // Replacing with the same kind of value may be valid; only a type change must be refused.
        if (typeof original === typeof value && Array.isArray(original) === Array.isArray(value)) return;
        try {
          parseConfig(apply(example(), { kind: 'replace', path, value }));
        } catch (e) {
          expect(e).toBeInstanceOf(ConfigError);
          const named = path.map((k) => (typeof k === 'number' ? `[${k}]` : k));
          // The message names the field, or (for an object's own field turned `{x: 1}`) a field under it.
          expect((e as Error).message).toContain(named.at(-1));
          return;
        }
        // `name`-like optional fields accept nothing else: a wrong type is never accepted.
        expect.fail(`${path.join('.')} = ${JSON.stringify(value)} was accepted`);
      }),
      { numRuns: 200, seed: 14 },
    );
  });

  it('non-objects at the root and prototype keys', () => {
    for (const v of [null, undefined, 1, 'x', [], true, Object.create(null)])
      expectNamedOrAccepted(() => parseConfig(v));
    const polluted = JSON.parse(`{"__proto__": {"polluted": 1}, ${EXAMPLE_TEXT.trim().slice(1)}`);
    expectNamedOrAccepted(() => parseConfig(polluted));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('loadConfig on a file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pulse-config-fuzz-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const listing = () =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .sort()
      .map((f) => `${f}:${statSync(join(dir, f)).size}:${statSync(join(dir, f)).mtimeMs}`);
  const cwdPulse = () => readdirSync(process.cwd()).filter((f) => f === '.pulse' || f.startsWith('pulse-'));

  it('mutated documents and broken JSON text: a named ConfigError or a config, and nothing written', () => {
    const file = join(dir, 'pulse.config.json');
    const text = fc.oneof(
      fc.array(mutation, { minLength: 1, maxLength: 3 }).map((ms) => JSON.stringify(ms.reduce(apply, example()))),
      fc.nat({ max: EXAMPLE_TEXT.length }).map((n) => EXAMPLE_TEXT.slice(0, n)),
      fc
        .tuple(fc.nat({ max: EXAMPLE_TEXT.length }), fc.string({ unit: 'binary', maxLength: 4 }))
        .map(([n, s]) => EXAMPLE_TEXT.slice(0, n) + s + EXAMPLE_TEXT.slice(n)),
      fc.constantFrom('', '\uFEFF{}', '[]', 'null', '{"service":', '{'.repeat(10_000), '"\u0000"'),
    );
    const before = cwdPulse();
    fc.assert(
      fc.property(text, (t) => {
        writeFileSync(file, t);
        const snapshot = listing();
        try {
          loadConfig(file);
        } catch (e) {
          expect(e).toBeInstanceOf(ConfigError);
          expect((e as Error).message.startsWith(`${file}: `)).toBe(true);
        }
        expect(listing()).toEqual(snapshot);
        expect(readFileSync(file, 'utf8')).toBe(t);
      }),
      { numRuns: 200, seed: 14 },
    );
    expect(cwdPulse()).toEqual(before);
    // A missing file and a directory: named too.
    for (const p of [join(dir, 'missing.json'), dir]) expect(() => loadConfig(p)).toThrow(ConfigError);
  });
});
