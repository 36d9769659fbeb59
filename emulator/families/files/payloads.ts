/**
 * The family-specific cells at the end of a line, derived from a per-line hash: custom events (`customEventsLastLines`
 * `event.*`), exceptions (`exceptionsLastLines` `exception.*`) and raw events (the product's tracked events). Data and
 * stack traces carry commas, quotes and line breaks on purpose, so exports exercise CSV quoting.
 */
import type { Day } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';

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

const EXCEPTIONS: readonly { type: string; message: (h: number) => string; trace: (t: string, m: string) => string }[] =
  [
    {
      type: 'java.lang.NullPointerException',
      message: () => 'Cannot invoke "String.length()" because "name" is null',
      trace: (t, m) =>
        javaTrace(t, m, [
          'com.example.app.Editor.open(Editor.java:120)',
          'com.example.app.MainWindow.lambda$onOpen$3(MainWindow.java:88)',
          'java.base/java.util.concurrent.FutureTask.run(FutureTask.java:317)',
        ]),
    },
    {
      type: 'java.lang.ArrayIndexOutOfBoundsException',
      message: (h) => `Index ${3 + (h % 9)} out of bounds for length 3`,
      trace: (t, m) =>
        javaTrace(t, m, [
          'com.example.report.Table.cell(Table.java:45)',
          'com.example.report.Renderer.render(Renderer.java:210)',
        ]),
    },
    {
      type: 'System.IO.IOException',
      message: () =>
        "The process cannot access the file 'C:\\Users\\ada\\report.pdf' because it is being used by another process.",
      trace: (t, m) =>
        dotNetTrace(t, m, [
          'System.IO.FileStream.ValidateFileHandle(SafeFileHandle fileHandle, String path, Boolean useAsyncIO)',
          'Example.IO.FileWriter.Save(String path, Boolean overwrite) in C:\\src\\FileWriter.cs:line 57',
        ]),
    },
    {
      type: 'System.InvalidOperationException',
      message: (h) => `Collection was modified; enumeration operation may not execute. (item ${h % 500})`,
      trace: (t, m) =>
        dotNetTrace(t, m, [
          'System.Collections.Generic.List`1.Enumerator.MoveNext()',
          'Example.Sync.Merger.Apply(IList`1 changes, MergeOptions options) in C:\\src\\Merger.cs:line 133',
        ]),
    },
    {
      type: 'TimeoutError',
      message: (h) => `Request to "https://license.example.com/v1/check" timed out after ${5 + (h % 25)}s`,
      trace: (t, m) => `${t}: ${m}\n    at LicenseClient.check (license.js:42:11)\n    at async Promise.all (index 0)`,
    },
  ];

export function exceptionPayload(h: number): Payload {
  const e = pick(EXCEPTIONS, h);
  const message = e.message(h >>> 8);
  return [e.type, message, e.trace(e.type, message)];
}

/** A tracked event client i uses and that exists on `day`, chosen by h; -1 when there is none. */
export function rawEventIndex(pd: ProductData, i: number, day: Day, h: number): number {
  const count = pd.events.length;
  for (let k = 0; k < count; k++) {
    const e = (h + k) % count;
    if ((pd.eventPerDay[i * count + e] ?? 0) > 0 && pd.events[e]!.dateFirstSeen <= day) return e;
  }
  return -1;
}

export function rawEventPayload(pd: ProductData, e: number): Payload {
  const ev = pd.events[e]!;
  return [ev.category ?? '', ev.name, ev.customValue === null ? '' : String(ev.customValue)];
}
