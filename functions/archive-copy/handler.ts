/**
 * The export archive's copier: an SQS-triggered Lambda that copies the files of a batch of copy tasks, records each
 * outcome, and writes a run's manifest when it records the run's last outcome. Messages whose outcome could not be
 * recorded are handed back (partial batch response) for SQS to deliver again, and dead-lettered after the last try;
 * so are those left unfinished at the service's session limit. The session is the container's, kept between
 * invocations (src/app/warm-client.ts).
 */
import { jobMetricLine } from '../../src/app/job-metric.ts';
import { refusePlaceholder } from '../../src/app/placeholder-guard.ts';
import { runCopyStep } from '../../src/archive/copy-step.ts';
import { archiveCopyRuntime, type LambdaContext } from './runtime.ts';

/** The parts of the SQS event this function reads. */
interface SqsEvent {
  Records: { messageId: string; body: string }[];
}

export const handler = async (event: SqsEvent, context?: LambdaContext) => {
  const { config, ports } = archiveCopyRuntime(process.env, context);
  const batch = event.Records.map((r) => ({ id: r.messageId, body: r.body }));
  // Placeholder credentials: the whole batch is handed back, to be copied once the secret is set (or redriven).
  // No ledger: the archive counts no new failures (its ledger is for its run events; JobFailed alarms it).
  if (await refusePlaceholder('archive', { client: ports.client, logger: ports.logger }))
    return { batchItemFailures: batch.map(({ id }) => ({ itemIdentifier: id })) };
  const { retry, outcomes, finished } = await runCopyStep(config, ports, batch);
  ports.logger.info('archive copies done', { outcomes, retry: retry.length, runsFinished: finished.length });
  for (const run of finished) process.stdout.write(jobMetricLine(run));
  return { batchItemFailures: retry.map((itemIdentifier) => ({ itemIdentifier })) };
};
