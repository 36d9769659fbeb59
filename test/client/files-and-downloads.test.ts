import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { unzipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveStorageKey } from '../../emulator/families/files/storage-keys.ts';
import { parseCsv } from '../../emulator/files/csv.ts';
import type { Emulator } from '../../emulator/index.ts';
import { lineColumns } from '../../src/client/families/files.ts';
import {
  DownloadError,
  FeatureNotEnabledError,
  NotFoundError,
  ReportingClient,
  TimeoutError,
} from '../../src/client/index.ts';
import { signedIn, startTestEmulator, type TestSession } from '../helpers/emulator-session.ts';

let emu: Emulator;
let client: ReportingClient;
let wire: TestSession;
let product: string;
let rawProduct: string;
/** A plain listener on another port of 127.0.0.1 that records what a download sends. */
let recorder: Server;
let recorderUrl: string;
const recorded: IncomingHttpHeaders[] = [];
const RECORDER_BODY = Buffer.from('plain bytes from another origin');

const newClient = (extra: Partial<ConstructorParameters<typeof ReportingClient>[0]> = {}) =>
  new ReportingClient({ baseUrl: emu.baseUrl, origin: emu.origin, credentials: emu.credentials, ...extra });

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** The storage key a signed URL names (`/files/<key>`), to ask the emulator for the bytes behind it. */
const keyOf = (url: string) => decodeURIComponent(new URL(url).pathname.slice('/files/'.length));

