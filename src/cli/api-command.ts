/**
 * `pulse api <operationId>`: calls any of the 33 operations, like `gh api` — the power user's escape hatch. One
 * session per run, always logged out at the end. The password comes only from PULSE_PASSWORD or a no-echo prompt:
 * a flag would leak it into shell history and the process list.
 */
import { createWriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { acceptsProduct, isProductScoped, OPERATION_BY_ID, OPERATIONS, type OperationDef } from '../api/operations.ts';
import { ReportingClient } from '../client/client.ts';
import { ClientConfigError, ReportingServiceError } from '../client/errors.ts';
import type { ExportClientPropertyListRequest } from '../client/families/client-profile.ts';
import type { ClientOptions } from '../client/options.ts';
import { exitCodesHelp } from './exit-codes.ts';
import { exitCodeFor } from './failure.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';
import { type Output, outputOf, type PromptInput, promptPassword, readJsonArgument } from './terminal.ts';

export const API_HELP = `Usage: pulse api <operationId> [options]
       pulse api --list

Calls one Reporting Service operation and prints its validated JSON answer (nothing for empty answers).

Options:
  --product ID        product id (required by product-scoped operations; optional for productProperties)
  --body JSON|@FILE   request body as JSON text, or @path of a JSON file
  --base-url URL      service base URL (default $PULSE_BASE_URL)
  --origin URL        dashboard origin the service allows (default $PULSE_ORIGIN)
  --header-prefix P   prefix of header and cookie names (default $PULSE_HEADER_PREFIX or Svc)
  --user U            sign-in user (default $PULSE_USER)
  --download FILE     *DownloadUrl operations: fetch the file to FILE; exportClientPropertyList: write the CSV to FILE
                      (a file name in an existing folder, not a directory)
  --timeout S         seconds one attempt may take until the answer's headers (default 30)
  --idle-timeout S    --download: seconds storage may send nothing before the download fails (default 30)
  --list              list the operation ids with method and path
  -h, --help          show this help

The password is read from $PULSE_PASSWORD, or asked for when stdin is a terminal; there is no flag for it.
${exitCodesHelp({ 1: 'Pulse failed (an unexpected error)' })}
`;

/** `stdin` for the password prompt; `process.stdin` when absent (tests pass a fake terminal). */
export type ApiIo = CliIo & { stdin?: PromptInput };

const isDownloadUrlOp = (op: OperationDef) => op.id.endsWith('DownloadUrl');
const isExportOp = (op: OperationDef) => op.id === 'exportClientPropertyList';

interface ApiRequest {
  op: OperationDef;
  productId: string | undefined;
  body: unknown;
  download: string | undefined;
}

export async function apiCommand(args: string[], io: ApiIo): Promise<number> {
  let password: string | undefined;
  try {
    const parsed = await parseApiArgs(args);
    if (parsed === 'help') return write(io, API_HELP);
    if (parsed === 'list') return write(io, listOperations());
    const { values, request } = parsed;
    const setting = (flag: string, env: string, fallback?: string) => {
      const v = values[flag] || io.env[env] || fallback;
      if (!v) throw new UsageError(`missing --${flag}: pass it or set ${env}`);
      return v;
    };
    const baseUrl = setting('base-url', 'PULSE_BASE_URL');
    const origin = setting('origin', 'PULSE_ORIGIN');
    const headerPrefix = setting('header-prefix', 'PULSE_HEADER_PREFIX', 'Svc');
    const userName = setting('user', 'PULSE_USER');
    password =
      io.env.PULSE_PASSWORD ||
      (await promptPassword(io.stdin ?? process.stdin, io.stderr, `Password for ${userName}`, 'PULSE_PASSWORD'));
    let client: ReportingClient;
    try {
      client = new ReportingClient({
        ...parsed.timeouts,
        baseUrl,
        origin,
        headerPrefix,
        credentials: { userName, password },
      });
    } catch (e) {
      if (!(e instanceof ClientConfigError)) throw e;
      throw new UsageError(e.message.replace(/^[\w.]+/, (path) => FLAG_OF_OPTION[path] ?? path));
    }
    const output = outputOf(io.stdout);
    try {
      await client.withSession((c) => run(c, request, io, output));
    } finally {
      await output.close();
    }
    return EXIT.ok;
  } catch (e) {
    const code = exitCodeFor(e);
    let message = ((e as Error)?.message ?? String(e)).replace(/\s*\n\s*/g, ' ');
    // Belt and braces: no error path may echo the password, whatever a lower layer put into its message.
    if (password) message = message.split(password).join('***');
    io.stderr.write(`pulse api: ${message}\n`);
    return code;
  }
}

function write(io: CliIo, text: string): number {
  io.stdout.write(text);
  return EXIT.ok;
}

function listOperations(): string {
  const width = Math.max(...OPERATIONS.map((o) => o.id.length));
  return OPERATIONS.map((o) => `${o.id.padEnd(width)}  ${o.method.padEnd(5)}  ${o.path}\n`).join('');
}

function parseApiFlags(args: string[]) {
  // Checked before parsing, so that `--password` with or without a value gets the explanation, never an echo.
  if (args.some((a) => a === '--password' || a.startsWith('--password=')))
    throw new UsageError(
      '--password is not accepted: it would end up in shell history and the process list. Set PULSE_PASSWORD or ' +
        'type it at the prompt',
    );
  return parseFlags('api', args, OPTIONS, true);
}

async function parseApiArgs(args: string[]) {
  const { values, positionals } = parseApiFlags(args);
  if (values.help) return 'help' as const;
  if (values.list) return 'list' as const;
  if (positionals.length !== 1)
    throw new UsageError('expected one operation id (`pulse api --list` shows them); see `pulse api --help`');
  const id = positionals[0]!;
  const op = OPERATION_BY_ID.get(id);
  if (!op) throw new UsageError(`unknown operation id ${JSON.stringify(id)}; \`pulse api --list\` shows them`);
  if (values.product === '') throw new UsageError('--product: expected a product id');
  if (isProductScoped(op) && !values.product) throw new UsageError(`${op.id} needs --product ID`);
  if (!acceptsProduct(op) && values.product !== undefined)
    throw new UsageError(`--product: ${op.id} is not scoped to a product`);
  if (values.body !== undefined && (op.method === 'GET' || op.id === 'signIn'))
    throw new UsageError(
      `--body: ${op.id} takes no body${op.id === 'signIn' ? ' (credentials come from --user and PULSE_PASSWORD)' : ''}`,
    );
  if (values.download !== undefined && !isDownloadUrlOp(op) && !isExportOp(op))
    throw new UsageError('--download works only with the *DownloadUrl operations and exportClientPropertyList');
  if (values.download === '') throw new UsageError('--download: expected a file name');
  if (values.download !== undefined) await checkDownloadTarget(values.download);
  if (values['idle-timeout'] !== undefined && values.download === undefined)
    throw new UsageError('--idle-timeout goes with --download');
  const request: ApiRequest = {
    op,
    productId: values.product,
    body: values.body === undefined ? undefined : await readJsonArgument('--body', values.body),
    download: values.download,
  };
  const timeouts: Pick<ClientOptions, 'timeoutMs' | 'downloadIdleTimeoutMs'> = {
    ...(values.timeout !== undefined ? { timeoutMs: seconds('--timeout', values.timeout) } : {}),
    ...(values['idle-timeout'] !== undefined
      ? { downloadIdleTimeoutMs: seconds('--idle-timeout', values['idle-timeout']) }
      : {}),
  };
  return { values: values as Record<string, string | undefined>, request, timeouts };
}

/** A flag's seconds (decimals allowed) as whole milliseconds, at least 1 ms and at most a day. */
function seconds(flag: string, text: string): number {
  const s = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(s >= 0.001 && s <= 86_400)) throw new UsageError(`${flag}: expected seconds from 0.001 to 86400, got ${text}`);
  return Math.round(s * 1000);
}

