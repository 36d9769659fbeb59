/**
 * SQS-triggered Lambda of the mail events: each record's body is the EventBridge event SES published for a bounce,
 * complaint or reject of a message sent with Pulse's configuration set (src/mail-events/: suppress, record on
 * the delivery's ledger record, tell the owner once). Records that could not be read or settled are handed back
 * (partial batch response) for SQS to deliver again, and dead-lettered after the last try. No Reporting Service
 * call, so no placeholder check. Thin by design.
 */
import { jobMetricLine } from '../../src/app/job-metric.ts';
import { processMailEvents } from '../../src/mail-events/run-mail-events.ts';
import { type LambdaContext, mailEventsRuntime } from './runtime.ts';

/** The parts of the SQS event this function reads. */
interface SqsEvent {
  Records: { messageId: string; body: string }[];
}

export const handler = async (event: SqsEvent, context?: LambdaContext) => {
  const { config, ports } = mailEventsRuntime(process.env, context);
  const records = event.Records.map((r) => ({ id: r.messageId, body: r.body }));
  const { result, retry } = await processMailEvents(config, ports, records);
  if (result.ok) ports.logger.info('mail events settled', { ...result.counts });
  else ports.logger.error('mail events settled with errors', { ...result.counts, errors: result.errors });
  process.stdout.write(jobMetricLine(result));
  return { batchItemFailures: retry.map((itemIdentifier) => ({ itemIdentifier })) };
};
