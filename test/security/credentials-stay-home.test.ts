/**
 * Cookies, Origin, CSRF and Authorization never reach the storage host or a redirect target (issue 14). A proxy in
 * front of the emulator (the "service" the client and `pulse api` talk to) rewrites every signed download URL the
 * service answers to point at a second listener on another port ("storage"), which records the headers it receives
 * and then either forwards to the emulator's real storage listener or answers 302 to a third listener ("elsewhere",
 * another origin). Both the ReportingClient's download path and `pulse api --download` go through it. What must hold:
 * the download works; storage saw no Cookie, Origin, CSRF, service or Authorization header; a redirect is refused
 * (a named DownloadError, no file written) and nothing ever reaches the redirect target.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import type { ApiIo } from '../../src/cli/api-command.ts';
import { main } from '../../src/cli/main.ts';
import { DownloadError, ReportingClient, UnexpectedStatusError } from '../../src/client/index.ts';
import { type OtherServer, startOtherServer } from '../client/wire-recorder.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

let emu: Emulator;
let service: Listener;
let storage: Listener & { mode: 'forward' | 'redirect' };
let elsewhere: OtherServer;
let productId: string;
/** The service itself answers 307 to another origin (everything but sign-in and logout). */
let serviceRedirects = false;
let fileName: string;
const dir = mkdtempSync(join(tmpdir(), 'pulse-stay-home-'));