/** `--download FILE` must name a file in an existing folder: checked before signing in, a usage error (exit 2). */
async function checkDownloadTarget(file: string): Promise<void> {
  const target = await stat(file).catch(() => undefined);
  if (target?.isDirectory() || /[/\\]$/.test(file))
    throw new UsageError(`--download: ${file} is a directory; give the file to write, e.g. ${join(file, 'file.zip')}`);
  const folder = await stat(dirname(file)).catch(() => undefined);
  if (!folder?.isDirectory()) throw new UsageError(`--download: the folder ${dirname(file)} does not exist`);
}

const OPTIONS = {
  product: { type: 'string' },
  body: { type: 'string' },
  'base-url': { type: 'string' },
  origin: { type: 'string' },
  'header-prefix': { type: 'string' },
  user: { type: 'string' },
  download: { type: 'string' },
  timeout: { type: 'string' },
  'idle-timeout': { type: 'string' },
  list: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The flag behind each client option, for messages about invalid settings. */
const FLAG_OF_OPTION: Record<string, string> = {
  baseUrl: '--base-url',
  origin: '--origin',
  headerPrefix: '--header-prefix',
  'credentials.userName': '--user',
};

async function run(client: ReportingClient, req: ApiRequest, io: CliIo, output: Output): Promise<void> {
  const { op } = req;
  if (isExportOp(op)) {
    // A CSV stream (sent as `*/*`, cut-off detection by the client), to the file or straight through to stdout.
    const { stream } = await client.exportClientPropertyList(
      req.productId!,
      req.body as ExportClientPropertyListRequest,
    );
    if (req.download !== undefined) return saveStream(stream, req.download, op.id, io);
    const decoder = new TextDecoder();
    for await (const chunk of chunksOf(stream, op.id)) {
      if (output.closed) return; // the reader went away (`| head`): stop downloading
      await output.write(decoder.decode(chunk, { stream: true }));
    }
    return output.write(decoder.decode());
  }
  const result = await client.call(op.id, {
    body: req.body,
    ...(req.productId === undefined ? {} : { productId: req.productId }),
  });
  if (req.download !== undefined) {
    const url = (result as { downloadUrl?: unknown } | undefined)?.downloadUrl;
    if (typeof url !== 'string')
      throw new ReportingServiceError('the answer has no downloadUrl to follow', { operationId: op.id });
    const download = await client.download(url);
    return saveStream(download.stream, req.download, op.id, io);
  }
  if (result !== undefined) await output.write(`${JSON.stringify(result, null, 2)}\n`);
}

/** Writes to FILE.partial and renames it when complete, so FILE is either whole or absent. */
async function saveStream(
  body: ReadableStream<Uint8Array> | null,
  file: string,
  operationId: string,
  io: CliIo,
): Promise<void> {
  const partial = `${file}.partial`;
  const counter = { bytes: 0 };
  // Ctrl-C while writing stops the copy instead of the process, so the partial file is removed (and we log out).
  const interrupt = new AbortController();
  const onSignal = () => interrupt.abort();
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    await pipeline(chunksOf(body, operationId, counter), createWriteStream(partial), { signal: interrupt.signal });
    await rename(partial, file);
  } catch (e) {
    await rm(partial, { force: true });
    throw interrupt.signal.aborted ? new Error(`interrupted; ${file} was not written`) : e;
  } finally {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
  }
  io.stderr.write(`pulse api: wrote ${counter.bytes} bytes to ${file}\n`);
}

/** The body's chunks; a body that breaks off is a service failure (exit 4), not a local one. */
async function* chunksOf(body: ReadableStream<Uint8Array> | null, operationId: string, counter = { bytes: 0 }) {
  if (!body) return;
  const reader = body.getReader();
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (e) {
        if (e instanceof ReportingServiceError) throw e;
        throw new ReportingServiceError(`the response broke off: ${(e as Error).message}`, { operationId, cause: e });
      }
      if (next.done) return;
      counter.bytes += next.value.byteLength;
      yield next.value;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}
