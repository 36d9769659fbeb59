/**
 * `pulse console`: a read-only web page on the loopback interface over the work directory a local run (`npm start`)
 * leaves behind — the outbox as its readers see it, the archive (manifest chain, runs, coverage), the ledger and the
 * license alert state — that never writes the work directory and serves nothing but its own pages.
 *
 * Every request reads the work directory afresh (the ledger from a copy: ledger-snapshot.ts; the bucket from
 * s3rver's files: s3rver-files.ts), so it can stay open while `npm start` runs again; a run holding the directory
 * is said on every page. Every value shown is escaped (html.ts); messages and report pages, whose HTML is theirs,
 * are shown in sandboxed frames served with a CSP that allows no script. The pages carry no script either.
 * Requests must name the console by a loopback host (a guard against DNS rebinding); only GET and HEAD are served.
 */
import { readFile, stat } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';
import { join, resolve } from 'node:path';
import { simpleParser } from 'mailparser';
import { archiveBody, runBody } from './archive-pages.ts';
import { readArchive, readCoverage, readRun } from './archive-state.ts';
import { html, notice, type PageOptions, page, type SafeHtml } from './html.ts';
import { deliveriesOf } from './ledger-entries.ts';
import { ledgerBody, licensesBody } from './ledger-pages.ts';
import { readLedger } from './ledger-snapshot.ts';
import { linkedReports, outboxFile, readOutbox } from './outbox.ts';
import { messageBody, outboxBody, reportBody, VIEW_CSP } from './outbox-pages.ts';
import { overviewBody } from './overview-page.ts';
import { S3rverFiles } from './s3rver-files.ts';
import { inspectWorkDir, WORK_DIR_PARTS, type WorkDirState } from './work-dir-state.ts';

export interface ConsoleOptions {
  workDir: string;
  /** A loopback address (127.0.0.0/8, ::1, localhost). @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port; `pulse console` defaults it (CONSOLE_DEFAULT_PORT). */
  port: number;
}

export interface RunningConsole {
  url: string;
  close(): Promise<void>;
}

export class NotLoopbackError extends Error {
  override name = 'NotLoopbackError';
}

