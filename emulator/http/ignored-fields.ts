/**
 * Which members of a read's JSON body the handler never looked at. The interface ignores unknown members
 * (docs/interface.md "Requests and headers"), so a misplaced field (`{"limit": 3}` for `paging.limit`) would
 * otherwise change nothing without a word; the server logs these and names them in a response header.
 *
 * The body is handed to the handler behind proxies that record each member looked up (read, `in`, `Object.hasOwn`).
 * Enumerating an object's keys counts as reading all of them: a handler that walks the keys decides about each
 * (the filters fail on an unknown name). Array items are values, not fields; objects inside arrays are tracked.
 */
import type { EmulatorState } from '../state.ts';
import { at, type Json } from './validate.ts';

export interface TrackedBody {
  /** The body to hand to the handler. */
  body: Json;
  /** Dotted paths (`paging.limt`, `levels.level1.segments[0].vlaue`) of members never looked at, in body order. */
  ignored(): string[];
}

export function trackFieldReads(body: Json): TrackedBody {
  const read = new WeakMap<object, Set<string>>();
  const proxies = new WeakMap<object, object>();
  const wrap = (v: unknown): unknown => {
    if (typeof v !== 'object' || v === null) return v;
    let p = proxies.get(v);
    if (!p) {
      p = new Proxy(v, handler);
      proxies.set(v, p);
    }
    return p;
  };
  const mark = (target: object, key: string | symbol) => {
    if (Array.isArray(target) || typeof key !== 'string' || !Object.hasOwn(target, key)) return;
    const keys = read.get(target) ?? new Set<string>();
    read.set(target, keys.add(key));
  };
  const handler: ProxyHandler<object> = {
    get(target, key) {
      mark(target, key);
      return wrap(Reflect.get(target, key));
    },
    has(target, key) {
      mark(target, key);
      return Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      mark(target, key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys(target) {
      const keys = Reflect.ownKeys(target);
      for (const k of keys) mark(target, k);
      return keys;
    },
  };

  const unread = (v: unknown, path: string, out: string[]) => {
    if (typeof v !== 'object' || v === null) return;
    if (Array.isArray(v)) {
      v.forEach((item, i) => {
        unread(item, at(path, i), out);
      });
      return;
    }
    const seen = read.get(v);
    for (const [k, child] of Object.entries(v)) {
      if (seen?.has(k)) unread(child, at(path, k), out);
      else out.push(at(path, k));
    }
  };
  return {
    body: wrap(body) as Json,
    ignored: () => {
      const out: string[] = [];
      unread(body, '', out);
      return out;
    },
  };
}

/** At most this many names go into the header (a body may hold thousands); the log names every one. */
const HEADER_NAMES = 20;

/**
 * The header value naming the ignored fields: comma-separated, each percent-encoded where it is not plain (a
 * member name may hold any character, a header value may not), with the count of the rest past the first 20.
 */
export function ignoredFieldsHeader(paths: readonly string[]): string {
  const shown = paths.slice(0, HEADER_NAMES).map((p) => p.replace(/[^\w.[\]$-]/gu, (c) => encodeURIComponent(c)));
  const rest = paths.length - shown.length;
  return rest > 0 ? `${shown.join(', ')}, (${rest} more)` : shown.join(', ');
}

/**
 * For a POST read: logs each ignored field with the operation and the request path, and returns the response header
 * naming them (`<prefix>-Ignored-Fields`, emulator/README.md), or no header when the handler read every member.
 */
export function reportIgnoredFields(
  state: EmulatorState,
  operationId: string,
  path: string,
  tracked: TrackedBody | undefined,
): Record<string, string> {
  const paths = tracked?.ignored() ?? [];
  if (paths.length === 0) return {};
  const log = state.options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  for (const p of paths) log(`emulator: ${operationId} POST ${path}: ignored body field ${JSON.stringify(p)}`);
  return { [`${state.options.headerPrefix}-Ignored-Fields`]: ignoredFieldsHeader(paths) };
}