beforeAll(async () => {
  emu = await startTestEmulator();
  client = newClient();
  wire = await signedIn(emu);
  product = emu.products[0]!.productId;
  rawProduct = emu.products.find((p) => p.rawDataExport)!.productId;
  recorder = createServer((req, res) => {
    recorded.push(req.headers);
    if (req.url === '/hang') return; // never answers: for the header timeout
    if (req.url?.startsWith('/stall')) return void res.writeHead(200, { 'Content-Length': '100' }).write('half'); // then silence
    if (req.url === '/redirect') return res.writeHead(302, { Location: `${emu.baseUrl}/v3/request-csrf` }).end();
    res.writeHead(200, { 'Content-Type': 'application/octet-stream' }).end(RECORDER_BODY);
  });
  await new Promise<void>((r) => recorder.listen(0, '127.0.0.1', r));
  recorderUrl = `http://127.0.0.1:${(recorder.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await client.logout();
  await wire.call('POST', '/v3/auth/logout', {});
  recorder.closeAllConnections();
  await new Promise((r) => recorder.close(r));
  await emu.close();
});

describe('latest lines: customEventsLastLines, exceptionsLastLines', () => {
  it.each([
    ['customEventsLastLines', '/v3/customEventTracking/getLastLines'],
    ['exceptionsLastLines', '/v3/exceptionTracking/getLastLines'],
  ] as const)('%s returns the served lines with columns from fieldNames', async (method, path) => {
    const res = await client[method](product, { lineCount: 25 });
    expect(res).toEqual((await wire.post(path, { lineCount: 25 }, product)).json);
    const keys = lineColumns(res).map((c) => c.key);
    expect(keys).toEqual(Object.keys(res.fieldNames));
    expect(res.result.length).toBeGreaterThan(0);
    expect(res.result.length).toBeLessThanOrEqual(25);
    for (const row of res.result) expect(Object.keys(row)).toEqual(keys);
    const stamps = res.result.map((r) => r.timestamp!);
    expect(stamps).toEqual([...stamps].sort());
  });
});

describe('listings: customEventsListFiles, exceptionsListFiles, rawEventsListFiles', () => {
  it('equal what the service lists', async () => {
    expect(await client.customEventsListFiles(product)).toEqual(
      (await wire.get('/v3/customEventTracking/listFiles', product)).json,
    );
    expect(await client.exceptionsListFiles(product)).toEqual(
      (await wire.get('/v3/exceptionTracking/listFiles', product)).json,
    );
    const raw = await client.rawEventsListFiles(rawProduct);
    expect(raw).toEqual((await wire.get('/v3/rawEvents/download/listFiles', rawProduct)).json);
    expect(raw.fileList.length).toBeGreaterThan(0);
  });

  it('are sorted by date on the client, whatever order the service sends (an open point)', async () => {
    // A fetch that reverses every listing array the service sends.
    const reversing = newClient({
      fetch: async (input, init) => {
        const res = await fetch(input, init);
        if (!/listFiles/.test(input instanceof Request ? input.url : String(input))) return res;
        const body = (await res.json()) as Record<string, unknown[]>;
        for (const list of Object.values(body)) list.reverse();
        return new Response(JSON.stringify(body), { status: res.status, headers: res.headers });
      },
    });
    try {
      const custom = await reversing.customEventsListFiles(product);
      expect(custom).toEqual(await client.customEventsListFiles(product));
      expect(custom.dailyFiles.length).toBeGreaterThan(1);
      expect(custom.monthlyFiles.length).toBeGreaterThan(1);
      expect(await reversing.rawEventsListFiles(rawProduct)).toEqual(await client.rawEventsListFiles(rawProduct));
    } finally {
      await reversing.logout();
    }
  });

  it('raw exports need the feature', async () => {
    const without = emu.products.find((p) => !p.rawDataExport)!.productId;
    await expect(client.rawEventsListFiles(without)).rejects.toBeInstanceOf(FeatureNotEnabledError);
  });
});

describe('download addresses (customEventsDownloadUrl, exceptionsDownloadUrl, rawEventsDownloadUrl) and downloads', () => {
  it.each([
    ['customEventsListFiles', 'customEventsDownloadUrl', 'customEventsLastLines'],
    ['exceptionsListFiles', 'exceptionsDownloadUrl', 'exceptionsLastLines'],
  ] as const)('%s → %s → download is byte-identical to the stored file', async (list, address, lines) => {
    const file = (await client[list](product)).dailyFiles.at(-1)!;
    const { downloadUrl } = await client[address](product, { fileName: file.fileName });
    const d = await client.download(downloadUrl);
    const bytes = await readAll(d.stream);
    expect(d.contentType).toBe('application/zip');
    expect(d.contentLength).toBe(bytes.length);
    expect(bytes.equals(Buffer.from((await resolveStorageKey(emu.state, keyOf(downloadUrl)))!))).toBe(true);
    // The one CSV inside has the latest-lines columns as its header.
    const [csv] = Object.values(unzipSync(bytes));
    const header = parseCsv(new TextDecoder().decode(csv))[0];
    expect(header).toEqual(lineColumns(await client[lines](product, { lineCount: 1 })).map((c) => c.key));
  });

  it('downloads a raw export file', async () => {
    const file = (await client.rawEventsListFiles(rawProduct)).fileList[0]!;
    const { downloadUrl } = await client.rawEventsDownloadUrl(rawProduct, { fileName: file.fileName });
    const bytes = await readAll((await client.download(downloadUrl)).stream);
    expect(bytes.equals(Buffer.from((await resolveStorageKey(emu.state, keyOf(downloadUrl)))!))).toBe(true);
  });

  it("reads the same bytes into the caller's buffer: readInto, and a BYOB reader of the byte stream", async () => {
    const file = (await client.customEventsListFiles(product)).dailyFiles.at(-2)!;
    const url = async () => (await client.customEventsDownloadUrl(product, { fileName: file.fileName })).downloadUrl;
    const stored = Buffer.from((await resolveStorageKey(emu.state, keyOf(await url())))!);

    const direct = await client.download(await url());
    const into = Buffer.alloc(stored.length + 10);
    let size = 0;
    for (let n = -1; n !== 0; size += n) n = await direct.readInto(into.subarray(size, size + 1000));
    expect(into.subarray(0, size).equals(stored)).toBe(true);

    const reader = (await client.download(await url())).stream.getReader({ mode: 'byob' });
    let buffer = new ArrayBuffer(4096);
    const parts: Buffer[] = [];
    for (;;) {
      const step = await reader.read(new Uint8Array(buffer));
      buffer = step.value!.buffer; // the same memory, handed back (and handed on for the next read)
      if (step.done) break;
      parts.push(Buffer.from(step.value));
    }
    expect(Buffer.concat(parts).equals(stored)).toBe(true);
    expect(buffer.byteLength).toBe(4096);
  });

  it('refuses a file that is not listed', async () => {
    await expect(
      client.customEventsDownloadUrl(product, { fileName: `${product}_cust_1999-01-01.zip` }),
    ).rejects.toBeInstanceOf(NotFoundError);
  });

  it('sends no cookie, Origin or service header to another origin on the same host', async () => {
    await client.signIn(); // the jar holds the service's cookies for 127.0.0.1
    recorded.length = 0;
    const bytes = await readAll((await client.download(`${recorderUrl}/file.zip?sig=abc`)).stream);
    expect(bytes.equals(RECORDER_BODY)).toBe(true);
    expect(recorded).toHaveLength(1);
    const names = Object.keys(recorded[0]!);
    expect(names).not.toContain('cookie');
    expect(names).not.toContain('origin');
    expect(names.filter((n) => n.startsWith(`${emu.headerPrefix.toLowerCase()}-`))).toEqual([]);
  });

  it('does not follow redirects', async () => {
    recorded.length = 0;
    const err = await client.download(`${recorderUrl}/redirect`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadError);
    expect((err as DownloadError).message).toMatch(/redirect/);
    expect(recorded).toHaveLength(1);
  });

  it('times out waiting for the response headers', async () => {
    const impatient = newClient({ timeoutMs: 150 });
    await expect(impatient.download(`${recorderUrl}/hang`)).rejects.toBeInstanceOf(TimeoutError);
  });

  it('times out when storage stops sending in the middle of the body (downloadIdleTimeoutMs)', async () => {
    const impatient = newClient({ downloadIdleTimeoutMs: 150 });
    const d = await impatient.download(`${recorderUrl}/stall?sig=secret-signature`);
    const err = await readAll(d.stream).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as Error).message).toBe(
      `download: storage sent nothing for 150 ms (after 4 body bytes) (GET ${recorderUrl}/stall)`,
    );
  });

  it('refuses plain http: to anything but a loopback address, before connecting', async () => {
    const err = await client.download('http://storage.example/file.zip?sig=abc').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DownloadError);
    expect((err as Error).message).toMatch(
      /only from a loopback address.*\(GET http:\/\/storage\.example\/file\.zip\)$/,
    );
  });

  it('rejects a URL that is not absolute http(s)', async () => {
    await expect(client.download('file:///etc/passwd')).rejects.toBeInstanceOf(DownloadError);
  });

  it('a truncated body errors while reading', async () => {
    const file = (await client.customEventsListFiles(product)).dailyFiles[0]!;
    const { downloadUrl } = await client.customEventsDownloadUrl(product, { fileName: file.fileName });
    emu.faults.set({ rules: [{ truncateDownloadRate: 1 }] });
    try {
      const d = await client.download(downloadUrl);
      const err = await readAll(d.stream).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(DownloadError);
      expect((err as DownloadError).operationId).toBe('download');
    } finally {
      emu.faults.clear();
    }
  });

  it('an expired URL fails with 403 and the storage code, without the signature in the message', async () => {
    const file = (await client.exceptionsListFiles(product)).dailyFiles[0]!;
    const { downloadUrl } = await client.exceptionsDownloadUrl(product, { fileName: file.fileName });
    emu.clock.advance(16 * 60_000);
    const err = (await client.download(downloadUrl).catch((e: unknown) => e)) as DownloadError;
    expect(err).toBeInstanceOf(DownloadError);
    expect(err.status).toBe(403);
    expect(err.serviceError).toBe('AccessDenied');
    expect(err.serviceMessage).toMatch(/expired/);
    const sig = new URL(downloadUrl).searchParams.get('sig')!;
    for (const text of [err.message, err.serviceMessage ?? '', JSON.stringify(err)]) {
      expect(text).not.toContain(sig);
      expect(text).not.toContain('?');
    }
    expect(err.message).toContain(new URL(downloadUrl).pathname);
  });
});
