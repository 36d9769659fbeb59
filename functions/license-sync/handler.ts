/**
 * Lambda of the license registry sync, triggered by S3 when a CSV lands under `<prefix>/license-sync/incoming/`
 * (docs/licenses.md "License registry sync"). Thin by design: decode the event's keys, build the AWS adapters, run the job
 * (src/licenses/sync/sync-upload.ts refuses hostile keys and writes the result file under `…/results/`).
 */
import { jobMetricLine } from '../../src/app/job-metric.ts';
import { refusePlaceholder } from '../../src/app/placeholder-guard.ts';
import type { JobResult } from '../../src/core/job-result.ts';
import { syncUploadedCsv } from '../../src/licenses/sync/sync-upload.ts';
import { type LambdaContext, licenseSyncRuntime } from './runtime.ts';

/** The part of an S3 event notification the job reads (keys URL-encoded with `+` for spaces). */
interface S3Event {
  Records?: { s3: { bucket: { name: string }; object: { key: string } } }[];
}

const decodeKey = (key: string): string => decodeURIComponent(key.replace(/\+/g, ' '));

export const handler = async (event: S3Event = {}, context?: LambdaContext): Promise<JobResult[]> => {
  const { config, ports } = licenseSyncRuntime(process.env, context);
  const refused = await refusePlaceholder('licenses-sync', ports);
  if (refused) return [refused];
  const results: JobResult[] = [];
  try {
    for (const record of event.Records ?? []) {
      const result = await syncUploadedCsv(
        config,
        { ...ports, archive: ports.archive! },
        decodeKey(record.s3.object.key),
      );
      ports.logger.info('license sync finished', { ...result });
      process.stdout.write(jobMetricLine(result));
      results.push(result);
    }
  } finally {
    await ports.client.logout().catch(() => undefined);
  }
  return results;
};
