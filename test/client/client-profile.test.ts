import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../emulator/files/csv.ts';
import type { Emulator } from '../../emulator/index.ts';
import {
  type ClientExport,
  type ClientRecord,
  NULL_VALUE,
  valueOrNull,
} from '../../src/client/families/client-profile.ts';
import {
  BadRequestError,
  type FetchLike,
  NetworkError,
  ReportingClient,
  ResponseShapeError,
} from '../../src/client/index.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

const PROPERTIES = ['prodVersion', 'geography.country', 'ram', 'licenseStatus.activated', 'lifetimeEventUsage'];

let emu: Emulator;
let client: ReportingClient;
let wire: TestSession;
let product: string;
/** Answers like the service's export, then drops the connection before the final chunk. */
let brokenExport: Server;
let brokenExportUrl: string;

const newClient = (fetch?: FetchLike) =>
  new ReportingClient({
    baseUrl: emu.baseUrl,
    origin: emu.origin,
    credentials: emu.credentials,
    ...(fetch ? { fetch } : {}),
  });
const urlOf = (input: Request | URL | string) => (input instanceof Request ? input.url : String(input));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function readText(stream: ReadableStream<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for await (const chunk of stream) text += decoder.decode(chunk, { stream: true });
  return text + decoder.decode();
}

/** A clientPropertyList value as the export writes it in a CSV cell. */
const asCell = (v: unknown) => (typeof v === 'object' ? JSON.stringify(v) : String(v));

