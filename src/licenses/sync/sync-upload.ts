/**
 * The license sync of a CSV uploaded to the archive bucket (functions/license-sync, triggered by S3): the object
 * `<prefix>/license-sync/incoming/<productId>/<name>.csv` is streamed through the same job as the CLI's file, and the
 * result file streamed to `<prefix>/license-sync/results/<productId>/<name>.result.csv` as batches complete.
 *
 * A file unreadable from its header on gets a result file with that one error. Object keys come from whoever could upload, so a key is refused (nothing read, nothing written, the run fails)
 * unless it is exactly that shape, for a product in the config, and safe by the one archive key rule
 * (src/core/archive-key.ts: no `.` or `..` segments, no control or non-ASCII characters, no backslash).
 */
import { PassThrough } from 'node:stream';
import { archivePrefixOf, type PulseConfig } from '../../config/schema.ts';
import { keyUnder, trimPrefix, unsafeKeyReason } from '../../core/archive-key.ts';
import type { JobResult } from '../../core/job-result.ts';
import type { ArchiveStore } from '../../ports/archive-store.ts';
import { runLicenseSync, type SyncCounts, type SyncPorts } from './run-sync.ts';
import { SyncCsvError } from './sync-csv.ts';
import { resultNameOf, resultWriter } from './sync-result-file.ts';

export const INCOMING = 'license-sync/incoming';
export const RESULTS = 'license-sync/results';

export interface UploadPorts extends SyncPorts {
  archive: ArchiveStore;
}

/** The product and file name of an incoming key, or why the key is refused. */
export function incomingKey(
  config: PulseConfig,
  key: string,
): { productId: string; name: string } | { problem: string } {
  const problem = unsafeKeyReason(key);
  if (problem) return { problem: `the object key ${problem}` };
  const folder = `${trimPrefix(archivePrefixOf(config))}/${INCOMING}/`.replace(/^\//, '');
  const rest = key.startsWith(folder) ? key.slice(folder.length).split('/') : [];
  if (rest.length !== 2 || !/^[^/]+\.csv$/i.test(rest[1]!)) return { problem: `not ${folder}<productId>/<name>.csv` };
  const [productId, name] = rest as [string, string];
  if (!config.products.some((p) => p.id === productId)) return { problem: `product ${productId} is not in the config` };
  return { productId, name };
}

const refused = (key: string, problem: string): JobResult<SyncCounts> => ({
  job: 'licenses-sync',
  ok: false,
  counts: { rows: 0, inserted: 0, updated: 0, unchanged: 0, invalid: 0, failed: 0, batches: 0 },
  outputs: [],
  errors: [`${JSON.stringify(key).slice(0, 300)}: refused: ${problem}`],
});

export async function syncUploadedCsv(
  config: PulseConfig,
  ports: UploadPorts,
  key: string,
): Promise<JobResult<SyncCounts>> {
  const target = incomingKey(config, key);
  if ('problem' in target) return refused(key, target.problem);
  const object = await ports.archive.read(key);
  if (!object) return refused(key, 'no such object (deleted since the upload?)');
  const resultKey = keyUnder(archivePrefixOf(config), RESULTS, target.productId, resultNameOf(target.name));
  const body = new PassThrough();
  // The upload reads the result as the sync writes it; if the upload fails, the sync's next write fails with it.
  const upload = ports.archive.put(resultKey, body, { contentType: 'text/csv; charset=utf-8' });
  upload.catch((e: unknown) => body.destroy(e as Error));
  const writer = resultWriter(body);
  try {
    const result = await runLicenseSync(object.body, ports, {
      productId: target.productId,
      concurrency: config.service.concurrency,
      write: (rows) => writer.write(rows),
    });
    await writer.end();
    await upload;
    return { ...result, outputs: [resultKey] };
  } catch (e) {
    object.body.destroy();
    if (e instanceof SyncCsvError) {
      // Unreadable from the start (nothing was sent): the result file says why, for whoever uploaded it.
      await writer.write([{ line: e.line, key: '', outcome: 'invalid', detail: e.message }]);
      await writer.end();
      await upload;
      return { ...refused(key, e.message), outputs: [resultKey] };
    }
    body.destroy(e as Error);
    await upload.catch(() => undefined);
    throw e;
  }
}
