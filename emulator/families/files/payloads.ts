/**
 * The family-specific cells at the end of a line, derived from a per-line hash: custom events (`customEventsLastLines`
 * `event.*`), exceptions (`exceptionsLastLines` `exception.*`) and raw events (the product's tracked events). Data and
 * stack traces carry commas, quotes and line breaks on purpose, so exports exercise CSV quoting.
 */
import { EXCEPTION_TYPES } from '../../data/catalogue.ts';
import type { Day } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';
import { hash3 } from '../../data/rng.ts';

export type Payload = readonly [string, string, string];

const pick = <T>(items: readonly T[], h: number): T => items[h % items.length]!;

const CUSTOM_EVENTS: readonly { category: string; name: string; data: (h: number) => string }[] = [
  { category: 'Workflow', name: 'Batch Run', data: (h) => `files=${1 + (h % 40)}` },
  {
    category: 'Workflow',
    name: 'Export',
    data: (h) => `format=${pick(['PDF', 'DOCX', 'CSV'], h)};pages=${1 + (h % 60)}`,
  },
  { category: 'Import', name: 'CSV Import', data: (h) => `rows=${100 + (h % 5000)},columns=${2 + (h % 20)}` },
  { category: 'Account', name: 'Sign In', data: (h) => `method=${pick(['password', 'SSO', 'token'], h)}` },
  {
    category: 'Feedback',
    name: 'Rating',
    data: (h) => `stars=${1 + (h % 5)}; comment="${pick(['Great, fast', 'Too slow', 'Needs "dark" mode'], h >>> 4)}"`,
  },
  { category: 'Diagnostics', name: 'Slow Operation', data: (h) => `op=render;ms=${200 + (h % 3000)}` },
  { category: 'Settings', name: 'Theme Changed', data: (h) => `theme=${pick(['dark', 'light', 'system'], h)}` },
  { category: '', name: 'App Start', data: () => '' },
];

export function customEventPayload(h: number): Payload {
  const e = pick(CUSTOM_EVENTS, h);
  return [e.category, e.name, e.data(h >>> 8)];
}

const javaTrace = (type: string, message: string, frames: readonly string[]) =>
  [`${type}: ${message}`, ...frames.map((f) => `\tat ${f}`)].join('\n');
const dotNetTrace = (type: string, message: string, frames: readonly string[]) =>
  [`${type}: ${message}`, ...frames.map((f) => `   at ${f}`)].join('\r\n');

/** Message and stack trace of each exception type (EXCEPTION_TYPES names them and fixes their order). */
const EXCEPTION_TEXT: Readonly<
  Record<string, { message: (h: number) => string; trace: (t: string, m: string) => string }>
> = {
  'java.lang.NullPointerException': {
    message: () => 'Cannot invoke "String.length()" because "name" is null',
    trace: (t, m) =>
      javaTrace(t, m, [
        'com.example.app.Editor.open(Editor.java:120)',
        'com.example.app.MainWindow.lambda$onOpen$3(MainWindow.java:88)',
        'java.base/java.util.concurrent.FutureTask.run(FutureTask.java:317)',
      ]),
  },
  'java.lang.ArrayIndexOutOfBoundsException': {
    message: (h) => `Index ${3 + (h % 9)} out of bounds for length 3`,
    trace: (t, m) =>
      javaTrace(t, m, [
        'com.example.report.Table.cell(Table.java:45)',
        'com.example.report.Renderer.render(Renderer.java:210)',
      ]),
  },
  'System.IO.IOException': {
    message: () =>
      "The process cannot access the file 'C:\\Users\\ada\\report.pdf' because it is being used by another process.",
    trace: (t, m) =>
      dotNetTrace(t, m, [
        'System.IO.FileStream.ValidateFileHandle(SafeFileHandle fileHandle, String path, Boolean useAsyncIO)',
        'Example.IO.FileWriter.Save(String path, Boolean overwrite) in C:\\src\\FileWriter.cs:line 57',
      ]),
  },
  'System.InvalidOperationException': {
    message: (h) => `Collection was modified; enumeration operation may not execute. (item ${h % 500})`,
    trace: (t, m) =>
      dotNetTrace(t, m, [
        'System.Collections.Generic.List`1.Enumerator.MoveNext()',
        'Example.Sync.Merger.Apply(IList`1 changes, MergeOptions options) in C:\\src\\Merger.cs:line 133',
      ]),
  },
  TimeoutError: {
    message: (h) => `Request to "https://license.example.com/v1/check" timed out after ${5 + (h % 25)}s`,
    trace: (t, m) => `${t}: ${m}\n    at LicenseClient.check (license.js:42:11)\n    at async Promise.all (index 0)`,
  },
};
const EXCEPTIONS = EXCEPTION_TYPES.map((type) => ({ type, ...EXCEPTION_TEXT[type]! }));

export function exceptionPayload(h: number): Payload {
  const e = pick(EXCEPTIONS, h);
  const message = e.message(h >>> 8);
  return [e.type, message, e.trace(e.type, message)];
}

/** True when client i uses event e and e exists on `day`. */
function usesOn(pd: ProductData, i: number, e: number, day: Day): boolean {
  return (pd.eventPerDay[i * pd.events.length + e] ?? 0) > 0 && pd.events[e]!.dateFirstSeen <= day;
}

/** A tracked event client i uses and that exists on `day`, chosen by h; -1 when there is none. */
export function rawEventIndex(pd: ProductData, i: number, day: Day, h: number): number {
  const count = pd.events.length;
  for (let k = 0; k < count; k++) {
    const e = (h + k) % count;
    if (usesOn(pd, i, e, day)) return surged(pd, i, day, h, e);
  }
  return -1;
}

const SURGE_SALT = 0x52535247;

/**
 * The event of a raw line under the planted event surge (episodes.ts): on the surge's days, a line of a client that
 * uses the surging event s and that named another event names s instead with probability q = extra·P/(1 − P), P
 * being the chance the pick above lands on s (s and the unused events just before it, of all starting offsets). The
 * expected number of lines naming s is then (1 + extra)·P, the surge's factor times what it was; the day keeps its
 * number of lines (a raw export samples occurrences, it does not list them all).
 */
function surged(pd: ProductData, i: number, day: Day, h: number, e: number): number {
  const s = pd.surge;
  if (s === undefined || e === s.event || day < s.from || day > s.to || !usesOn(pd, i, s.event, day)) return e;
  const count = pd.events.length;
  let landing = 1;
  while (landing < count && !usesOn(pd, i, (s.event - landing + count) % count, day)) landing++;
  const p = landing / count;
  const q = Math.min(1, (s.extra * p) / (1 - p));
  return hash3(h, day, SURGE_SALT) / 4294967296 < q ? s.event : e;
}

export function rawEventPayload(pd: ProductData, e: number): Payload {
  const ev = pd.events[e]!;
  return [ev.category ?? '', ev.name, ev.customValue === null ? '' : String(ev.customValue)];
}
