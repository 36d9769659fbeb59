/**
 * The interface document and a reference page for it, served next to the operations: `GET /openapi.json` (the
 * OpenAPI document, src/api/openapi.json, with `servers` naming this emulator) and `GET /docs` (the document rendered
 * by Redoc's standalone bundle, served from node_modules: the page loads nothing from elsewhere). Neither needs a
 * session or an `Origin`: a browser's address bar sends none, and the document holds no data.
 */
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';

export const CONTRACT_PATHS = { document: '/openapi.json', page: '/docs' } as const;
const RENDERER_PATH = '/docs/redoc.standalone.js';

const DOCUMENT_FILE = new URL('../../src/api/openapi.json', import.meta.url);

/** Redoc is a devDependency: the emulator runs from a clone with its dev dependencies (`npm ci`). */
function rendererFile(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js');
  } catch {
    return undefined;
  }
}

/**
 * The page allows nothing but this emulator: scripts and the document from here, the inline styles Redoc makes, and
 * its search worker from a blob. So a renderer that tried to reach a CDN or a font host would fail, not leak.
 */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  'worker-src blob:',
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Reporting Service interface — emulator reference</title>
<style>body { margin: 0; }</style>
</head>
<body>
<redoc spec-url="${CONTRACT_PATHS.document}" hide-hostname="false" path-in-middle-panel="true" required-props-first="true"></redoc>
<script src="${RENDERER_PATH}"></script>
</body>
</html>
`;

function answer(res: ServerResponse, status: number, type: string, body: string | Buffer, extra = {}) {
  res
    .writeHead(status, {
      'Content-Type': type,
      'Content-Length': Buffer.byteLength(body),
      'Cache-Control': 'no-cache',
      'X-Content-Type-Options': 'nosniff',
      Server: 'pulse-emulator',
      ...extra,
    })
    .end(body);
}

/** The service's base URL as this request reached it (the host the emulator listens on, and its port). */
function baseUrlOf(req: IncomingMessage, host: string): string {
  const { port } = req.socket.address() as AddressInfo;
  return `http://${host}:${port}`;
}

/**
 * Answers a GET (or HEAD) of the document, the page or the renderer and returns true; false for every other request,
 * which goes on to the service's checks.
 */
export async function serveContract(req: IncomingMessage, res: ServerResponse, host: string): Promise<boolean> {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  const path = new URL(req.url ?? '/', 'http://emulator.invalid').pathname;
  if (path === CONTRACT_PATHS.document) {
    let doc: { servers?: unknown };
    try {
      doc = JSON.parse(await readFile(DOCUMENT_FILE, 'utf8'));
    } catch (e) {
      const why = (e as NodeJS.ErrnoException).code === 'ENOENT' ? 'is missing' : 'is not valid JSON';
      answer(res, 503, 'text/plain; charset=utf-8', `src/api/openapi.json ${why} in this checkout\n`);
      return true;
    }
    doc.servers = [{ url: baseUrlOf(req, host), description: 'this emulator' }];
    answer(res, 200, 'application/json; charset=utf-8', JSON.stringify(doc, null, 2));
    return true;
  }
  if (path === CONTRACT_PATHS.page || path === `${CONTRACT_PATHS.page}/`) {
    answer(res, 200, 'text/html; charset=utf-8', PAGE, { 'Content-Security-Policy': PAGE_POLICY });
    return true;
  }
  if (path === RENDERER_PATH) {
    const file = rendererFile();
    if (!file) {
      answer(res, 503, 'text/plain; charset=utf-8', 'the redoc package is not installed: run npm ci in the clone\n');
      return true;
    }
    answer(res, 200, 'text/javascript; charset=utf-8', await readFile(file));
    return true;
  }
  return false;
}
