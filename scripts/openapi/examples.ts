/**
 * A request and a response example for every operation, and an example of each error answer, taken from real answers
 * of the emulator (started in-process with a fixed seed, data set and date, so the examples never change unless the
 * service's behaviour does). Long arrays and maps are cut to a few items so the document stays readable; run-specific
 * values (the emulator's ports, signed download addresses) are replaced by fixed ones.
 */
import { startEmulator } from '../../emulator/index.ts';
import { ReportingClient } from '../../src/client/index.ts';
import { PREFIX } from './document.ts';

type Json = Record<string, unknown>;
/** What one operation's example sends: its product (when it takes one) and its body. */
export interface RequestExample {
  productId?: string;
  body?: unknown;
}
export interface OperationExamples {
  request: RequestExample;
  /** The answer's body (undefined for 204). */
  response: unknown;
}

const TODAY = '2026-11-27';
const PRODUCT = '12345678901';
/** The example addresses: the emulator's default service port, its storage beside it. */
const BASE_URL = 'http://127.0.0.1:8787';
const STORAGE_URL = 'http://127.0.0.1:8788';
const RANGE = { startDate: '2026-10-01', stopDate: '2026-10-31' };
const LOST = { daysUntilDeclaredLost: 30, dateReportedLost: 'dateDeclaredLost' };
const MAX_ITEMS = 3;
const MAX_KEYS = 6;

/** Arrays cut to MAX_ITEMS; maps with many keys (periods, bins, segments) cut to MAX_KEYS. */
function trim(v: unknown, depth = 0): unknown {
  if (Array.isArray(v)) return v.slice(0, MAX_ITEMS).map((x) => trim(x, depth + 1));
  if (typeof v !== 'object' || v === null) return v;
  const entries = Object.entries(v);
  // Only maps are long: every fixed object of the contract has fewer members than this.
  const kept = entries.length > 12 ? entries.slice(0, MAX_KEYS) : entries;
  return Object.fromEntries(kept.map(([k, x]) => [k, trim(x, depth + 1)]));
}