beforeAll(async () => {
  // 450 clients: two full pages of 200 and a partial one.
  emu = await startTestEmulator({ clients: 450 });
  client = newClient();
  wire = await signedIn(emu);
  product = emu.products[0]!.productId;
  brokenExport = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'Content-Type': 'text/csv; charset=utf-8' });
    res.write('clientId,prodVersion\r\n0000000000000001,3.1\r\n', () => setTimeout(() => res.socket?.destroy(), 20));
  });
  await new Promise<void>((r) => brokenExport.listen(0, '127.0.0.1', r));
  brokenExportUrl = `http://127.0.0.1:${(brokenExport.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await client.logout();
  await wire.call('POST', '/v3/auth/logout', {});
  brokenExport.closeAllConnections();
  await new Promise((r) => brokenExport.close(r));
  await emu.close();
});

describe('clientPropertyList', () => {
  it('returns the page the service serves, with "<NULL>" for missing values', async () => {
    const body = { properties: PROPERTIES };
    const res = await client.clientPropertyList(product, body);
    expect(res).toEqual((await wire.post('/v3/reporting/clientPropertyList', body, product)).json);
    expect(res.result).toHaveLength(200);
    expect(res.reachedEnd).toBe(false);
    const countries = res.result.map((c) => c['geography.country'] as string);
    expect(countries).toContain(NULL_VALUE);
    expect(countries.map(valueOrNull)).toContain(null);
    for (const c of res.result) expect(Array.isArray(c.lifetimeEventUsage)).toBe(true);
  });

  it('rejects an unknown property with a BadRequestError', async () => {
    await expect(client.clientPropertyList(product, { properties: ['noSuchProperty'] })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });
});

describe('paging iterators', () => {
  it('clientPropertyListPages and allClients return every client exactly once, in order', async () => {
    const ids = emu.state.products.get(product)!.clientIds;
    const pages = await collect(client.clientPropertyListPages(product));
    expect(pages.map((p) => p.result.length)).toEqual([200, 200, ids.length - 400]);
    expect(pages.map((p) => p.reachedEnd)).toEqual([false, false, true]);
    const all = await collect(client.allClients(product));
    expect(all.map((c) => c.clientId)).toEqual(ids);
    expect(pages.flatMap((p) => p.result)).toEqual(all);
  });

  it('starts at startAtClientId (inclusive) and keeps the filters on every page', async () => {
    const ids = emu.state.products.get(product)!.clientIds;
    const from = await collect(client.allClients(product, { startAtClientId: ids[123]! }));
    expect(from.map((c) => c.clientId)).toEqual(ids.slice(123));

    const globalFilters = { 'licenseStatus.activated': { type: 'boolean' as const, value: true } };
    const activated = await collect(
      client.allClients(product, { properties: ['licenseStatus.activated'], globalFilters }),
    );
    expect(activated.length).toBeGreaterThan(0);
    expect(activated.length).toBeLessThan(ids.length);
    for (const c of activated) expect(c['licenseStatus.activated']).toBe(true);
  });

  it('stops on an empty page and refuses a page without a usable nextClientId', async () => {
    const rewriting =
      (edit: (page: Record<string, unknown>) => void): FetchLike =>
      async (input, init) => {
        const res = await fetch(input, init);
        if (!urlOf(input).includes('/clientPropertyList/')) return res;
        const page = (await res.json()) as Record<string, unknown>;
        edit(page);
        return new Response(JSON.stringify(page), { status: res.status, headers: res.headers });
      };
    const empty = newClient(rewriting((p) => Object.assign(p, { result: [], reachedEnd: false })));
    const noNext = newClient(rewriting((p) => delete p.nextClientId));
    try {
      expect(await collect(empty.clientPropertyListPages(product))).toHaveLength(1);
      const err = await collect(noNext.allClients(product)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ResponseShapeError);
      expect((err as ResponseShapeError).path).toBe('nextClientId');
    } finally {
      await empty.logout();
      await noNext.logout();
    }
  });
});

describe('exportClientPropertyList', () => {
  it('streams a CSV equal to all clientPropertyList pages concatenated', async () => {
    const globalFilters = { 'geography.continent': { type: 'stringArray' as const, value: ['EU', 'NA'] } };
    const [first, ...rest] = PROPERTIES as [string, ...string[]];
    const exported = await client.exportClientPropertyList(product, { properties: [first, ...rest], globalFilters });
    expect(exported.fileName).toBe(`${product}_clients.csv`);
    const rows = parseCsv(await readText(exported.stream));

    const clients: ClientRecord[] = await collect(
      client.allClients(product, { properties: PROPERTIES, globalFilters }),
    );
    expect(clients.length).toBeGreaterThan(200);
    expect(clients.length).toBeLessThan(emu.state.products.get(product)!.n);
    expect(rows[0]).toEqual(['clientId', ...PROPERTIES]);
    expect(rows.slice(1)).toEqual(clients.map((c) => [c.clientId, ...PROPERTIES.map((p) => asCell(c[p]))]));
  });

  it('is what client.call returns for the export id too', async () => {
    const body = { properties: ['prodVersion'] as [string] };
    const viaCall = (await client.call('exportClientPropertyList', { productId: product, body })) as ClientExport;
    const typed = await client.exportClientPropertyList(product, body);
    expect(viaCall.fileName).toBe(typed.fileName);
    expect(await readText(viaCall.stream)).toBe(await readText(typed.stream));
  });

  it('fails before the stream with a BadRequestError', async () => {
    await expect(client.exportClientPropertyList(product, { properties: ['noSuchProperty'] })).rejects.toBeInstanceOf(
      BadRequestError,
    );
  });

  it('a connection closed before the final chunk errors the stream instead of ending it', async () => {
    // Sign-in goes to the emulator; only the export is answered by the breaking server.
    let sentType: string | null | undefined;
    const breaking = newClient((input, init) => {
      if (!urlOf(input).includes('/v3/export/')) return fetch(input, init);
      sentType = new Headers(input instanceof Request ? input.headers : init?.headers).get('content-type');
      return fetch(brokenExportUrl, { method: 'POST', body: '{}' });
    });
    try {
      const exported = await breaking.exportClientPropertyList(product, { properties: ['prodVersion'] });
      expect(sentType).toBe('*/*');
      const err = await readText(exported.stream).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NetworkError);
      expect((err as NetworkError).operationId).toBe('exportClientPropertyList');
    } finally {
      await breaking.logout();
    }
  });
});
