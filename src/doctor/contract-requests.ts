/**
 * What `pulse doctor --contract` sends to each operation: one small, cheap, read-only request, built from what the
 * earlier answers told (a listable property, a basic and an advanced event, a listed file name). Writes and the
 * whole-file client export are never sent; logout ends the check's own session last.
 */
import type { OperationId } from '../api/operations.ts';

/** What earlier answers told the later requests. */
export interface PlanContext {
  /** The product every product-scoped request names (the config's first). */
  productId: string;
  /** Four weeks of finished days ending a week before today: `{startDate, stopDate}`. */
  range: { startDate: string; stopDate: string };
  /** A property `propertyValues` can list (from productProperties). */
  property?: string | undefined;
  basicEvent?: { category: string | null; name: string };
  advancedEvent?: { category: string | null; name: string };
  /** The product whose raw event listing answered (the first configured one with raw data export). */
  rawProductId?: string;
  /** A listed file name per file family (from its listing). */
  files: Partial<Record<'customEvents' | 'exceptions' | 'rawEvents', string | undefined>>;
}

export type PlannedRequest = { body?: unknown } | { notSent: string };

/** Why an operation is never called. */
export const NEVER_CALLED: Partial<Record<OperationId, string>> = {
  updateLicenseKeys: 'skipped: writes (changes license keys)',
  insertLicenseKeys: 'skipped: writes (changes license keys)',
  exportClientPropertyList: 'skipped: streams every client as one export, a whole-file download',
};

const LOST = { daysUntilDeclaredLost: 30, dateReportedLost: 'dateDeclaredLost' } as const;
const needs = (what: string): PlannedRequest => ({ notSent: `not checked: needs ${what}` });
const withEvent = (
  event: PlanContext['basicEvent'],
  what: string,
  body: (e: NonNullable<PlanContext['basicEvent']>) => unknown,
): PlannedRequest => (event ? { body: body(event) } : needs(what));
const download = (file: string | undefined, listing: string): PlannedRequest =>
  file ? { body: { fileName: file } } : needs(`a file listed by ${listing}`);

/** The request of every operation the check sends through the table (sign-in and logout go through the client). */
export const REQUESTS: Partial<Record<OperationId, (c: PlanContext) => PlannedRequest>> = {
  productProperties: () => ({}),
  propertyValues: (c) => (c.property ? { body: { property: c.property } } : needs('a listable property')),
  listEvents: () => ({}),
  dateRangeReport: (c) => ({ body: { ...c.range, clientStatus: ['active'], ...LOST } }),
  currentReport: (c) => ({ body: { startDate: c.range.startDate, clientStatus: ['active'], ...LOST } }),
  usageDistribution: (c) => ({ body: c.range }),
  lifetimeHistogram: (c) => withEvent(c.basicEvent, 'a basic event', (e) => ({ ...c.range, events: [e] })),
  lifetimeDataTable: (c) => ({ body: { ...c.range, paging: { limit: 5 } } }),
  basicDataTable: (c) => ({ body: c.range }),
  basicTimeline: (c) =>
    withEvent(c.basicEvent, 'a basic event', (e) => ({
      ...c.range,
      dateSplit: 'week',
      dataView: 'usageCounts',
      events: [e],
    })),
  advancedFullReport: (c) => withEvent(c.advancedEvent, 'an advanced event', (e) => ({ ...c.range, events: [e] })),
  churnAndEngagement: (c) => ({ body: { ...c.range, daysUntilDeclaredLost: 30, dateSplit: 'month' } }),
  churnHistogramDays: (c) => ({ body: { ...c.range, ...LOST } }),
  churnHistogramRuntime: (c) => ({ body: { ...c.range, ...LOST } }),
  churnHistogramSessions: (c) => ({ body: { ...c.range, ...LOST } }),
  churnLifetimeDataTable: (c) => ({ body: { ...c.range, ...LOST, paging: { limit: 5 } } }),
  churnLifetimeHistogram: (c) =>
    withEvent(c.basicEvent, 'a basic event', (e) => ({ ...c.range, ...LOST, events: [e] })),
  searchLicenseKeys: () => ({ body: { paging: { limit: 1 } } }),
  customEventsLastLines: () => ({ body: { lineCount: 1 } }),
  customEventsListFiles: () => ({}),
  customEventsDownloadUrl: (c) => download(c.files.customEvents, 'customEventsListFiles'),
  exceptionsLastLines: () => ({ body: { lineCount: 1 } }),
  exceptionsListFiles: () => ({}),
  exceptionsDownloadUrl: (c) => download(c.files.exceptions, 'exceptionsListFiles'),
  clientPropertyList: () => ({ body: { properties: [] } }),
  rawEventsListFiles: () => ({}),
  rawEventsDownloadUrl: (c) => download(c.files.rawEvents, 'rawEventsListFiles'),
};

/** What an answer tells the later requests. */
export const LEARN: Partial<Record<OperationId, (c: PlanContext, answer: unknown) => void>> = {
  productProperties: (c, a) => {
    c.property = findObjects(a, (o) => typeof o.name === 'string' && o.supportsMeta === true && o.dataType === 'string')
      .map((o) => o.name as string)
      .at(0);
  },
  listEvents: (c, a) => {
    for (const group of findObjects(a, (o) => Array.isArray(o.categoryEventNames))) {
      const category = typeof group.category === 'string' ? group.category : null;
      for (const e of group.categoryEventNames as unknown[]) {
        const ev = e as Record<string, unknown>;
        if (typeof ev.eventName !== 'string') continue;
        if (ev.basic === true) c.basicEvent ??= { category, name: ev.eventName };
        if (ev.advanced === true) c.advancedEvent ??= { category, name: ev.eventName };
      }
    }
  },
  customEventsListFiles: (c, a) => {
    c.files.customEvents = newestFile(a);
  },
  exceptionsListFiles: (c, a) => {
    c.files.exceptions = newestFile(a);
  },
  rawEventsListFiles: (c, a) => {
    c.files.rawEvents = newestFile(a);
  },
};

/** The last listed daily file (a finished one), else any listed file. */
function newestFile(answer: unknown): string | undefined {
  const a = answer as Record<string, unknown> | undefined;
  const preferred = [a?.dailyFiles, a?.fileList, a?.monthlyFiles].find((l) => Array.isArray(l) && l.length > 0);
  const names = findObjects(preferred ?? answer, (o) => typeof o.fileName === 'string').map(
    (o) => o.fileName as string,
  );
  return names.at(-1);
}

/** Every object in a JSON value that `test` accepts, depth first. */
function findObjects(value: unknown, test: (o: Record<string, unknown>) => boolean): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const visit = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(visit);
    else if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      if (test(o)) out.push(o);
      Object.values(o).forEach(visit);
    }
  };
  visit(value);
  return out;
}

/** A four-week range of finished days ending a week before `today` (`YYYY-MM-DD`, UTC). */
export function rangeBefore(today: Date): PlanContext['range'] {
  const day = (offset: number) => new Date(today.getTime() - offset * 86_400_000).toISOString().slice(0, 10);
  return { startDate: day(35), stopDate: day(8) };
}
