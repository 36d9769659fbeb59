/**
 * Scheduled (daily) Lambda that checks the archive's manifest chain (src/archive/verify-chain.ts): every
 * manifest links to the one before it with that one's SHA-256. A break (a manifest deleted, altered or inserted) is
 * the job's failure: `Pulse/JobFailed` for `archive-verify`, the "archive manifest chain broken" alarm. Read-only:
 * no service, so no credentials and no placeholder check. Thin by design.
 */
import { jobMetricLine } from '../../src/app/job-metric.ts';
import { verifyArchiveChain } from '../../src/archive/verify-chain.ts';
import type { JobResult } from '../../src/core/job-result.ts';
import { archiveVerifyRuntime, type LambdaContext } from './runtime.ts';

export const handler = async (_event: unknown = {}, context?: LambdaContext): Promise<JobResult> => {
  const { archive, logger, prefix } = archiveVerifyRuntime(process.env, context).ports;
  const result = await verifyArchiveChain(archive, prefix);
  if (result.ok) logger.info('archive manifest chain intact', { ...result.counts, latest: result.outputs[0] });
  else logger.error('archive manifest chain broken', { ...result.counts, breaks: result.errors });
  process.stdout.write(jobMetricLine(result));
  return result;
};
