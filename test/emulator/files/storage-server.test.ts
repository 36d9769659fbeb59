import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type DownloadFault,
  type StorageServer,
  type StorageServerOptions,
  startStorageServer,
} from '../../../emulator/files/storage-server.ts';

const KEY = '12345678901/cust/12345678901_cust_2026-11-20.zip';
const OTHER_KEY = '12345678901/cust/12345678901_cust_2026-11-21.zip';
const FILE = Uint8Array.from({ length: 10_000 }, (_, i) => (i * 31) % 256);
const MINUTE = 60_000;

let clock = Date.UTC(2026, 10, 21, 8, 0, 0);
let faults = new Map<string, DownloadFault>();
const running: StorageServer[] = [];

async function start(extra: Partial<StorageServerOptions> = {}): Promise<StorageServer> {
  clock = Date.UTC(2026, 10, 21, 8, 0, 0);
  faults = new Map();
  const files = new Map([
    [KEY, FILE],
    [OTHER_KEY, FILE.subarray(0, 100)],
  ]);
  const server = await startStorageServer({
    secret: 'test-secret',
    now: () => clock,
    resolve: async (key) => files.get(key),
    faults: (key) => faults.get(key),
    ...extra,
  });
  running.push(server);
  return server;
}

afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
});

type RawResponse = { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };

// node:http for requests fetch would alter (Origin, Cookie) and to see exactly what arrived.
function raw(url: string, init: { method?: string; headers?: Record<string, string> } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: init.method ?? 'GET', headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function expectStorageError(res: RawResponse, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toBe('application/xml');
  expect(res.body.toString()).toMatch(new RegExp(`<Error><Code>${code}</Code><Message>[^<]+</Message></Error>`));
}

describe('signed URLs', () => {
  it('have the documented form and serve the file with download headers', async () => {
    const storage = await start();
    const url = storage.sign(KEY);
    expect(url).toMatch(
      new RegExp(`^${storage.url}/files/12345678901%2Fcust%2F[^?]+\\?expires=\\d+&sig=[0-9a-f]{64}$`),
    );
    expect(new URL(url).searchParams.get('expires')).toBe(String(clock + 15 * MINUTE));

    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(FILE)).toBe(true);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-length')).toBe(String(FILE.length));
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('content-disposition')).toBe('attachment; filename="12345678901_cust_2026-11-20.zip"');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]+"$/);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
  });

  it('expire after the default 15 minutes, judged by the injected clock', async () => {
    const storage = await start();
    const url = storage.sign(KEY);
    clock += 15 * MINUTE;
    expect((await raw(url)).status).toBe(200);
    clock += 1;
    const res = await raw(url);
    expectStorageError(res, 403, 'AccessDenied');
    expect(res.body.toString()).toContain('expired');
  });

  it('honour a ttl given to sign() or to the server', async () => {
    const storage = await start({ ttlMs: MINUTE });
    const short = storage.sign(KEY);
    const long = storage.sign(KEY, 10 * MINUTE);
    clock += 2 * MINUTE;
    expect((await raw(short)).status).toBe(403);
    expect((await raw(long)).status).toBe(200);
  });

  it('reject a tampered signature, a missing one, a moved expiry and an altered key', async () => {
    const storage = await start();
    const url = new URL(storage.sign(KEY));
    const sig = url.searchParams.get('sig')!;

    const flipped = new URL(url);
    flipped.searchParams.set('sig', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
    const noSig = new URL(url);
    noSig.searchParams.delete('sig');
    const shortSig = new URL(url);
    shortSig.searchParams.set('sig', sig.slice(0, 10));
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + MINUTE));
    const otherKey = new URL(url.href.replace(encodeURIComponent(KEY), encodeURIComponent(OTHER_KEY)));

    for (const bad of [flipped, noSig, shortSig, later, otherKey]) {
      expectStorageError(await raw(bad.href), 403, 'AccessDenied');
    }
  });

  it('answer 404 in the storage format for a signed but unknown key', async () => {
    const storage = await start();
    const res = await raw(storage.sign('12345678901/cust/missing.zip'));
    expectStorageError(res, 404, 'NoSuchKey');
    expect((await raw(`${storage.url}/elsewhere`)).status).toBe(404);
  });
});

describe('client mistakes surface as 403', () => {
  it('rejects any Origin header', async () => {
    const storage = await start();
    const res = await raw(storage.sign(KEY), { headers: { Origin: 'http://localhost:5173' } });
    expectStorageError(res, 403, 'AccessDenied');
  });

  it('rejects service cookies but tolerates unrelated ones', async () => {
    const storage = await start();
    const url = storage.sign(KEY);
    expectStorageError(await raw(url, { headers: { Cookie: 'a=1; Svc-Session-Token=x' } }), 403, 'AccessDenied');
    expect((await raw(url, { headers: { Cookie: 'a=1; NotSvc-x=2' } })).status).toBe(200);
  });

  it('uses a custom header prefix for the cookie check', async () => {
    const storage = await start({ headerPrefix: 'Acme' });
    const url = storage.sign(KEY);
    expect((await raw(url, { headers: { Cookie: 'Acme-Csrf=1' } })).status).toBe(403);
    expect((await raw(url, { headers: { Cookie: 'Svc-Csrf=1' } })).status).toBe(200);
  });
});

