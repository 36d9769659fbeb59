/**
 * Client profile family: `clientPropertyList`, `exportClientPropertyList` (docs/interface.md "Client property list").
 */
import { forEachActiveDay } from '../data/activity.ts';
import { type Day, formatDay } from '../data/dates.ts';
import type { ProductData } from '../data/model.ts';
import { compareCodePoints } from '../data/strings.ts';
import { csvRow } from '../files/csv.ts';
import { type Handler, Reply } from '../http/handler.ts';
import { asObject, at, dateRange, type Json, optArray, optString, reqArray, stringArray } from '../http/validate.ts';
import { type ClientPredicate, parseGlobalFilters } from '../query/filters.ts';
import { compileProperties, type OutputProperty } from './client-profile/output-properties.ts';

/** Clients per `clientPropertyList` response. */
export const CLIENT_PAGE_SIZE = 200;
/**
 * Clients per chunk of the `exportClientPropertyList` stream: big enough to keep writes few, small enough to keep
 * memory flat.
 */
const EXPORT_BATCH = 2000;

/** First client number whose id is ≥ `id` (ids are sorted by code point), or n. */
function firstClientAtOrAfter(pd: ProductData, id: string): number {
  let lo = 0;
  let hi = pd.n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareCodePoints(pd.clientIds[mid]!, id) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Up to `size` matching clients from client number `start`, and the next matching one after them (-1: none). */
function pageOf(
  pd: ProductData,
  match: ClientPredicate,
  start: number,
  size: number,
): { clients: number[]; next: number } {
  const clients: number[] = [];
  let i = start;
  for (; i < pd.n && clients.length < size; i++) if (match(i)) clients.push(i);
  while (i < pd.n && !match(i)) i++;
  return { clients, next: i < pd.n ? i : -1 };
}

function propertyNames(o: Json, path: string, required: boolean): string[] {
  const list = required ? reqArray(o, 'properties', path, { min: 1 }) : (optArray(o, 'properties', path) ?? []);
  return stringArray(list, at(path, 'properties'));
}

interface DailyRequest {
  startDay: Day;
  stopDay: Day;
  properties: OutputProperty[];
}

function parseDaily(pd: ProductData, body: Json): DailyRequest | undefined {
  if (body.retDailyData === undefined || body.retDailyData === null) return undefined;
  const o = asObject(body.retDailyData, 'retDailyData');
  const { startDay, stopDay } = dateRange(o, 'retDailyData');
  const properties = compileProperties(pd, propertyNames(o, 'retDailyData', true), 'retDailyData.properties');
  return { startDay, stopDay, properties };
}

/** Builds the `clientPropertyList` items of a page; one dailyData callback per request, not per client. */
function pageItems(pd: ProductData, clients: number[], props: OutputProperty[], daily: DailyRequest | undefined) {
  let client = 0;
  let days: Record<string, unknown>[] = [];
  const onDay = (day: Day) => {
    const item: Record<string, unknown> = { date: formatDay(day) };
    for (const p of daily!.properties) item[p.name] = p.valueOn(client, day);
    days.push(item);
  };
  return clients.map((i) => {
    const item: Record<string, unknown> = { clientId: pd.clientIds[i] };
    for (const p of props) item[p.name] = p.value(i);
    if (daily) {
      client = i;
      days = [];
      forEachActiveDay(pd, i, daily.startDay, daily.stopDay, onDay);
      item.dailyData = days;
    }
    return item;
  });
}

const clientPropertyList: Handler = (ctx) => {
  const { pd, body } = ctx;
  const startAt = optString(body, 'startAtClientId');
  const props = compileProperties(pd, propertyNames(body, '', false), 'properties');
  const daily = parseDaily(pd, body);
  const match = parseGlobalFilters(pd, body);
  const start = startAt === undefined ? 0 : firstClientAtOrAfter(pd, startAt);
  const { clients, next } = pageOf(pd, match, start, CLIENT_PAGE_SIZE);
  const result = pageItems(pd, clients, props, daily);
  return next < 0 ? { result, reachedEnd: true } : { result, reachedEnd: false, nextClientId: pd.clientIds[next] };
};

/** The CSV rows, generated one batch at a time so memory stays flat however many clients match. */
async function* exportRows(pd: ProductData, match: ClientPredicate, props: OutputProperty[]): AsyncGenerator<string> {
  yield csvRow(['clientId', ...props.map((p) => p.name)]);
  const cells: string[] = new Array(props.length + 1);
  for (let start = 0; start >= 0; ) {
    const { clients, next } = pageOf(pd, match, start, EXPORT_BATCH);
    let chunk = '';
    for (const i of clients) {
      cells[0] = pd.clientIds[i]!;
      for (let k = 0; k < props.length; k++) cells[k + 1] = props[k]!.cell(i);
      chunk += csvRow(cells);
    }
    if (chunk !== '') yield chunk;
    start = next;
  }
}

const exportClientPropertyList: Handler = (ctx) => {
  const { pd, body } = ctx;
  // Everything that can fail with a 400 runs here, before the first byte of the stream.
  const props = compileProperties(pd, propertyNames(body, '', true), 'properties');
  const match = parseGlobalFilters(pd, body);
  return new Reply({
    headers: {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${pd.product.productId}_clients.csv"`,
      'Access-Control-Expose-Headers': 'Content-Disposition',
    },
    stream: exportRows(pd, match, props),
  });
};

export const clientProfileHandlers: Record<string, Handler> = { clientPropertyList, exportClientPropertyList };
