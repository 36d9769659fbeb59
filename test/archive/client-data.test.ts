/**
 * The client data archive over real sockets: the emulator (with hostile values planted in its data) and s3rver.
 * What must hold: the export (exportClientPropertyList) gives the same clients and values as the paged list
 * (clientPropertyList), typed as clientPropertyList types
 * them, hostile text included; the count and SHA-256 are in the metadata; malformed or broken CSV fails the file
 * and nothing is committed.
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveClientData, type ClientDataTask, clientDataFileName } from '../../src/archive/client-data.ts';
import { copyPlannedFile } from '../../src/archive/copy-planned-file.ts';
import type { PlannedFile } from '../../src/archive/plan.ts';
import type { FetchLike } from '../../src/client/index.ts';
import { type ArchivePeers, NO_RAW_PRODUCT, RUN_AT, startArchivePeers } from './archive-peers.ts';

const PRODUCT = NO_RAW_PRODUCT;
const DATE = RUN_AT.slice(0, 10);
/** Planted as values of a string column and of a hierarchical level: CSV and JSON syntax, HTML, line breaks. */
const HOSTILE = [
  'Team, "Gold" edition',
  'two\r\nlines',
  'lf\nonly',
  '<img src=x onerror="alert(1)">',
  '{"looks":"like JSON"}',
  '=cmd|calc',
  'Zürich ✓ 😀',
];

let ap: ArchivePeers;
/** Every property clientPropertyList can list: the catalogue's non-special ones, the levels and the list properties. */
let allProperties: string[];
let clientIds: string[];
let n = 0;

beforeAll(async () => {
  ap = await startArchivePeers({ productIds: [PRODUCT], clients: 450 });
  const pd = ap.peers.emulator.state.products.get(PRODUCT)!;
  clientIds = pd.clientIds;
  for (const name of ['prodEdition', 'os.version']) {
    const column = pd.columns.get(name)!;
    if (column.kind !== 'string') throw new Error(`${name} is not a string column`);
    column.dict.splice(0, HOSTILE.length, ...HOSTILE);
  }
  const catalogue = await ap.ports().client.withSession((c) => c.productProperties());
  allProperties = [
    ...catalogue.result
      .flatMap((g) => g.properties)
      .filter((p) => p.dataType !== 'special' && p.name !== 'clientId')
      .map((p) => p.name),
    ...['os.platform', 'os.version', 'os.edition', 'geography.continent', 'geography.country', 'geography.usState'],
    ...['gpu.vendor', 'gpu.model', 'lifetimeEventUsage', 'reachOutDeliveries.auto', 'reachOutDeliveries.manual'],
  ];
});
afterAll(async () => {
  await ap?.close();
});