/** Names the run's addresses by the fixed example ones, and signatures by a placeholder. */
function fixed(v: unknown, storageUrl: string, baseUrl: string): unknown {
  return JSON.parse(
    JSON.stringify(v)
      .replaceAll(storageUrl, STORAGE_URL)
      .replaceAll(baseUrl, BASE_URL)
      .replace(/([?&](?:sig|signature|token)=)[^&"]+/gi, '$1SIGNATURE')
      // The emulator's clock runs on from noon while the examples are taken: expiry times differ by milliseconds.
      .replace(/([?&]expires=)\d+/g, `$1${Date.parse(`${TODAY}T12:15:00Z`)}`),
  );
}

/** Every operation's examples and the error answers' bodies, from one emulator run. */
export async function collectExamples(): Promise<{
  operations: Record<string, OperationExamples>;
  errors: Record<string, { status: number; summary: string; body: unknown }>;
}> {
  const emulator = await startEmulator({ seed: 1, clients: 300, today: TODAY, maxSessionsPerUser: 2 });
  const rawProduct = emulator.products.find((p) => p.rawDataExport)!.productId;
  const client = new ReportingClient({
    baseUrl: emulator.baseUrl,
    origin: emulator.origin,
    credentials: emulator.credentials,
    headerPrefix: emulator.headerPrefix,
  });
  const operations: Record<string, OperationExamples> = {};
  const call = async (id: string, request: RequestExample) => {
    const answer = await client.call(id, request);
    operations[id] = { request, response: answer === undefined ? undefined : trim(answer) };
    return answer;
  };
  try {
    operations.requestCsrf = { request: {}, response: undefined };
    await call('signIn', {
      body: { userName: emulator.credentials.userName, password: emulator.credentials.password },
    });
    const firstOf = (answer: unknown, key: string) =>
      ((answer as Json)[key] as Json[]).map((f) => f.fileName as string).at(-1)!;

    await call('productProperties', {});
    await call('propertyValues', { productId: PRODUCT, body: { property: 'prodEdition' } });
    const events = (await call('listEvents', { productId: PRODUCT })) as {
      result: {
        category: string | null;
        categoryEventNames: { eventName: string; basic: boolean; advanced: boolean }[];
      }[];
    };
    const pick = (kind: 'basic' | 'advanced') =>
      events.result
        .flatMap((c) =>
          c.categoryEventNames.filter((e) => e[kind]).map((e) => ({ category: c.category, name: e.eventName })),
        )
        .at(0)!;
    const basic = pick('basic');
    const advanced = pick('advanced');

    await call('dateRangeReport', {
      productId: PRODUCT,
      body: { ...RANGE, clientStatus: ['new', 'active', 'lost'], dateSplit: 'week', ...LOST },
    });
    await call('currentReport', {
      productId: PRODUCT,
      body: { startDate: '2026-11-01', clientStatus: ['active'], levels: { level1: { property: 'prodEdition' } } },
    });
    await call('usageDistribution', { productId: PRODUCT, body: RANGE });
    await call('lifetimeHistogram', { productId: PRODUCT, body: { ...RANGE, events: [basic] } });
    await call('lifetimeDataTable', { productId: PRODUCT, body: { ...RANGE, paging: { startAt: 0, limit: 3 } } });
    await call('basicDataTable', { productId: PRODUCT, body: RANGE });
    await call('basicTimeline', {
      productId: PRODUCT,
      body: { ...RANGE, dateSplit: 'week', dataView: 'usageCounts', events: [basic] },
    });
    await call('advancedFullReport', { productId: PRODUCT, body: { ...RANGE, events: [advanced] } });
    await call('churnAndEngagement', {
      productId: PRODUCT,
      body: { startDate: '2026-06-01', stopDate: '2026-08-31', daysUntilDeclaredLost: 30, dateSplit: 'month' },
    });
    for (const id of ['churnHistogramDays', 'churnHistogramRuntime', 'churnHistogramSessions'])
      await call(id, { productId: PRODUCT, body: { ...RANGE, ...LOST } });
    await call('churnLifetimeDataTable', {
      productId: PRODUCT,
      body: { ...RANGE, ...LOST, paging: { startAt: 0, limit: 3 } },
    });
    await call('churnLifetimeHistogram', { productId: PRODUCT, body: { ...RANGE, ...LOST, events: [basic] } });
    await call('searchLicenseKeys', {
      productId: PRODUCT,
      body: {
        filters: { licenseStatus: [{ blocked: false }], overQuotaCount: { type: 'numberRange', min: 1 } },
        paging: { startAt: 0, limit: 3 },
      },
    });
    const keyUpdate = { licenseKey: 'EXAMPLE-0001', licenseType: 'subscription', quota: 5, expiryDate: '2027-12-31' };
    await call('updateLicenseKeys', {
      productId: PRODUCT,
      body: { keyUpdates: [{ ...keyUpdate, licenseStatus: { blocked: false } }] },
    });
    await call('insertLicenseKeys', {
      productId: PRODUCT,
      body: { keyUpdates: [{ ...keyUpdate, licenseKey: 'EXAMPLE-0002' }] },
    });
    for (const family of ['customEvents', 'exceptions'] as const) {
      await call(`${family}LastLines`, { productId: PRODUCT, body: { lineCount: 3 } });
      const listing = await call(`${family}ListFiles`, { productId: PRODUCT });
      await call(`${family}DownloadUrl`, { productId: PRODUCT, body: { fileName: firstOf(listing, 'dailyFiles') } });
    }
    await call('clientPropertyList', {
      productId: PRODUCT,
      body: {
        properties: ['prodEdition', 'licenseStatus.activated'],
        globalFilters: { prodEdition: { type: 'stringArray', value: ['Professional'] } },
      },
    });
    const exported = (await client.exportClientPropertyList(PRODUCT, { properties: ['prodEdition'] })).stream;
    const csv = (await new Response(exported).text())
      .split('\r\n')
      .slice(0, MAX_ITEMS + 1)
      .join('\r\n');
    operations.exportClientPropertyList = {
      request: { productId: PRODUCT, body: { properties: ['prodEdition'] } },
      response: `${csv}\r\n`,
    };
    const raw = await call('rawEventsListFiles', { productId: rawProduct });
    await call('rawEventsDownloadUrl', { productId: rawProduct, body: { fileName: firstOf(raw, 'fileList') } });
    await client.logout();
    operations.logout = { request: { body: {} }, response: undefined };
    const errors = await collectErrors(emulator.baseUrl, emulator.origin, emulator.credentials, PRODUCT);
    const fix = (v: unknown) => fixed(v, emulator.storageUrl, emulator.baseUrl);
    return { operations: fix(operations) as typeof operations, errors: fix(errors) as typeof errors };
  } finally {
    await client.logout().catch(() => {});
    await emulator.close();
  }
}

/** The error answers, provoked one by one with plain requests. */
async function collectErrors(
  baseUrl: string,
  origin: string,
  credentials: { userName: string; password: string },
  product: string,
): Promise<Record<string, { status: number; summary: string; body: unknown }>> {
  const send = async (
    path: string,
    init: { method?: string; cookie?: string; origin?: string | null; body?: string } = {},
  ) => {
    const headers: Record<string, string> = { 'Content-Type': 'application/json' };
    if (init.origin !== null) headers.Origin = init.origin ?? origin;
    if (init.cookie) headers.Cookie = init.cookie;
    const res = await fetch(`${baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers,
      ...(init.body ? { body: init.body } : {}),
    });
    const cookies = res.headers
      .getSetCookie()
      .map((c) => c.split(';')[0]!)
      .join('; ');
    return {
      status: res.status,
      body: res.headers.get('content-type')?.includes('json') ? await res.json() : undefined,
      cookies,
    };
  };
  const signIn = async () => {
    const csrf = await send('/v3/request-csrf');
    const r = await send('/v3/auth/web', { method: 'POST', cookie: csrf.cookies, body: JSON.stringify(credentials) });
    return { ...r, cookies: r.cookies };
  };
  const out: Record<string, { status: number; summary: string; body: unknown }> = {};
  const keep = (name: string, summary: string, r: { status: number; body: unknown }) => {
    out[name] = { status: r.status, summary, body: r.body };
  };
  const csrfOnly = (await send('/v3/request-csrf')).cookies;
  keep(
    'originNotAllowed',
    'Origin absent or different',
    await send('/v3/request-csrf', { origin: 'https://elsewhere.example' }),
  );
  keep('unauthorized', 'No session', await send(`/v3/event-tracking/${product}`));
  keep(
    'cookieMissing',
    'The session cookie is absent while another service cookie is present',
    await send(`/v3/event-tracking/${product}`, { cookie: csrfOnly }),
  );
  keep(
    'wrongCredentials',
    'Wrong user name or password',
    await send('/v3/auth/web', {
      method: 'POST',
      cookie: csrfOnly,
      body: JSON.stringify({ ...credentials, password: 'wrong' }),
    }),
  );
  const first = await signIn();
  keep(
    'badRequest',
    'A required member is missing',
    await send(`/v3/reporting/generic/dateRange/${product}`, {
      method: 'POST',
      cookie: first.cookies,
      body: JSON.stringify({ startDate: '2026-10-01', clientStatus: ['active'] }),
    }),
  );
  keep(
    'invalidJson',
    'The body is not JSON',
    await send(`/v3/reporting/generic/dateRange/${product}`, { method: 'POST', cookie: first.cookies, body: '{' }),
  );
  keep(
    'notFound',
    "A product not among the user's",
    await send('/v3/event-tracking/99999999999', { cookie: first.cookies }),
  );
  keep(
    'featureNotEnabled',
    'Raw data export on a product without the feature',
    await send(`/v3/rawEvents/download/listFiles/${product}`, { cookie: first.cookies }),
  );
  keep(
    'csrfMismatch',
    'The CSRF header differs from the cookie',
    await (async () => {
      const headers = { Origin: origin, Cookie: first.cookies, [`${PREFIX}-Csrf`]: 'not-the-cookie' };
      const res = await fetch(`${baseUrl}/v3/event-tracking/${product}`, { headers });
      return { status: res.status, body: await res.json() };
    })(),
  );
  const second = await signIn();
  keep('sessionLimit', 'The user holds the maximum number of sessions (here 2)', await signIn());
  for (const s of [first, second]) await send('/v3/auth/logout', { method: 'POST', cookie: s.cookies, body: '{}' });
  return out;
}