describe('methods', () => {
  it('answers HEAD with the GET headers and no body', async () => {
    const storage = await start();
    const res = await raw(storage.sign(KEY), { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe(String(FILE.length));
    expect(res.headers['content-type']).toBe('application/zip');
    expect(res.body.length).toBe(0);
  });

  it.each(['POST', 'PUT', 'DELETE'])('answers %s with 405', async (method) => {
    const storage = await start();
    const res = await raw(storage.sign(KEY), { method });
    expectStorageError(res, 405, 'MethodNotAllowed');
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});

describe('ranges', () => {
  it.each([
    ['bytes=0-9', 0, 9],
    ['bytes=9990-', 9990, 9999],
    ['bytes=-5', 9995, 9999],
    ['bytes=5000-999999', 5000, 9999],
  ])('serves %s as 206', async (range, start0, end) => {
    const storage = await start();
    const res = await raw(storage.sign(KEY), { headers: { Range: range } });
    expect(res.status).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${start0}-${end}/${FILE.length}`);
    expect(res.headers['content-length']).toBe(String(end - start0 + 1));
    expect(res.body.equals(FILE.subarray(start0, end + 1))).toBe(true);
  });

  it.each(['bytes=10000-', 'bytes=-0'])('answers the unsatisfiable %s with 416', async (range) => {
    const storage = await start();
    const res = await raw(storage.sign(KEY), { headers: { Range: range } });
    expectStorageError(res, 416, 'InvalidRange');
    expect(res.headers['content-range']).toBe(`bytes */${FILE.length}`);
  });

  it.each(['bytes=0-1,5-6', 'items=0-1', 'bytes=9-3'])('serves the whole file for %s', async (range) => {
    const storage = await start();
    const res = await raw(storage.sign(KEY), { headers: { Range: range } });
    expect(res.status).toBe(200);
    expect(res.body.equals(FILE)).toBe(true);
  });

  it('resumes only when If-Range still matches the ETag', async () => {
    const storage = await start();
    const url = storage.sign(KEY);
    const etag = (await raw(url, { method: 'HEAD' })).headers.etag as string;
    expect((await raw(url, { headers: { Range: 'bytes=10-', 'If-Range': etag } })).status).toBe(206);
    expect((await raw(url, { headers: { Range: 'bytes=10-', 'If-Range': '"stale"' } })).status).toBe(200);
  });
});

describe('faults', () => {
  it('truncate: announces the full length, then closes after about half', async () => {
    const storage = await start();
    faults.set(KEY, { truncate: true });
    const url = storage.sign(KEY);

    const res = await fetch(url);
    expect(res.headers.get('content-length')).toBe(String(FILE.length));
    await expect(res.arrayBuffer()).rejects.toThrow();

    const received = await new Promise<number>((resolve, reject) => {
      request(url, (r) => {
        let bytes = 0;
        r.on('data', (c: Buffer) => {
          bytes += c.length;
        });
        r.on('end', () => reject(new Error('body ended normally')));
        r.on('aborted', () => resolve(bytes));
        r.on('error', () => resolve(bytes));
      }).end();
    });
    expect(received).toBeGreaterThan(0);
    expect(received).toBeLessThan(FILE.length);
  });

  it('bytesPerSecond: measurably slows the body and still delivers it intact', async () => {
    const storage = await start();
    faults.set(KEY, { bytesPerSecond: 20_000 }); // 10 kB → about 0.5 s
    const began = performance.now();
    const res = await fetch(storage.sign(KEY));
    const body = Buffer.from(await res.arrayBuffer());
    const elapsed = performance.now() - began;
    expect(body.equals(FILE)).toBe(true);
    expect(elapsed).toBeGreaterThan(300);
    expect(elapsed).toBeLessThan(10_000);
  });

  it('throttling and truncation combine', async () => {
    const storage = await start();
    faults.set(KEY, { bytesPerSecond: 50_000, truncate: true });
    const res = await fetch(storage.sign(KEY));
    await expect(res.arrayBuffer()).rejects.toThrow();
  });

  it('expired: answers 403 as for an expired URL', async () => {
    const storage = await start();
    faults.set(KEY, { expired: true });
    const res = await raw(storage.sign(KEY));
    expectStorageError(res, 403, 'AccessDenied');
    expect(res.body.toString()).toContain('expired');
    expect((await raw(storage.sign(OTHER_KEY))).status).toBe(200);
  });
});

describe('robustness', () => {
  it('survives a client that disconnects mid-body', async () => {
    const storage = await start();
    faults.set(KEY, { bytesPerSecond: 10_000 });
    const controller = new AbortController();
    const res = await fetch(storage.sign(KEY), { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    await new Promise((r) => setTimeout(r, 200)); // let the server hit the closed socket
    faults.clear();
    expect((await raw(storage.sign(KEY))).status).toBe(200);
  });

  it('answers 500 in its own format when the file lookup fails', async () => {
    const storage = await start({
      resolve: async () => {
        throw new Error('disk on fire');
      },
    });
    expectStorageError(await raw(storage.sign(KEY)), 500, 'InternalError');
  });

  it('close() ends a download in progress promptly', async () => {
    const storage = await start();
    faults.set(KEY, { bytesPerSecond: 1_000 }); // would take 10 s
    const res = await fetch(storage.sign(KEY));
    const body = res.arrayBuffer().catch((error: unknown) => error);
    const began = performance.now();
    await storage.close();
    running.splice(running.indexOf(storage), 1);
    expect(performance.now() - began).toBeLessThan(2_000);
    expect(await body).toBeInstanceOf(Error);
  });
});
