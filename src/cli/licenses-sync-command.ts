/** `pulse licenses sync FILE.csv`: insert and update registry keys from a CSV (docs/licenses.md "License registry sync"). */
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { printableJson } from '../core/archive-key.ts';
import { runLicenseSync, type SyncRowResult } from '../licenses/sync/run-sync.ts';
import { CLEAR, SYNC_COLUMNS, SyncCsvError } from '../licenses/sync/sync-csv.ts';
import { type ResultWriter, resultNameOf, resultWriter } from '../licenses/sync/sync-result-file.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';
import {
  JOB_EXIT_CODES_HELP,
  JOB_OPTIONS,
  JOB_OPTIONS_HELP,
  loadJob,
  report,
  requireKnown,
  runJob,
} from './job-command.ts';

export const LICENSES_SYNC_HELP = `Usage: pulse licenses sync FILE.csv [options]

Makes the license key registry of one product hold what FILE.csv says: looks every key up, sends only the rows
that change something (in batches of up to 1000), and writes a result file with one line per input row:
inserted, updated (with the fields changed), unchanged, invalid (line and field) or failed (with the reason).
Running the same file again sends nothing that is already applied, and completes what failed.

FILE.csv: a header row naming licenseKey and any of
${SYNC_COLUMNS.slice(1).join(', ')};
a blank cell leaves the field unchanged, "${CLEAR}" clears expiryDate or quota; flags true/false; dates
YYYY-MM-DD; a key repeated in the file is invalid on its later line (see docs/licenses.md "License registry sync").

Options:
${JOB_OPTIONS_HELP}
  --product ID       the product whose registry to sync (required when the config has more than one)
  --out FILE         the result file (default: FILE.result.csv beside the input)

With --dry-run the keys are looked up and the difference is printed (new keys, changed fields, invalid rows);
nothing is sent and no result file is written.

${JOB_EXIT_CODES_HELP}
  (0: every valid row was applied or already held; 1: a row was invalid or failed — the result file says which)
`;

export async function licensesSyncCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseFlags(
    'licenses sync',
    args,
    { ...JOB_OPTIONS, product: { type: 'string' }, out: { type: 'string' } },
    true,
  );
  if (values.help) {
    io.stdout.write(LICENSES_SYNC_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1)
    throw new UsageError('licenses sync: give one FILE.csv; see `pulse licenses sync --help`');
  const file = positionals[0]!;
  if (!exists(file, 'file')) throw new UsageError(`licenses sync: ${file}: no such file`);
  const out = (values.out as string | undefined) ?? join(dirname(file), resultNameOf(file.split(/[\\/]/).at(-1)!));
  const dryRun = values['dry-run'] === true;
  if (!dryRun && !exists(dirname(out), 'directory')) throw new UsageError(`--out ${out}: no such directory`);
  const setup = loadJob(values, io);
  const products = setup.config.products.map((p) => p.id);
  const productId = (values.product as string | undefined) ?? (products.length === 1 ? products[0] : undefined);
  if (productId === undefined)
    throw new UsageError(`licenses sync: --product is required (the config has ${products.join(', ')})`);
  requireKnown('--product', [productId], products, "the config's products");

  return runJob('licenses sync', setup, io, async ({ config, ports }) => {
    const writer = dryRun ? undefined : resultWriter(createWriteStream(out));
    try {
      const result = await runLicenseSync(createReadStream(file, { highWaterMark: 256 * 1024 }), ports, {
        productId,
        concurrency: config.service.concurrency,
        dryRun,
        write: writer ? (rows) => writer.write(rows) : (rows) => printDiff(rows, values.json === true, io),
      });
      await writer?.end();
      return report({ ...result, outputs: writer ? [out] : [] }, values.json as boolean | undefined, io);
    } catch (e) {
      if (e instanceof SyncCsvError) {
        await discard(writer, out);
        throw new UsageError(`licenses sync: ${file}, ${e.message}`);
      }
      await writer?.end().catch(() => undefined); // what was written stays: some batches may have been sent
      throw e;
    }
  });
}

/** --dry-run: one line per row that would change something or is invalid (the --json line has the counts). */
function printDiff(rows: SyncRowResult[], json: boolean, io: CliIo): void {
  if (json) return;
  for (const r of rows) {
    if (r.outcome === 'unchanged') continue;
    const what = r.outcome === 'inserted' ? 'new key' : r.outcome === 'updated' ? 'changes' : r.outcome;
    const detail = r.detail ? `: ${printable(r.detail)}` : '';
    io.stdout.write(`line ${r.line} ${printableJson(r.key)}: ${what}${detail}\n`);
  }
}

/** Registry text on a terminal: control characters shown as escapes, never acted on. */
const printable = (s: string): string =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
  s.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A run refused before anything was sent leaves no result file behind. */
async function discard(writer: ResultWriter | undefined, out: string): Promise<void> {
  if (!writer) return;
  await writer.end().catch(() => undefined);
  await rm(out, { force: true });
}

function exists(path: string, kind: 'file' | 'directory'): boolean {
  try {
    const s = statSync(path);
    return kind === 'directory' ? s.isDirectory() : s.isFile();
  } catch {
    return false;
  }
}