/** Whether `host` names this machine's loopback interface only. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '');
  if (bare === 'localhost') return true;
  if (isIPv4(bare)) return bare.startsWith('127.');
  return isIPv6(bare) && (bare === '::1' || bare === '0:0:0:0:0:0:0:1');
}

export async function startConsole(opts: ConsoleOptions): Promise<RunningConsole> {
  const host = opts.host ?? '127.0.0.1';
  if (!isLoopback(host)) {
    throw new NotLoopbackError(
      `--host ${JSON.stringify(host)} is not a loopback address: the console serves this machine only (127.0.0.1, ::1 or localhost)`,
    );
  }
  const workDir = resolve(opts.workDir);
  const server = createServer((req, res) => {
    handle(workDir, req, res).catch((e: unknown) => {
      // One line, no stack: the work directory changed under the request, or something unforeseen.
      if (!res.headersSent)
        send(res, 500, errorPage(workDir, `the console could not read this: ${(e as Error).message}`));
      else res.end();
    });
  });
  const bindHost = host === 'localhost' ? '127.0.0.1' : host.replace(/^\[|\]$/g, '');
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(opts.port, bindHost, () => {
      server.off('error', fail);
      done();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const urlHost = isIPv6(bindHost) ? `[${bindHost}]` : bindHost;
  return {
    url: `http://${urlHost}:${port}/`,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  // No script anywhere; frames only from the console itself (the sandboxed message views).
  'Content-Security-Policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Record<string, string> = PAGE_HEADERS,
) {
  res.writeHead(status, { ...headers, 'Content-Length': String(Buffer.byteLength(body)) });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function errorPage(workDir: string, message: string): string {
  return page({ title: 'Not available', section: 'overview', workDir, body: notice('error', html`<p>${message}</p>`) });
}

async function handle(workDir: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const hostHeader = req.headers.host ?? '';
  if (!isLoopback(hostHeader.replace(/:\d+$/, ''))) {
    send(res, 421, errorPage(workDir, 'the console answers only to a loopback host name (127.0.0.1 or localhost)'));
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    send(res, 405, errorPage(workDir, 'the console is read-only: GET and HEAD only'), {
      ...PAGE_HEADERS,
      Allow: 'GET, HEAD',
    });
    return;
  }
  const url = new URL(req.url ?? '/', 'http://console.invalid');
  const parts = url.pathname.split('/').filter(Boolean).map(decodeSegment);
  const state = await inspectWorkDir(workDir);
  const dirs = {
    outbox: join(workDir, WORK_DIR_PARTS.outbox),
    s3: join(workDir, WORK_DIR_PARTS.s3),
    dynamodb: join(workDir, WORK_DIR_PARTS.dynamodb),
  };
  const show = (status: number, section: PageOptions['section'], title: string, body: SafeHtml) =>
    send(res, status, page({ title, section, workDir, notices: stateNotices(state), body }));
  const notFound = () =>
    show(404, 'overview', 'Not found', html`<p>Nothing here. <a href="/">Back to the overview</a>.</p>`);
  const [first, second, name, view] = parts;

  if (!state.used && (first === undefined || (SECTIONS.includes(first) && second === undefined))) {
    const section = (first ?? 'overview') as PageOptions['section'];
    return show(200, section, 'No local run yet', html``);
  }
  switch (first) {
    case undefined: {
      const [outbox, archive, ledger] = await Promise.all([
        settle(readOutbox(dirs.outbox)),
        settle(readArchive(dirs.s3)),
        settle(readLedger(dirs.dynamodb).then((items) => deliveriesOf(items, state.heldBy !== undefined))),
      ]);
      return show(200, 'overview', 'Overview', overviewBody({ outbox, archive, ledger }));
    }
    case 'outbox': {
      if (second === undefined) return show(200, 'outbox', 'Outbox', outboxBody(await readOutbox(dirs.outbox)));
      if (name === undefined || parts.length > 4) return notFound();
      if (second === 'messages') return serveMessage(res, dirs.outbox, name, view, show, notFound);
      if (second === 'reports') return serveReport(res, dirs.outbox, name, view, show, notFound);
      return notFound();
    }
    case 'archive': {
      if (second === undefined) {
        const archive = await readArchive(dirs.s3);
        return show(200, 'archive', 'Archive', archiveBody(archive.prefixes, archive.buckets));
      }
      if (second !== 'run' || parts.length > 2) return notFound();
      const bucket = url.searchParams.get('bucket') ?? '';
      const prefix = url.searchParams.get('prefix') ?? '';
      const runId = url.searchParams.get('run') ?? '';
      const archive = await readArchive(dirs.s3);
      if (!archive.buckets.includes(bucket)) return notFound();
      const store = new S3rverFiles(dirs.s3, bucket);
      const run = await readRun(store, prefix, runId).catch(() => undefined);
      if (!run?.manifest) return notFound();
      const versions = new Map<string, string | undefined>();
      for (const f of run.manifest.files) if (f.key) versions.set(f.key, (await store.head(f.key))?.versionId);
      const coverage = await readCoverage(store, prefix, runId);
      return show(
        200,
        'archive',
        `Archive run ${runId}`,
        runBody(
          { bucket, prefix },
          runId,
          run.manifest,
          run.problem,
          versions,
          coverage,
          Number(url.searchParams.get('page') ?? '1'),
        ),
      );
    }
    case 'ledger':
    case 'licenses': {
      if (second !== undefined) return notFound();
      const deliveries = deliveriesOf(await readLedger(dirs.dynamodb), state.heldBy !== undefined);
      const pageNumber = Number(url.searchParams.get('page') ?? '1');
      if (first === 'licenses') return show(200, 'licenses', 'License alerts', licensesBody(deliveries, pageNumber));
      const filter = {
        state: url.searchParams.get('state') ?? undefined,
        kind: url.searchParams.get('kind') ?? undefined,
        page: String(pageNumber),
      };
      return show(200, 'ledger', 'Ledger', ledgerBody(deliveries, filter));
    }
    default:
      return notFound();
  }
}

const SECTIONS = ['outbox', 'archive', 'ledger', 'licenses'];

type Show = (status: number, section: PageOptions['section'], title: string, body: SafeHtml) => void;

async function serveMessage(
  res: ServerResponse,
  outboxDir: string,
  name: string,
  view: string | undefined,
  show: Show,
  notFound: () => void,
): Promise<void> {
  const outbox = await readOutbox(outboxDir);
  const message = outbox.messages.find((m) => m.name === name);
  if (!message) return notFound();
  if (view === 'view') return serveView(res, await outboxFile(outboxDir, name, '.html'), notFound);
  if (view === 'raw') {
    const eml = await outboxFile(outboxDir, name, '.eml');
    if (!eml) return notFound();
    return send(res, 200, await readFile(eml), {
      'Content-Type': 'message/rfc822',
      'Content-Disposition': `attachment; filename="${name.replace(/[^\w.@+-]/g, '_')}.eml"`,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-store',
    });
  }
  if (view !== undefined) return notFound();
  const htmlFile = message.hasHtml ? await outboxFile(outboxDir, name, '.html') : undefined;
  const reports = htmlFile
    ? linkedReports(
        await readFile(htmlFile, 'utf8'),
        outbox.reports.map((r) => r.name),
      )
    : [];
  const text = htmlFile ? undefined : await plainTextOf(await outboxFile(outboxDir, name, '.eml'));
  return show(200, 'outbox', message.subject, messageBody(message, reports, text));
}

async function serveReport(
  res: ServerResponse,
  outboxDir: string,
  name: string,
  view: string | undefined,
  show: Show,
  notFound: () => void,
): Promise<void> {
  const report = (await readOutbox(outboxDir)).reports.find((r) => r.name === name);
  if (!report) return notFound();
  if (view === 'view') return serveView(res, await outboxFile(outboxDir, name, '.html'), notFound);
  if (view !== undefined) return notFound();
  return show(200, 'outbox', `Full report ${name}`, reportBody(name, report.modifiedAt));
}

/** A message's or report's own HTML, as its reader sees it, in a CSP sandbox: no script, no fetch. */
async function serveView(res: ServerResponse, file: string | undefined, notFound: () => void): Promise<void> {
  if (!file || !(await stat(file).catch(() => undefined))?.isFile()) return notFound();
  return send(res, 200, await readFile(file), {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': VIEW_CSP,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Cache-Control': 'no-store',
  });
}

async function plainTextOf(eml: string | undefined): Promise<string> {
  if (!eml) return '';
  return (await simpleParser(await readFile(eml))).text ?? '';
}

function stateNotices(state: WorkDirState): SafeHtml[] {
  if (!state.used) {
    return [
      notice(
        'info',
        html`<p><strong>No local run yet: run <code>npm start</code></strong> (or <code>npx pulse start --work-dir ${state.dir}</code>)
and reload. This directory holds no outbox, archive or ledger.</p>`,
      ),
    ];
  }
  if (state.heldBy !== undefined) {
    return [
      notice(
        'warn',
        html`<p><strong>A run holds this work directory right now</strong> (process ${state.heldBy}): what you see may change
while it runs; reload for the latest. A claim it holds shows as in progress.</p>`,
      ),
    ];
  }
  return [];
}

/** A result or the error that stopped it, so one unreadable part does not hide the others. */
const settle = <T>(p: Promise<T>): Promise<T | Error> =>
  p.catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return '\u0000'; // matches no name
  }
}