interface Listener {
  origin: string;
  received: IncomingHttpHeaders[];
  server: Server;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

/** Forwards a request to `target` (an origin); `rewrite` may change a buffered JSON answer. */
function forward(target: string, rewrite?: (json: string) => string) {
  const t = new URL(target);
  return (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
    const headers = { ...req.headers, host: t.host };
    delete headers['accept-encoding'];
    const up = request({ host: t.hostname, port: t.port, method: req.method, path: req.url, headers }, (r) => {
      const isJson = /json/.test(String(r.headers['content-type'] ?? ''));
      if (!rewrite || !isJson) {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      r.on('data', (c: Buffer) => chunks.push(c));
      r.on('end', () => {
        const body = Buffer.from(rewrite(Buffer.concat(chunks).toString('utf8')));
        const out = { ...r.headers, 'content-length': String(body.length) };
        delete out['transfer-encoding'];
        res.writeHead(r.statusCode ?? 502, out);
        res.end(body);
      });
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  };
}

beforeAll(async () => {
  emu = await startTestEmulator({ clients: 30 });
  productId = emu.products[0]!.productId;
  elsewhere = await startOtherServer();
  const storageReceived: IncomingHttpHeaders[] = [];
  const toStorage = forward(emu.storageUrl);
  const storageServer = createServer((req, res) => {
    storageReceived.push(req.headers);
    if (storage.mode === 'redirect') {
      req.resume();
      res.writeHead(302, { location: `${elsewhere.origin}/stolen${req.url}`, 'content-length': 0 }).end();
    } else toStorage(req, res);
  });
  storage = { origin: await listen(storageServer), received: storageReceived, server: storageServer, mode: 'forward' };
  const storageOrigin = new URL(emu.storageUrl).origin;
  const serviceReceived: IncomingHttpHeaders[] = [];
  const toService = forward(emu.baseUrl, (json) => json.replaceAll(storageOrigin, storage.origin));
  const serviceServer = createServer((req, res) => {
    serviceReceived.push(req.headers);
    if (serviceRedirects && !/^\/v3\/(request-csrf|auth\/)/.test(req.url ?? '')) {
      req.resume();
      res.writeHead(307, { location: `${elsewhere.origin}/stolen${req.url}`, 'content-length': 0 }).end();
    } else toService(req, res);
  });
  service = { origin: await listen(serviceServer), received: serviceReceived, server: serviceServer };

  const client = newClient();
  fileName = (await client.exceptionsListFiles(productId)).dailyFiles.at(-1)!.fileName;
  await client.logout();
});
afterAll(async () => {
  for (const s of [service?.server, storage?.server])
    await new Promise((resolve) => {
      s?.closeAllConnections();
      s?.close(resolve);
    });
  await elsewhere?.close();
  await emu?.close();
  rmSync(dir, { recursive: true, force: true });
});

const newClient = () =>
  new ReportingClient({
    baseUrl: service.origin,
    origin: emu.origin,
    headerPrefix: emu.headerPrefix,
    credentials: emu.credentials,
    maxRetries: 0,
  });

/** No header that authenticates to the service or names its dashboard reached storage or the redirect target. */
function expectNothingOfTheService(headers: IncomingHttpHeaders[]): void {
  for (const h of headers) {
    const names = Object.keys(h);
    expect(names).not.toContain('cookie');
    expect(names).not.toContain('origin');
    expect(names).not.toContain('authorization');
    expect(names.filter((n) => n.startsWith(`${emu.headerPrefix.toLowerCase()}-`))).toEqual([]);
    expect(h.referer).toBeUndefined();
  }
}

const run = async (args: string[]) => {
  let stdout = '';
  let stderr = '';
  const io: ApiIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env: {
      PULSE_BASE_URL: service.origin,
      PULSE_ORIGIN: emu.origin,
      PULSE_USER: emu.credentials.userName,
      PULSE_PASSWORD: emu.credentials.password,
    },
  };
  const code = await main(['api', ...args], io);
  return { code, stdout, stderr };
};

describe('signed download URLs point at another listener', () => {
  it('the ReportingClient downloads from it without cookies, Origin, CSRF or Authorization', async () => {
    storage.mode = 'forward';
    const before = storage.received.length;
    const client = newClient();
    const { downloadUrl } = await client.exceptionsDownloadUrl(productId, { fileName });
    expect(new URL(downloadUrl).origin).toBe(storage.origin);
    const d = await client.download(downloadUrl);
    const bytes = Buffer.from(await new Response(d.stream).arrayBuffer());
    expect(bytes.subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    await client.logout();
    const seen = storage.received.slice(before);
    expect(seen).toHaveLength(1);
    expectNothingOfTheService(seen);
    // Non-vacuous: the same client did send its cookies, Origin and CSRF value to the service.
    const last = service.received.at(-1)!;
    expect(last.cookie).toMatch(new RegExp(`${emu.headerPrefix}-Session-Token=`));
    expect(last.origin).toBe(emu.origin);
    expect(last[`${emu.headerPrefix.toLowerCase()}-csrf`]).toBeTruthy();
  });

  it('`pulse api --download` too', async () => {
    storage.mode = 'forward';
    const before = storage.received.length;
    const file = join(dir, 'cli.zip');
    const body = JSON.stringify({ fileName });
    const r = await run(['exceptionsDownloadUrl', '--product', productId, '--body', body, '--download', file]);
    expect(r.stderr).toMatch(/wrote \d+ bytes/);
    expect(r.code).toBe(0);
    expect(readFileSync(file).subarray(0, 4)).toEqual(Buffer.from('PK\x03\x04', 'latin1'));
    const seen = storage.received.slice(before);
    expect(seen).toHaveLength(1);
    expectNothingOfTheService(seen);
  });
});

describe('storage answers with a redirect to another origin', () => {
  it('the ReportingClient refuses it with a DownloadError and never contacts the target', async () => {
    storage.mode = 'redirect';
    const before = { storage: storage.received.length, elsewhere: elsewhere.received.length };
    const client = newClient();
    const { downloadUrl } = await client.exceptionsDownloadUrl(productId, { fileName });
    const err = await client.download(downloadUrl).then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.logout();
    expect(err).toBeInstanceOf(DownloadError);
    expect((err as Error).message).toMatch(/redirect \(302\)/);
    expectNothingOfTheService(storage.received.slice(before.storage));
    expect(elsewhere.received.length).toBe(before.elsewhere);
  });

  it('`pulse api --download` refuses it, writes no file and never contacts the target', async () => {
    storage.mode = 'redirect';
    const before = { storage: storage.received.length, elsewhere: elsewhere.received.length };
    const file = join(dir, 'redirected.zip');
    const body = JSON.stringify({ fileName });
    const r = await run(['exceptionsDownloadUrl', '--product', productId, '--body', body, '--download', file]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/redirect/);
    expect(existsSync(file)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.endsWith('.partial'))).toEqual([]);
    expect(storage.received.length).toBe(before.storage + 1);
    expectNothingOfTheService(storage.received.slice(before.storage));
    expect(elsewhere.received.length).toBe(before.elsewhere);
  });
});

describe('the service answers with a redirect to another origin', () => {
  it('neither the client nor `pulse api` follows it: nothing reaches the target', async () => {
    const before = elsewhere.received.length;
    serviceRedirects = true;
    try {
      const client = newClient();
      const err = await client.call('productProperties').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(UnexpectedStatusError);
      expect(err).toMatchObject({ status: 307 });
      await client.logout();
      const r = await run(['productProperties']);
      expect(r.code).not.toBe(0);
      expect(r.stdout).toBe('');
    } finally {
      serviceRedirects = false;
    }
    expect(elsewhere.received.length).toBe(before);
  });
});