/** Archives the product's clients under a key of its own; returns the outcome and what landed in the bucket. */
async function archive(over: Partial<ClientDataTask> & { fetch?: FetchLike } = {}) {
  const { fetch, ...taskOver } = over;
  const fileName = clientDataFileName(PRODUCT, DATE);
  const task: ClientDataTask = {
    productId: PRODUCT,
    fileName,
    fileDate: DATE,
    key: `test/${++n}/${fileName}`,
    properties: allProperties,
    ...taskOver,
  };
  const { key } = task;
  const ports = ap.ports(fetch ? { fetch } : {});
  const outcome = await ports.client.withSession((client) =>
    archiveClientData(task, { client, store: ports.archive, clock: ports.clock, logger: ports.logger }),
  );
  const head = await ap.peers.archive.head(key);
  const body = await ap.peers.archive.get(key);
  const clients = body
    ? gunzipSync(body)
        .toString('utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
  return { outcome, head, body, clients };
}

/** A fetch that hands the export's CSV text to `edit`, or breaks its body after the first chunk. */
function exportAnswer(change: { edit: (csv: string) => string } | 'break'): FetchLike {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (!url.includes('/v3/export/request/clientPropertyList/') || res.status !== 200) return res;
    let body: ReadableStream<Uint8Array> | string;
    if (change === 'break') {
      const reader = res.body!.getReader();
      let sent = false;
      body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { value } = await reader.read();
          if (sent || value === undefined) {
            await reader.cancel();
            controller.error(new TypeError('other side closed'));
            return;
          }
          sent = true;
          controller.enqueue(value);
        },
      });
    } else body = change.edit(await res.text());
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    return new Response(body, { status: 200, headers });
  };
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('client data from the export (exportClientPropertyList)', () => {
  it('holds every client with every property, valued and typed as the client property list (clientPropertyList) sends them', async () => {
    const fromExport = await archive();
    const fromPages = await archive({ source: 'pages' });
    expect(fromExport.outcome).toMatchObject({ outcome: 'archived' });
    expect(fromPages.outcome).toMatchObject({ outcome: 'archived' });
    expect(fromExport.clients.map((c) => c.clientId)).toEqual(clientIds);
    expect(fromExport.clients).toEqual(fromPages.clients);
    for (const c of fromExport.clients) expect(Object.keys(c).sort()).toEqual(['clientId', ...allProperties].sort());

    // Each kind of value made it through as its JSON type, and every column has values besides "<NULL>".
    const values = (p: string) => fromExport.clients.map((c) => c[p]).filter((v) => v !== '<NULL>');
    for (const p of allProperties) expect(values(p).length, p).toBeGreaterThan(0);
    expect(values('ram').every((v) => typeof v === 'number')).toBe(true);
    expect(values('licenseStatus.blocked').every((v) => typeof v === 'boolean')).toBe(true);
    expect(values('prodVersion').every((v) => typeof v === 'string')).toBe(true);
    expect(values('lifetimeEventUsage').every(Array.isArray)).toBe(true);
    expect(fromExport.clients.some((c) => c.licenseKey === '<NULL>')).toBe(true);
    // Planted text comes back exactly, as data.
    const planted = new Set([...values('prodEdition'), ...values('os.version')]);
    for (const h of HOSTILE) expect(planted.has(h), h).toBe(true);
  });

  it('puts the client count and the SHA-256 of the stored bytes in the metadata', async () => {
    const { outcome, head, body } = await archive({ properties: ['prodVersion', 'ram'] });
    expect(outcome).toMatchObject({ outcome: 'archived', sha256: sha256(body!) });
    expect(head!.metadata).toMatchObject({
      sha256: sha256(body!),
      'client-count': String(clientIds.length),
      properties: 'prodVersion,ram',
      kind: 'clientData',
    });
  });

  it('reads the paged list when no property is configured (the export needs one)', async () => {
    const { outcome, clients, head } = await archive({ properties: [] });
    expect(outcome).toMatchObject({ outcome: 'archived' });
    expect(clients).toEqual(clientIds.map((clientId) => ({ clientId })));
    expect(head!.metadata['client-count']).toBe(String(clientIds.length));
  });

  it('fails the file on malformed CSV, naming the line, and commits nothing', async () => {
    // A stray quote in the first cell of the 101st data row.
    const edit = (csv: string) => {
      const lines = csv.split('\r\n');
      lines[101] = `x"${lines[101]}`;
      return lines.join('\r\n');
    };
    const { outcome, head } = await archive({ properties: ['prodVersion', 'ram'], fetch: exportAnswer({ edit }) });
    expect(outcome).toMatchObject({ outcome: 'failed' });
    expect(outcome.outcome === 'failed' && outcome.reason).toMatch(
      /^ClientCsvError: client export CSV, line 102: a quote inside an unquoted cell/,
    );
    expect(head).toBeUndefined();
  });

  it('fails the file when the columns are not the ones requested', async () => {
    const edit = (csv: string) => csv.replace(/^clientId,prodVersion/, 'clientId,prodBuild');
    const { outcome, head } = await archive({ properties: ['prodVersion'], fetch: exportAnswer({ edit }) });
    expect(outcome.outcome === 'failed' && outcome.reason).toMatch(/header: column "prodBuild" was not requested/);
    expect(head).toBeUndefined();
  });

  it('fails the file when the export stream breaks midway, and commits nothing', async () => {
    const { outcome, head } = await archive({ fetch: exportAnswer('break') });
    expect(outcome.outcome === 'failed' && outcome.reason).toMatch(
      /^NetworkError: .*export stream failed: connection lost/,
    );
    expect(head).toBeUndefined();
  });
});

describe('a client data file already at the key', () => {
  it('is left alone when it checks out, and replaced by a new version, reported as repaired, when it does not', async () => {
    const first = await archive({ properties: ['prodVersion'] });
    const again = await archive({ key: first.head!.key, properties: ['prodVersion'] });
    expect(again.outcome).toEqual({ ...first.outcome, outcome: 'skippedSame', attempts: 0 });

    // A leftover without metadata (a process killed mid-write): not the day's file.
    const key = `test/${++n}/${clientDataFileName(PRODUCT, DATE)}`;
    await ap.peers.s3.send(
      new PutObjectCommand({ Bucket: ap.peers.bucket, Key: key, Body: first.body!.subarray(0, 50) }),
    );
    const repaired = await archive({ key, properties: ['prodVersion'] });
    expect(repaired.outcome).toMatchObject({ outcome: 'repaired', sha256: sha256(repaired.body!), reason: /metadata/ });
    expect(repaired.clients.map((c) => c.clientId)).toEqual(clientIds);
    expect(repaired.head!.metadata.sha256).toBe(sha256(repaired.body!));
  });
});

describe('the configured source (archive.clientSource)', () => {
  it.each(['export', 'pages'] as const)(
    'copyPlannedFile reads the clients from the %s source',
    async (clientSource) => {
      const paths: string[] = [];
      const recording: FetchLike = async (input, init) => {
        paths.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
        return fetch(input, init);
      };
      const ports = ap.ports({ fetch: recording });
      const fileName = clientDataFileName(PRODUCT, DATE);
      const key = `test/${++n}/${fileName}`;
      const file: PlannedFile = {
        productId: PRODUCT,
        kind: 'clientData',
        fileName,
        fileDate: DATE,
        key,
        state: 'missing',
        backfill: false,
      };
      const outcome = await ports.client.withSession((client) =>
        copyPlannedFile(file, { clientProperties: ['prodVersion'], clientSource }, { ...ports, client }),
      );
      expect(outcome).toMatchObject({ outcome: 'archived' });
      const used = paths.filter((p) => p.includes('/clientPropertyList/'));
      expect(used.length).toBeGreaterThan(0);
      const expected = clientSource === 'export' ? '/v3/export/request/' : '/v3/reporting/';
      expect(used.filter((p) => !p.startsWith(expected))).toEqual([]);
      expect((await ap.peers.archive.head(key))!.metadata['client-count']).toBe(String(clientIds.length));
    },
  );
});
